/**
 * GET /status of a real daemon (its own process: Host check, routing, the live snapshot, JSON headers)
 * against a bare `node:http` server in its own process answering the same document, both driven by
 * wrk (target ≥ 0.6).
 *
 *   npm run build && node --import tsx bench/status.ts
 */
import { bareServer, benchDaemon, r3 } from './lib/daemon.js';
import { compareRates } from './lib/compare.js';

const d = await benchDaemon();
try {
  await d.start();
  const doc = await (await fetch(`${d.cp}/status`)).text();
  const bare = await bareServer('json', doc);
  const c = await compareRates({ url: `${d.cp}/status`, seconds: 5, connections: 32 }, { url: `${bare.url}/status`, seconds: 5, connections: 32 });
  await bare.stop();
  const result = { bench: 'status', bytes: Buffer.byteLength(doc), svcRps: Math.round(c.svc.rps), bareRps: Math.round(c.bare.rps),
    ratio: r3(c.ratio), target: 0.6, svcP99Ms: r3(c.svc.p99Ms), bareP99Ms: r3(c.bare.p99Ms), pass: c.ratio >= 0.6 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`status: /status ${result.svcRps} req/s vs bare node:http ${result.bareRps} req/s = ${result.ratio} (target ≥ 0.6); `
    + `p99 ${result.svcP99Ms} vs ${result.bareP99Ms} ms\n`);
} finally {
  await d.stop();
  d.cleanup();
}
