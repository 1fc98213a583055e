/**
 * wrk (its own process) sending a list of distinct requests once each, in order — one-time links and
 * signed button clicks cannot be replayed like bench/lib/wrk.ts's one fixed request. One wrk thread
 * holds the list; once as many answers as requests have come back it says so and the wrk process is
 * interrupted (it prints its summary then). The at most `connections − 1` requests in flight at
 * that moment are repeats of the last one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WrkResult } from './wrk.js';

export interface SequencedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const lua = (s: string): string => JSON.stringify(s); // a JSON string is a valid Lua string literal for what we send

export async function runWrkSequence(o: { base: string; requests: readonly SequencedRequest[]; connections: number; maxSeconds?: number }): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wrkseq-'));
  const script = join(dir, 'sequence.lua');
  const entries = o.requests.map((r) => {
    const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ');
    return `  wrk.format(${lua(r.method)}, ${lua(r.path)}, { ${headers} }, ${r.body === undefined ? 'nil' : lua(r.body)}),`;
  });
  // Built in init(): wrk.format only knows the Host header once the thread has its target. wrk
  // calls request() once before it sends anything and throws that request away: the list starts
  // with a copy of its first entry for that call.
  writeFileSync(script, `local reqs = {}
local n = 0
init = function(args)
  reqs = {
${entries[0] ?? ''}
${entries.join('\n')}
  }
  n = #reqs - 1
end
local i = 0
local answered = 0
request = function()
  if i <= n then i = i + 1 end
  return reqs[i]
end
response = function(status, headers, body)
  answered = answered + 1
  if answered == n then
    io.write('WRKDONE\\n')
    io.flush()
    wrk.thread:stop()
  end
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nWRKJSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`);
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', ['-t1', `-c${o.connections}`, `-d${o.maxSeconds ?? 120}s`, '--timeout', '10s', '-s', script, o.base],
        { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        // A stopped thread still leaves wrk asleep for the whole -d: SIGINT ends it now, with its summary.
        if (text.includes('WRKDONE')) child.kill('SIGINT');
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`))));
    });
    const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (line === undefined) throw new Error(`no summary from wrk: ${out}`);
    const j = JSON.parse(line.slice(8)) as { requests: number; duration_us: number; errors: number; p50_us: number; p99_us: number; max_us: number };
    const seconds = j.duration_us / 1e6;
    return { requests: j.requests, seconds, rps: j.requests / seconds, errors: j.errors, p50Ms: j.p50_us / 1000, p99Ms: j.p99_us / 1000,
      maxMs: j.max_us / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
