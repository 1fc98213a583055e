/**
 * Does dispatch keep up with intake? A 30 s burst of signed alerts from wrk (its own process) into a
 * real daemon (its own process, file channel): delivered/s against accepted/s during the burst
 * (target ≥ 0.8), and how long after the burst the backlog takes to drain (target ≤ 10 s). The same
 * wrk against a bare POST server in the same run shows the generator's ceiling.
 *
 *   npm run build && node --import tsx bench/dispatch-burst.ts [seconds]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bareServer, benchDaemon, r3, signedAlert } from './lib/daemon.js';
import { runWrk } from './lib/wrk.js';

const SECONDS = Number(process.argv[2] ?? 30);
const CONNECTIONS = 32;
const lines = (path: string): number => {
  try {
    return readFileSync(path, 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
};

const d = await benchDaemon();
try {
  const { body, headers } = signedAlert(d.dir, d.secret);
  const bare = await bareServer('post');
  const ceiling = await runWrk({ url: `${bare.url}/webhooks/alertmanager`, method: 'POST', body, headers, seconds: 5, connections: CONNECTIONS });
  await bare.stop();

  await d.start();
  const out = join(d.dir, 'out', 'oncall-dm.jsonl');
  const burst = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: SECONDS, connections: CONNECTIONS });
  const deliveredInBurst = lines(out);
  const accepted = burst.requests - burst.errors;
  const burstEnd = performance.now();
  let drainedMs = -1;
  while (performance.now() - burstEnd < 120_000) {
    if (lines(out) >= accepted && (await d.metric('svc_dispatch_backlog')) === 0) {
      drainedMs = performance.now() - burstEnd;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const peakRss = d.rss();
  await d.stop();
  const result = {
    bench: 'dispatch-burst', seconds: SECONDS, connections: CONNECTIONS,
    acceptedPerS: Math.round(accepted / burst.seconds), deliveredPerS: Math.round(deliveredInBurst / burst.seconds),
    ratio: r3(deliveredInBurst / accepted), target: 0.8, drainedAfterS: r3(drainedMs / 1000), drainTargetS: 10,
    ingestP99Ms: r3(burst.p99Ms), errors: burst.errors, generatorCeilingPerS: Math.round(ceiling.rps),
    generatorHeadroom: r3(ceiling.rps / (accepted / burst.seconds)), rssMiB: Math.round(peakRss / 1048576),
    pass: deliveredInBurst / accepted >= 0.8 && drainedMs >= 0 && drainedMs <= 10_000,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`dispatch-burst: accepted ${result.acceptedPerS}/s, delivered ${result.deliveredPerS}/s during a ${SECONDS} s burst `
    + `= ${result.ratio} (target ≥ 0.8); backlog drained ${result.drainedAfterS} s after (target ≤ 10); ingest p99 ${result.ingestP99Ms} ms; `
    + `wrk reaches ${result.generatorCeilingPerS}/s against a bare POST server (${result.generatorHeadroom}× the accepted rate)\n`);
} finally {
  await d.stop();
  d.cleanup();
}
