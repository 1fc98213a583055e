/**
 * A report at 100,000 pages (contract §23.2: "at 100,000 pages an answer in under 2 s"; issue 37: the
 * console view in under 500 ms). A real daemon (the built CLI) whose store holds N pages opened over
 * the last 29 days — each opened, then (by turns) acknowledged and resolved, escalated to bob first, or
 * resolved by its source within two minutes — written through the store's own `applyPagePlan` from
 * the pure planner, in time order, so the audit rows are exactly what the engine commits (≈12 a page:
 * page.opened, page.notified on two channels, ack and resolve with their notices). Nothing is left
 * open or queued: the daemon has no work of its own while it is measured.
 *
 * Same run, rounds taking turns: `svc report --json` against `svc pages --limit 1` (both the built
 * CLI, process start included), and `GET /report` and `GET /ui/reports` against `GET /pages?limit=1`
 * (one request each, from this process; a single request at a time, so the client is not the bottleneck).
 *
 *   npm run build && node --import tsx bench/report.ts [pages=100000] [sqlite|postgres] [rounds=7]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadOncall } from '../src/oncall/load-oncall.js';
import type { PagePlan, PageRecord } from '../src/oncall/page.js';
import { CHANNEL_TARGET } from '../src/oncall/page.js';
import type { Actor, ResolveTargets } from '../src/oncall/page-plan.js';
import { planAck, planOpen, planResolve, planTimer } from '../src/oncall/page-plan.js';
import type { StatusRoute } from '../src/oncall/status-updates.js';
import { policySha256 } from '../src/oncall/policy-hash.js';
import { resolveAllTargets } from '../src/oncall/targets.js';
import type { Report } from '../src/report/report.js';
import type { PgCluster } from '../test/support/postgres.js';
import { startPgCluster } from '../test/support/postgres.js';
import { r3 } from './lib/daemon.js';
import type { OncallBenchDaemon } from './lib/oncall.js';
import { AGENT, oncallDaemon, storeOf } from './lib/oncall.js';

const PAGES = Number(process.argv[2] ?? 100_000);
const STORE = process.argv[3] ?? 'sqlite';
const ROUNDS = Number(process.argv[4] ?? 7);
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`the store is sqlite or postgres, not ${STORE}`);
const SVC = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const ALERTS = 50;
/** Plans in flight at once: the writer commits them in groups. */
const IN_FLIGHT = 500;
const note = (line: string): void => { process.stderr.write(`report: ${line}\n`); };

interface Step { atMs: number; pageId: string; plan: PagePlan }

/** Every plan of every page, in time order: opened; then acked and resolved, escalated first, or resolved by its source. */
function plans(d: OncallBenchDaemon, nowMs: number): Step[] {
  const config = loadOncall({ dir: d.dir, channels: [{ id: 'oncall-dm' }, { id: 'slack-dm' }], sources: [{ id: 'alertmanager' }, { id: 'slack-actions' }] },
    { env: d.env, home: d.home, nowMs });
  const policy = config?.policies.find((p) => p.id === 'default');
  if (config === null || policy === undefined) throw new Error('the bench daemon has no oncall.yaml');
  const resolve: ResolveTargets = (targets, atMs) => {
    const r = resolveAllTargets(config, targets, atMs, []);
    const recipients = r.recipients.map((x) => ({ person: x.personId ?? CHANNEL_TARGET, channel: x.channelId, to: x.address }));
    return { nobodyOnCall: r.nobodyOnCall, recipients };
  };
  const sha = policySha256(policy);
  const alice: Actor = { actor: 'cli:alice', by: 'alice', via: 'cli' };
  const source: Actor = { actor: `agent:${AGENT}`, by: 'source', via: 'source' };
  // Slack follows the page's state; nothing here rings or lists its own status-update contacts.
  const follows: StatusRoute = { follows: (channel) => channel === 'slack-dm', rings: () => false, listed: () => null };
  const must = (r: ReturnType<typeof planAck>): PagePlan => { if (!r.ok || r.plan === null) throw new Error('not planned'); return r.plan; };
  const steps: Step[] = [];
  const start = nowMs - 29 * DAY;
  for (let n = 0; n < PAGES; n++) {
    const at = start + Math.floor((n / PAGES) * 29 * DAY);
    // A long tail of alert names: the first few make most of the noise.
    const alertname = `Alert${Math.floor(ALERTS * (n % 997 / 997) ** 3)}`;
    const opened = planOpen({ pageId: `pbench${n.toString(36).padStart(8, '0')}`, agentId: AGENT, incidentKey: `bench/${n}`, policy, policySha256: sha,
      nowMs: at, resolve, event: { id: `bench-event-${n}`, title: `bench page ${n}`, severity: 'P1', alertname } });
    const add = (atMs: number, plan: PagePlan): PageRecord => {
      steps.push({ atMs, pageId: opened.page.id, plan: { ...plan, notifications: [] } });
      return plan.page;
    };
    let page = add(at, opened);
    const kind = n % 10;
    if (kind === 0) {
      add(at + MIN + (n % 60) * 1000, must(planResolve(page, source, null, null, at + MIN + (n % 60) * 1000)));
      continue;
    }
    if (kind <= 2) {
      const timer = planTimer(page, at + 5 * MIN, resolve);
      if (timer === null) throw new Error('no timer');
      page = add(at + 5 * MIN, timer);
    }
    const ackAt = at + 5 * MIN + (n % 17) * 20_000 + (kind <= 2 ? 2 * MIN : 0);
    page = add(ackAt, must(planAck(page, alice, null, ackAt, follows)));
    const resolveAt = ackAt + (n % 113) * MIN;
    add(resolveAt, must(planResolve(page, alice, null, null, resolveAt)));
  }
  return steps.sort((a, b) => a.atMs - b.atMs);
}

/** Applies the steps in time order, a page's next step only once its last has committed. */
async function seed(d: OncallBenchDaemon, nowMs: number): Promise<number> {
  const steps = plans(d, nowMs);
  const store = await storeOf(d);
  const t0 = performance.now();
  try {
    const last = new Map<string, Promise<unknown>>();
    const inFlight = new Set<Promise<unknown>>();
    for (const [i, s] of steps.entries()) {
      while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
      const before = last.get(s.pageId) ?? Promise.resolve();
      const p = before.then(async () => {
        const r = await store.oncall.applyPagePlan(s.plan, s.atMs);
        if (!r.ok) throw new Error(`a fixture plan did not commit: ${s.pageId}`);
      });
      last.set(s.pageId, p);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
      if (i % 50_000 === 0 && i > 0) note(`${i} of ${steps.length} plans written`);
    }
    await Promise.all(inFlight);
  } finally {
    await store.close();
  }
  note(`${PAGES} pages, ${steps.length} plans written in ${r3((performance.now() - t0) / 1000)} s`);
  return steps.length;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function timeCli(d: OncallBenchDaemon, args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const out = execFileSync(process.execPath, [SVC, ...args], { env: d.env, cwd: d.dir, maxBuffer: 1 << 26 }).toString();
  return { ms: performance.now() - t0, out };
}

async function timeGet(url: string): Promise<{ ms: number; status: number; bytes: number }> {
  const t0 = performance.now();
  const r = await fetch(url);
  const body = await r.arrayBuffer();
  return { ms: performance.now() - t0, status: r.status, bytes: body.byteLength };
}

let cluster: PgCluster | null = null;
const dbUrl = STORE === 'postgres' ? await (cluster = await startPgCluster({ durable: true })).createDatabase('report') : undefined;
const d = await oncallDaemon({ oncall: { firstAfter: '5m', secondAfter: '1h' }, slackApi: 'http://127.0.0.1:9', ...(dbUrl === undefined ? {} : { dbUrl }) });
try {
  const nowMs = Date.now();
  const planCount = await seed(d, nowMs);
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
