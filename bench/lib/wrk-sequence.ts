/**
 * wrk (its own process) sending a list of distinct requests once each, in order — one-time links and
 * signed button clicks cannot be replayed like bench/lib/wrk.ts's one fixed request. One wrk thread
 * holds the list; once as many answers as requests have come back it says so and the wrk process is
 * interrupted (it prints its summary then). The at most `connections − 1` requests in flight at
 * that moment are repeats of the last one.
 */
import { lua, runWrkScript } from './wrk.js';
import type { WrkResult } from './wrk.js';

export interface SequencedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export async function runWrkSequence(o: { base: string; requests: readonly SequencedRequest[]; connections: number; maxSeconds?: number }): Promise<WrkResult> {
  const entries = o.requests.map((r) => {
    const headers = Object.entries(r.headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ');
    return `  wrk.format(${lua(r.method)}, ${lua(r.path)}, { ${headers} }, ${r.body === undefined ? 'nil' : lua(r.body)}),`;
  });
  // Built in init(): wrk.format only knows the Host header once the thread has its target. wrk
  // calls request() once before it sends anything and throws that request away: the list starts
  // with a copy of its first entry for that call.
  const script = `local reqs = {}
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
`;
  // A stopped thread still leaves wrk asleep for the whole -d: it is interrupted on WRKDONE.
  return runWrkScript({ script, url: o.base, connections: o.connections, threads: 1, seconds: o.maxSeconds ?? 120, stopWhenPrinted: 'WRKDONE' });
}
