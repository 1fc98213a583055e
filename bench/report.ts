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
import { oncallDaemon } from './lib/oncall.js';
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
  const m = (k: keyof (typeof rounds)[number]): number => median(rounds.map((r) => r[k]));
  const result = {
    store: STORE, pages: PAGES, plans: planCount, reportedPages: report?.totals.pages, interruptions: report?.totals.interruptions.total,
    reportCliMs: Math.round(m('reportCli')), pagesCliMs: Math.round(m('pagesCli')), reportCliRatio: r3(m('reportCli') / m('pagesCli')),
    reportHttpMs: Math.round(m('reportHttp')), uiMs: Math.round(m('ui')), pagesHttpMs: Math.round(m('pagesHttp')), uiRatio: r3(m('ui') / m('pagesHttp')),
    rounds: rounds.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v)]))), load: load.map(r3),
  };
  if (report?.totals.pages !== PAGES) throw new Error(`the report counted ${report?.totals.pages} pages, not ${PAGES}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`report (${STORE}, ${PAGES} pages): svc report --json ${result.reportCliMs} ms median (target < 2000), ${result.reportCliRatio}× svc pages --limit 1 `
    + `(${result.pagesCliMs} ms); GET /report ${result.reportHttpMs} ms; /ui/reports ${result.uiMs} ms (target < 500), ${result.uiRatio}× GET /pages?limit=1 (${result.pagesHttpMs} ms); `
    + `load average ${result.load.join(' → ')}\n`);
} finally {
  await d.stop();
  d.cleanup();
  cluster?.close();
}
