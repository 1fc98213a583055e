/**
 * Do escalation timers fire on time with 10,000 pages open (contract §17.4, issue 21)? A real daemon
 * (SQLite, file channel) holds N open pages; 100 of them a second come due over a window of 60 s,
 * the rest wait an hour. Timer lag (due → fired) is read two ways: the daemon's
 * `svc_page_timer_lag_seconds` histogram (due → claimed; bucket bounds) and, exactly, each
 * `page.escalated` audit row's commit time minus its page's due time. The same daemon with 10 pages
 * (one due every 6 s) is the baseline, same run. During each window wrk (its own process) probes
 * `/status` and signed ingest for 15 s each; their p99s are compared the same way.
 *
 * With `postgres` as the third argument both daemons keep their store in a throwaway PostgreSQL
 * cluster (test/support/postgres.ts, durable settings), one database each.
 *
 *   npm run build && node --import tsx bench/oncall-timers.ts [pages=10000] [windowSeconds=60] [sqlite|postgres]
 *   BENCH_PROBE_CONNECTIONS=1 …   # the probes' wrk connections (default 4: the daemon's main thread saturated by /status)
 */
import { r3, signedAlert } from './lib/daemon.js';
import type { PgCluster } from '../test/support/postgres.js';
import { startPgCluster } from '../test/support/postgres.js';
import { auditRowsOf, pageWriter, histogramQuantiles, oncallDaemon, percentile } from './lib/oncall.js';
import type { WrkResult } from './lib/wrk.js';
import { runWrk } from './lib/wrk.js';

const PAGES = Number(process.argv[2] ?? 10_000);
const WINDOW_S = Number(process.argv[3] ?? 60);
const STORE = process.argv[4] ?? 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`the store is sqlite or postgres, not ${STORE}`);
const cluster: PgCluster | null = STORE === 'postgres' ? await startPgCluster({ durable: true }) : null;
let databases = 0;
const PER_SECOND = 100;
const PROBE_S = 15;
const PROBE_CONNECTIONS = Number(process.env.BENCH_PROBE_CONNECTIONS ?? 4);
const note = (line: string): void => { process.stderr.write(`oncall-timers: ${line}\n`); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface RunResult {
  pages: number; due: number; fired: number; lateStartMs: number;
  lagP50Ms: number; lagP99Ms: number; lagMaxMs: number;
  histogram: { count: number; p50: number; p99: number };
  status: WrkResult; ingest: WrkResult; fillSeconds: number;
  /** Timers that fired more than 1 s late: when each was due (seconds into the window) and how late, at most 20. */
  late: Array<{ dueS: number; lagMs: number; pageId: string }>;
}

async function run(pages: number, due: number, spacingMs: number): Promise<RunResult> {
  const dbUrl = cluster === null ? undefined : await cluster.createDatabase(`timers_${++databases}`);
  const d = await oncallDaemon({ oncall: { firstAfter: '1h', secondAfter: '1h' }, ...(dbUrl === undefined ? {} : { dbUrl }) });
  try {
    // The waiting pages first: their rate sets how far ahead the window must start.
    const writer = await pageWriter(d);
    const t0 = Date.now();
    await writer.open(Array.from({ length: pages - due }, () => Date.now() + 7_200_000));
    const perPage = pages - due >= 100 ? (Date.now() - t0) / (pages - due) : 5;
    const windowStart = Date.now() + Math.ceil(perPage * due * 1.5) + 15_000;
    const dueAt = Array.from({ length: due }, (_, i) => windowStart + i * spacingMs);
    const ids = await writer.open(dueAt);
    await writer.close();
    const fillSeconds = (Date.now() - t0) / 1000;
    note(`${pages} pages written in ${r3(fillSeconds)} s; the window starts in ${Math.round((windowStart - Date.now()) / 1000)} s`);
    const dueOf = new Map(ids.map((id, i) => [id, dueAt[i] ?? 0]));
    await d.start();
    const lateStartMs = Math.max(0, Date.now() - windowStart);
    note(`daemon up; probing /status and ingest during the window`);
    await sleep(Math.max(0, windowStart - Date.now()) + 5_000);
    const at = (): number => r3((Date.now() - windowStart) / 1000);
    note(`/status probe from ${at()} s into the window`);
    const status = await runWrk({ url: `${d.cp}/status`, seconds: PROBE_S, connections: PROBE_CONNECTIONS });
    await sleep(2_000);
    const { body, headers } = signedAlert(d.dir, d.secret);
    note(`ingest probe from ${at()} s`);
    const ingest = await runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds: PROBE_S, connections: PROBE_CONNECTIONS });
    note(`probes over at ${at()} s`);
    // Until the window's last timer is due, and 10 s for the late ones.
    await sleep(Math.max(0, windowStart + WINDOW_S * 1000 - Date.now()) + 10_000);
    const histogram = histogramQuantiles(await (await fetch(`${d.cp}/metrics`)).text(), 'svc_page_timer_lag_seconds');
    await d.stop();
    const fired = (await auditRowsOf(d, 'page.escalated')).filter((r) => r.pageId !== null && dueOf.has(r.pageId))
      .map((r) => ({ pageId: r.pageId as string, dueMs: dueOf.get(r.pageId as string) ?? 0, lagMs: r.tsMs - (dueOf.get(r.pageId as string) ?? 0) }));
    const lags = fired.map((f) => f.lagMs);
    const late = fired.filter((f) => f.lagMs > 1000).slice(0, 20).map((f) => ({ dueS: r3((f.dueMs - windowStart) / 1000), lagMs: f.lagMs, pageId: f.pageId }));
    if (late.length > 0) note(`${fired.filter((f) => f.lagMs > 1000).length} timers fired > 1 s late; the first: ${JSON.stringify(late)}`);
    return { pages, due, fired: lags.length, lateStartMs, lagP50Ms: percentile(lags, 50), lagP99Ms: percentile(lags, 99),
      lagMaxMs: Math.max(...lags), histogram, status, ingest, fillSeconds: r3(fillSeconds), late };
  } finally {
    await d.stop();
    d.cleanup();
  }
}

let baseline: RunResult;
let loaded: RunResult;
try {
  baseline = await run(10, 10, (WINDOW_S * 1000) / 10);
  loaded = await run(PAGES, Math.min(PAGES, PER_SECOND * WINDOW_S), 1000 / PER_SECOND);
} finally {
  cluster?.close();
}
const ratio = (a: number, b: number): number => r3(a / Math.max(b, 1e-9));
const result = {
  bench: 'oncall-timers', store: STORE, pages: PAGES, windowSeconds: WINDOW_S, duePerSecond: PER_SECOND,
  loaded: { due: loaded.due, fired: loaded.fired, lagP50Ms: loaded.lagP50Ms, lagP99Ms: loaded.lagP99Ms, lagMaxMs: loaded.lagMaxMs,
    histogramP50S: loaded.histogram.p50, histogramP99S: loaded.histogram.p99, statusP99Ms: r3(loaded.status.p99Ms), ingestP99Ms: r3(loaded.ingest.p99Ms),
    ingestPerS: Math.round(loaded.ingest.rps), lateStartMs: loaded.lateStartMs, fillSeconds: loaded.fillSeconds },
  baseline: { due: baseline.due, fired: baseline.fired, lagP50Ms: baseline.lagP50Ms, lagP99Ms: baseline.lagP99Ms,
    histogramP50S: baseline.histogram.p50, histogramP99S: baseline.histogram.p99, statusP99Ms: r3(baseline.status.p99Ms),
    ingestP99Ms: r3(baseline.ingest.p99Ms), ingestPerS: Math.round(baseline.ingest.rps) },
  lagP50Ratio: ratio(loaded.lagP50Ms, baseline.lagP50Ms), lagP99Ratio: ratio(loaded.lagP99Ms, baseline.lagP99Ms),
  statusP99Ratio: ratio(loaded.status.p99Ms, baseline.status.p99Ms), ingestP99Ratio: ratio(loaded.ingest.p99Ms, baseline.ingest.p99Ms),
  targets: { lagP99S: 1, statusP99Ratio: 1.1, ingestP99Ratio: 1.1 },
  errors: loaded.status.errors + loaded.ingest.errors + baseline.status.errors + baseline.ingest.errors,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.stdout.write(`oncall-timers (${STORE}): ${PAGES} open pages, ${loaded.due} due at ${PER_SECOND}/s: ${loaded.fired} fired, lag p50/p99 `
  + `${loaded.lagP50Ms}/${loaded.lagP99Ms} ms (histogram ≤ ${loaded.histogram.p50}/${loaded.histogram.p99} s; target p99 ≤ 1 s) vs 10 pages `
  + `${baseline.lagP50Ms}/${baseline.lagP99Ms} ms = ${result.lagP50Ratio}×/${result.lagP99Ratio}×; /status p99 ${result.statusP99Ratio}× and ingest p99 `
  + `${result.ingestP99Ratio}× of the 10-page daemon (target ≤ 1.1); window started ${loaded.lateStartMs} ms late\n`);
if (loaded.fired < loaded.due || baseline.fired < baseline.due) process.exitCode = 1;
