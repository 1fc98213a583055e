/**
 * A million waiting events cost disk, not memory, and do not slow the daemon down (contract §10.1).
 * The daemon's store is filled with 1,000,000 accepted events behind a channel that answers slowly;
 * against the same daemon on an empty store: its RSS (target ≤ 256 MB), and /status and signed ingest
 * latency under load from wrk in its own process (target ≤ 1.2× of empty).
 *
 *   npm run build && node --import tsx bench/backlog-million.ts [events]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchDaemon } from './lib/daemon.js';
import { benchDaemon, fillEvents, r3, signedAlert } from './lib/daemon.js';
import type { WrkResult } from './lib/wrk.js';
import { runWrk } from './lib/wrk.js';

const EVENTS = Number(process.argv[2] ?? 1_000_000);

/** A receiver that holds every delivery for 10 s, then answers 503: the backlog never shrinks much. */
const slow = createServer((req, res) => {
  req.resume();
  setTimeout(() => { res.writeHead(503); res.end(); }, 10_000);
});
await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
const channelsYaml = `channels:
  - id: oncall-hook
    type: webhook
    direction: outbound
    url: http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook
    timeoutMs: 20000
    maxAttempts: 20
`;

async function measure(d: BenchDaemon): Promise<{ status: WrkResult; ingest: WrkResult; rssMiB: number; backlog: number }> {
  await d.start();
  await new Promise((r) => setTimeout(r, 3000)); // the lane fills its batch, the backlog gauge counts
  const { body, headers } = signedAlert(d.dir, d.secret);
  const status = await runWrk({ url: `${d.cp}/status`, seconds: 10, connections: 8 });
  const ingest = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 10, connections: 8 });
  const rssMiB = Math.round(d.rss() / 1048576);
  const backlog = await d.metric('svc_dispatch_backlog');
  await d.stop();
  return { status, ingest, rssMiB, backlog };
}

const empty = await benchDaemon({ channelsYaml });
const full = await benchDaemon({ channelsYaml });
try {
  const e = await measure(empty);
  await fillEvents(full, EVENTS, 'accepted');
  const f = await measure(full);
  const result = {
    bench: 'backlog-million', events: EVENTS, backlogSeen: f.backlog, rssMiB: f.rssMiB, emptyRssMiB: e.rssMiB, rssTargetMiB: 256,
    statusP99Ratio: r3(f.status.p99Ms / e.status.p99Ms), statusRpsRatio: r3(e.status.rps / f.status.rps),
    ingestP99Ratio: r3(f.ingest.p99Ms / e.ingest.p99Ms), ingestRpsRatio: r3(e.ingest.rps / f.ingest.rps), target: 1.2,
    status: { emptyP99Ms: r3(e.status.p99Ms), fullP99Ms: r3(f.status.p99Ms), emptyRps: Math.round(e.status.rps), fullRps: Math.round(f.status.rps) },
    ingest: { emptyP99Ms: r3(e.ingest.p99Ms), fullP99Ms: r3(f.ingest.p99Ms), emptyRps: Math.round(e.ingest.rps), fullRps: Math.round(f.ingest.rps) },
  };
  const pass = f.rssMiB <= 256 && result.statusP99Ratio <= 1.2 && result.ingestP99Ratio <= 1.2;
  process.stdout.write(`${JSON.stringify({ ...result, pass })}\n`);
  process.stdout.write(`backlog-million: ${EVENTS} waiting (gauge ${f.backlog}), RSS ${f.rssMiB} MiB (empty ${e.rssMiB}; target ≤ 256); `
    + `/status p99 ${result.status.fullP99Ms} vs ${result.status.emptyP99Ms} ms = ${result.statusP99Ratio}×, `
    + `ingest p99 ${result.ingest.fullP99Ms} vs ${result.ingest.emptyP99Ms} ms = ${result.ingestP99Ratio}× (target ≤ 1.2)\n`);
} finally {
  await empty.stop();
  await full.stop();
  empty.cleanup();
  full.cleanup();
  slow.closeAllConnections();
  slow.close();
}
