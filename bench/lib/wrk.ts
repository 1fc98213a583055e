/**
 * Load from a process of its own: wrk (Debian `wrk`), driven by a generated Lua script, its summary
 * read back as JSON. The benches compare svc against a bare baseline measured with the same
 * generator in the same run, and report the generator's own ceiling (its rate against the bare
 * baseline) so a reader can see it was not what limited svc.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  /** Answers outside 2xx/3xx, and socket errors. */
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface WrkOptions {
  url: string;
  seconds: number;
  connections: number;
  threads?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** A Lua string literal: a JSON string is a valid one for what the benches send. */
export const lua = (s: string): string => JSON.stringify(s);

/** wrk's `done` hook, printing the summary as one `WRKJSON {…}` line that runWrkScript reads back. */
const DONE_LUA = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nWRKJSON {"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

export interface WrkScriptRun {
  /** The Lua script without its `done` hook (added here). */
  script: string;
  url: string;
  connections: number;
  threads: number;
  seconds: number;
  /** When wrk prints this, it is interrupted (SIGINT: it prints its summary, then exits). */
  stopWhenPrinted?: string;
}

/** Runs wrk with a generated script and reads its summary. */
export async function runWrkScript(o: WrkScriptRun): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wrk-'));
  const script = join(dir, 'bench.lua');
  writeFileSync(script, `${o.script}\n${DONE_LUA}`);
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', [`-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '10s', '-s', script, o.url],
        { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (o.stopWhenPrinted !== undefined && text.includes(o.stopWhenPrinted)) child.kill('SIGINT');
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

/** One fixed request, sent by every connection for `seconds`. */
export async function runWrk(o: WrkOptions): Promise<WrkResult> {
  const headers = Object.entries(o.headers ?? {}).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`).join('\n');
  const script = `wrk.method = ${lua(o.method ?? 'GET')}
${o.body === undefined ? '' : `wrk.body = ${lua(o.body)}`}
${headers}`;
  return runWrkScript({ script, url: o.url, connections: o.connections, threads: o.threads ?? 1, seconds: o.seconds });
}
