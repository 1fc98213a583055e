/**
 * `svc dlq replay --all` of 30,000 dead letters while alerts flow: the replay goes in chunks of 500
 * letters, each its own transaction, so ingest is never held behind one long one. A daemon (its own
 * process) with 30,000 dead letters written into its store before it starts; wrk (its own process)
 * posts signed alerts for 25 s without a replay, then 25 s with `svc dlq replay --all` (the built CLI,
 * its own process) started 1 s in. Ingest p99 and max with the replay against without, same run.
 * SVC_BENCH_ROOT=<checkout> runs the same against another build (the "before" figure).
 *
 *   npm run build && node --import tsx bench/dlq-replay.ts
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fillDeadLetters } from '../test/support/store.js';
import { benchDaemon, r3, signedAlert } from './lib/daemon.js';
import { runWrk } from './lib/wrk.js';

const LETTERS = 30_000;
const SVC = join(process.env.SVC_BENCH_ROOT ?? join(import.meta.dirname, '..'), 'dist/main.js');
const d = await benchDaemon();
try {
  const { body, headers } = signedAlert(d.dir, d.secret);
  await fillDeadLetters(join(d.home, 'svc.db'), LETTERS, body);
  await d.start();
  const quiet = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 25, connections: 4 });
  const busy = runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 25, connections: 4 });
  await new Promise((r) => setTimeout(r, 1000));
  const started = performance.now();
  const replay = await promisify(execFile)(process.execPath, [SVC, 'dlq', 'replay', '--all', '--json'], { env: d.env, maxBuffer: 64 * 1024 * 1024 })
    .then((r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }), (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
  const replayMs = performance.now() - started;
  const during = await busy;
  let replayed: unknown = null;
  try {
    replayed = (JSON.parse(replay.stdout) as { replayedCount?: number; replayed?: unknown[] }).replayedCount
      ?? (JSON.parse(replay.stdout) as { replayed: unknown[] }).replayed.length;
  } catch { /* not JSON: see stderr */ }
  const result = { bench: 'dlq-replay', letters: LETTERS, replayExit: replay.code, replayed, replayStderr: replay.stderr.trim().slice(0, 200),
    replayMs: Math.round(replayMs), quietP99Ms: r3(quiet.p99Ms), busyP99Ms: r3(during.p99Ms), p99Ratio: r3(during.p99Ms / quiet.p99Ms),
    quietMaxMs: r3(quiet.maxMs), busyMaxMs: r3(during.maxMs), quietRps: Math.round(quiet.rps), busyRps: Math.round(during.rps),
    ingestErrors: quiet.errors + during.errors };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`dlq-replay: ingest p99 ${result.busyP99Ms} ms during a replay of ${LETTERS} letters (${result.replayMs} ms, exit ${replay.code}) `
    + `vs ${result.quietP99Ms} ms without = ${result.p99Ratio}×; max ${result.busyMaxMs} vs ${result.quietMaxMs} ms\n`);
} finally {
  await d.stop();
  d.cleanup();
}
