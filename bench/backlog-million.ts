/**
 * A million waiting events cost disk, not memory, and do not slow the daemon down (contract §10.1).
 * The daemon's store is filled with 1,000,000 accepted events behind a channel that answers slowly;
 * against the same daemon on an empty store: its RSS (target ≤ 256 MB), and /status and signed ingest
 * latency under load from wrk in its own process (target ≤ 1.2× of empty). The two daemons take turns,
 * round after round (empty first, then full first), so load from elsewhere on a shared host falls on
 * both; the ratios are the medians over the rounds. Beside the latencies: what the disk is asked per
 * accepted ingest (/proc/<pid>/io: bytes dirtied for writing, bytes read by syscalls) — the figure
 * that tells a store whose every insert touches a random page of a 2 GiB file from one that appends.
 *
 *   npm run build && node --import tsx bench/backlog-million.ts [events] [rounds]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchDaemon } from './lib/daemon.js';
import { benchDaemon, fillEvents, r3, signedAlert } from './lib/daemon.js';
import type { WrkResult } from './lib/wrk.js';
import { runWrk } from './lib/wrk.js';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 3);

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

interface Round { status: WrkResult; ingest: WrkResult; rssMiB: number; backlog: number; writeKiBPerIngest: number; readKiBPerIngest: number }

/** The daemon's I/O counters (its threads together). */
function io(pid: number): { writeBytes: number; rchar: number } {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { writeBytes: field('write_bytes'), rchar: field('rchar') };
}

async function measure(d: BenchDaemon): Promise<Round> {
  await d.start();
  await new Promise((r) => setTimeout(r, 3000)); // the lane fills its batch, the backlog gauge counts
  const { body, headers } = signedAlert(d.dir, d.secret);
  const status = await runWrk({ url: `${d.cp}/status`, seconds: 10, connections: 8 });
  const before = io(d.pid());
  const ingest = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: 10, connections: 8 });
  const after = io(d.pid());
  const rssMiB = Math.round(d.rss() / 1048576);
  const backlog = await d.metric('svc_dispatch_backlog');
  await d.stop();
  const per = (bytes: number): number => r3(bytes / 1024 / Math.max(1, ingest.requests));
  return { status, ingest, rssMiB, backlog, writeKiBPerIngest: per(after.writeBytes - before.writeBytes), readKiBPerIngest: per(after.rchar - before.rchar) };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const empty = await benchDaemon({ channelsYaml });
const full = await benchDaemon({ channelsYaml });
try {
  await fillEvents(full, EVENTS, 'accepted');
  const rounds: Array<{ e: Round; f: Round }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      const e = await measure(empty);
      rounds.push({ e, f: await measure(full) });
    } else {
      const f = await measure(full);
      rounds.push({ e: await measure(empty), f });
    }
  }
  const ratios = rounds.map(({ e, f }) => ({
    statusP99: r3(f.status.p99Ms / e.status.p99Ms), ingestP99: r3(f.ingest.p99Ms / e.ingest.p99Ms), ingestRps: r3(f.ingest.rps / e.ingest.rps),
    emptyIngestP99Ms: r3(e.ingest.p99Ms), fullIngestP99Ms: r3(f.ingest.p99Ms),
    emptyIngestRps: Math.round(e.ingest.rps), fullIngestRps: Math.round(f.ingest.rps),
    emptyStatusP99Ms: r3(e.status.p99Ms), fullStatusP99Ms: r3(f.status.p99Ms),
    writeKiBPerIngest: { empty: e.writeKiBPerIngest, full: f.writeKiBPerIngest }, readKiBPerIngest: { empty: e.readKiBPerIngest, full: f.readKiBPerIngest },
  }));
  const rssMiB = Math.max(...rounds.map((r) => r.f.rssMiB));
  const emptyRssMiB = Math.max(...rounds.map((r) => r.e.rssMiB));
  const result = {
    bench: 'backlog-million', events: EVENTS, rounds: ROUNDS, backlogSeen: Math.min(...rounds.map((r) => r.f.backlog)), rssMiB, emptyRssMiB, rssTargetMiB: 256,
    statusP99Ratio: r3(median(ratios.map((r) => r.statusP99))), ingestP99Ratio: r3(median(ratios.map((r) => r.ingestP99))),
    ingestRpsRatio: r3(median(ratios.map((r) => r.ingestRps))), target: 1.2,
    writeKiBPerIngest: { empty: median(ratios.map((r) => r.writeKiBPerIngest.empty)), full: median(ratios.map((r) => r.writeKiBPerIngest.full)) },
    readKiBPerIngest: { empty: median(ratios.map((r) => r.readKiBPerIngest.empty)), full: median(ratios.map((r) => r.readKiBPerIngest.full)) },
    perRound: ratios,
  };
  const pass = rssMiB <= 256 && result.statusP99Ratio <= 1.2 && result.ingestP99Ratio <= 1.2;
  process.stdout.write(`${JSON.stringify({ ...result, pass })}\n`);
  process.stdout.write(`backlog-million: ${EVENTS} waiting (gauge ${result.backlogSeen}), RSS ${rssMiB} MiB (empty ${emptyRssMiB}; target ≤ 256); `
    + `median of ${ROUNDS} rounds: /status p99 ${result.statusP99Ratio}×, ingest p99 ${result.ingestP99Ratio}× (target ≤ 1.2; per round `
    + `${ratios.map((r) => `${r.fullIngestP99Ms}/${r.emptyIngestP99Ms} ms`).join(', ')}), ingest rate ${result.ingestRpsRatio}×; `
    + `disk written per ingest ${result.writeKiBPerIngest.full} vs ${result.writeKiBPerIngest.empty} KiB, read ${result.readKiBPerIngest.full} vs ${result.readKiBPerIngest.empty} KiB\n`);
} finally {
  await empty.stop();
  await full.stop();
  empty.cleanup();
  full.cleanup();
  slow.closeAllConnections();
  slow.close();
}
