/**
 * A report at 100,000 pages (contract §23.2: "at 100,000 pages an answer in under 2 s"; issue 37: the
 * console view in under 500 ms). A real daemon (the built CLI) whose store holds N pages opened over
 * the last 29 days — each opened, then (by turns) acknowledged and resolved, escalated to bob first, or
 * resolved by its source within two minutes — written through the store's own `applyPagePlan` from
 * the pure planner, in time order, planned as they are written (lib/report-seed.ts), so the audit
 * rows are exactly what the engine commits (≈12 a page: page.opened, page.notified on two channels,
 * ack and resolve with their notices). Nothing is left open or queued: the daemon has no work of its
 * own while it is measured.
 *
 * Same run, rounds taking turns: `svc report --json` against `svc pages --limit 1` (both the built
 * CLI, process start included), and `GET /report` and `GET /ui/reports` against `GET /pages?limit=1`
 * (one request each, from this process; a single request at a time, so the client is not the bottleneck).
 *
 * Then the first report after a restart (report-cache.ts's checkpoint): the daemon stopped (its
 * shutdown waits for a checkpoint under way), the checkpoint read from the stopped store, started
 * again; the first `svc report --json` after `svc pages --limit 1`; stopped and started once more, the
 * first `GET /ui/reports` after `GET /pages?limit=1`. The daemon's resident memory with the facts
 * kept (after the warm rounds; after the first report of the restart) and with none (right after a
 * start, before its warm-up at FACTS_WARM_AFTER_MS). Last, started once more, a report asked 10 s after that warm-up.
 *
 *   npm run build && node --import tsx bench/report.ts [pages=100000] [sqlite|postgres] [rounds=7]
 */
import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Report } from '../src/report/report.js';
import type { PgCluster } from '../test/support/postgres.js';
import { startPgCluster } from '../test/support/postgres.js';
import { r3 } from './lib/daemon.js';
import type { OncallBenchDaemon } from './lib/oncall.js';
import { oncallDaemon, storeOf } from './lib/oncall.js';
import { FACTS_WARM_AFTER_MS } from '../src/report/facts-warmer.js';
import { seedReportPages } from './lib/report-seed.js';

const PAGES = Number(process.argv[2] ?? 100_000);
const STORE = process.argv[3] ?? 'sqlite';
const ROUNDS = Number(process.argv[4] ?? 7);
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`the store is sqlite or postgres, not ${STORE}`);
const SVC = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const note = (line: string): void => { process.stderr.write(`report: ${line}\n`); };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function timeCli(d: OncallBenchDaemon, args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const out = execFileSync(process.execPath, [SVC, ...args], { env: d.env, cwd: d.dir, maxBuffer: 1 << 26 }).toString();
  return { ms: performance.now() - t0, out };
}

/**
 * One GET on a connection of its own: a kept-alive one may be closed by the daemon (Node's 5 s idle
 * timeout) just as the next round, ≈5 s of CLI later, sends on it ("other side closed").
 */
function timeGet(url: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => { bytes += chunk.length; });
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const mb = (bytes: number): number => Math.round(bytes / 1048576);

/** The stored checkpoint of the stopped daemon: its pages and the seq they are folded through. */
async function checkpointOf(d: OncallBenchDaemon): Promise<{ pages: number; seq: number | null }> {
  const store = await storeOf(d);
  try {
    let pages = 0;
    const mark = await store.oncall.reportFacts.load((text) => { pages += text === '' ? 0 : text.split('\n').length; });
    return { pages, seq: mark?.seq ?? null };
  } finally {
    await store.close();
  }
}

/** The first report after a restart, from the checkpoint the daemon saved (see the header). */
async function firstAfterRestart(d: OncallBenchDaemon): Promise<Record<string, unknown> & { reportCliMs: number; pagesCliMs: number;
  reportCliRatio: number; uiMs: number; pagesHttpMs: number; checkpointPages: number; checkpointSeq: number | null;
  rssMb: { keptAfterRounds: number; noneAfterStart: number; keptAfterRestart: number } }> {
  const keptAfterRounds = d.rss();
  await d.stop();
  const checkpoint = await checkpointOf(d);
  if (checkpoint.pages < PAGES) throw new Error(`the checkpoint holds ${checkpoint.pages} pages, not ${PAGES}`);
  await d.start();
  const noneAfterStart = d.rss();
  const pagesCli = timeCli(d, ['pages', '--limit', '1', '--json']).ms;
  const cli = timeCli(d, ['report', '--json']);
  if ((JSON.parse(cli.out) as Report).totals.pages !== PAGES) throw new Error('the first report after the restart counted another number of pages');
  const keptAfterRestart = d.rss();
  await d.stop();
  await d.start();
  const pagesHttp = await timeGet(`${d.cp}/pages?limit=1`);
  const ui = await timeGet(`${d.cp}/ui/reports`);
  if (ui.status !== 200 || pagesHttp.status !== 200) throw new Error(`HTTP ${ui.status} / ${pagesHttp.status}`);
  // Once the daemon's own warm-up (FACTS_WARM_AFTER_MS after the start) has loaded the checkpoint: what a report a little later finds.
  await d.stop();
  await d.start();
  await new Promise((r) => setTimeout(r, FACTS_WARM_AFTER_MS + 10_000));
  const afterWarmUp = timeCli(d, ['report', '--json']).ms;
  const uiAfterWarmUp = (await timeGet(`${d.cp}/ui/reports`)).ms;
  note(`after the warm-up: svc report --json ${Math.round(afterWarmUp)} ms; /ui/reports ${Math.round(uiAfterWarmUp)} ms`);
  note(`after a restart: svc report --json ${Math.round(cli.ms)} ms (svc pages --limit 1 ${Math.round(pagesCli)} ms); /ui/reports ${Math.round(ui.ms)} ms `
    + `(GET /pages?limit=1 ${Math.round(pagesHttp.ms)} ms)`);
  return { reportCliMs: Math.round(cli.ms), pagesCliMs: Math.round(pagesCli), reportCliRatio: r3(cli.ms / pagesCli), uiMs: Math.round(ui.ms),
    pagesHttpMs: Math.round(pagesHttp.ms), afterWarmUp: { reportCliMs: Math.round(afterWarmUp), uiMs: Math.round(uiAfterWarmUp) },
    checkpointPages: checkpoint.pages, checkpointSeq: checkpoint.seq,
    rssMb: { keptAfterRounds: mb(keptAfterRounds), noneAfterStart: mb(noneAfterStart), keptAfterRestart: mb(keptAfterRestart) } };
}

let cluster: PgCluster | null = null;
const dbUrl = STORE === 'postgres' ? await (cluster = await startPgCluster({ durable: true })).createDatabase('report') : undefined;
const d = await oncallDaemon({ oncall: { firstAfter: '5m', secondAfter: '1h' }, slackApi: 'http://127.0.0.1:9', ...(dbUrl === undefined ? {} : { dbUrl }) });
try {
  const planCount = await seedReportPages(d, PAGES, Date.now(), note);
  await d.start();
  // The control plane verifies the chain once when it starts (the story's watermark): wait that out.
  await fetch(`${d.cp}/audit?verify=1&limit=1`);
  const load = [loadavg()[0] ?? 0];
  const rounds: Array<{ reportCli: number; pagesCli: number; reportHttp: number; ui: number; pagesHttp: number }> = [];
  let report: Report | null = null;
  for (let i = 0; i < ROUNDS; i++) {
    const pagesCli = timeCli(d, ['pages', '--limit', '1', '--json']).ms;
    const cli = timeCli(d, ['report', '--json']);
    report = JSON.parse(cli.out) as Report;
    const pagesHttp = await timeGet(`${d.cp}/pages?limit=1`);
    const reportHttp = await timeGet(`${d.cp}/report`);
    const ui = await timeGet(`${d.cp}/ui/reports`);
    if (ui.status !== 200 || reportHttp.status !== 200 || pagesHttp.status !== 200) throw new Error(`HTTP ${ui.status} / ${reportHttp.status} / ${pagesHttp.status}`);
    rounds.push({ reportCli: cli.ms, pagesCli, reportHttp: reportHttp.ms, ui: ui.ms, pagesHttp: pagesHttp.ms });
    note(`round ${i + 1}: svc report --json ${Math.round(cli.ms)} ms (svc pages --limit 1 ${Math.round(pagesCli)} ms); GET /report ${Math.round(reportHttp.ms)} ms; /ui/reports ${Math.round(ui.ms)} ms `
      + `(${ui.bytes} B; GET /pages?limit=1 ${Math.round(pagesHttp.ms)} ms)`);
  }
  load.push(loadavg()[0] ?? 0);
  const restart = await firstAfterRestart(d);
  load.push(loadavg()[0] ?? 0);
  const m = (k: keyof (typeof rounds)[number]): number => median(rounds.map((r) => r[k]));
  const result = {
    store: STORE, pages: PAGES, plans: planCount, reportedPages: report?.totals.pages, interruptions: report?.totals.interruptions.total,
    reportCliMs: Math.round(m('reportCli')), pagesCliMs: Math.round(m('pagesCli')), reportCliRatio: r3(m('reportCli') / m('pagesCli')),
    reportHttpMs: Math.round(m('reportHttp')), uiMs: Math.round(m('ui')), pagesHttpMs: Math.round(m('pagesHttp')), uiRatio: r3(m('ui') / m('pagesHttp')),
    rounds: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]))), restart, load: load.map(r3),
  };
  if (report?.totals.pages !== PAGES) throw new Error(`the report counted ${report?.totals.pages} pages, not ${PAGES}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`report (${STORE}, ${PAGES} pages): svc report --json ${result.reportCliMs} ms median (target < 2000), ${result.reportCliRatio}× svc pages --limit 1 `
    + `(${result.pagesCliMs} ms); GET /report ${result.reportHttpMs} ms; /ui/reports ${result.uiMs} ms (target < 500), ${result.uiRatio}× GET /pages?limit=1 (${result.pagesHttpMs} ms); `
    + `load average ${result.load.join(' → ')}\n`);
  process.stdout.write(`report (${STORE}, ${PAGES} pages), the first after a restart: svc report --json ${restart.reportCliMs} ms (target < 2000), `
    + `${restart.reportCliRatio}× svc pages --limit 1 (${restart.pagesCliMs} ms); /ui/reports ${restart.uiMs} ms (target < 500), GET /pages?limit=1 `
    + `${restart.pagesHttpMs} ms; checkpoint ${restart.checkpointPages} pages through seq ${restart.checkpointSeq}; RSS ${restart.rssMb.keptAfterRounds} MB kept `
    + `after the rounds, ${restart.rssMb.noneAfterStart} MB right after a start, ${restart.rssMb.keptAfterRestart} MB after the first report\n`);
} finally {
  await d.stop();
  d.cleanup();
  cluster?.close();
}
