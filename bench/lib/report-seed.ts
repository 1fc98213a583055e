/**
 * The report bench's pages (bench/report.ts): N pages opened over the last 29 days, each opened, then
 * (by turns) acknowledged and resolved, escalated to bob first, or resolved by its source within two
 * minutes — planned by the pure planner and written through the store's own `applyPagePlan`, in time
 * order. Planned as it is written: a page's steps end ≤ 2 h after it opened, so only the pages of the
 * last ≈2 h wait in a heap, never all ≈3.1 N plans (at 100,000 pages those did not fit this host's
 * minutes). The order is what sorting all of them by time did (ties: page order, then step order).
 */
import { performance } from 'node:perf_hooks';
import { loadOncall } from '../../src/oncall/load-oncall.js';
import type { PagePlan, PageRecord } from '../../src/oncall/page.js';
import { CHANNEL_TARGET } from '../../src/oncall/page.js';
import type { Actor, ResolveTargets } from '../../src/oncall/page-plan.js';
import { planAck, planOpen, planResolve, planTimer } from '../../src/oncall/page-plan.js';
import { policySha256 } from '../../src/oncall/policy-hash.js';
import type { StatusRoute } from '../../src/oncall/status-updates.js';
import { resolveAllTargets } from '../../src/oncall/targets.js';
import { r3 } from './daemon.js';
import type { OncallBenchDaemon } from './oncall.js';
import { AGENT, storeOf } from './oncall.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const ALERTS = 50;
/** Plans in flight at once: the store's writer commits what waits in one transaction (group commit). */
const IN_FLIGHT = 500;
/** A progress line on stderr every this many plans. */
const PROGRESS_EVERY = 20_000;

export interface Step { atMs: number; pageId: string; plan: PagePlan }
interface Queued extends Step { seq: number }

/** A page's steps in its own order: opened; then acked and resolved, escalated first, or resolved by its source. */
export function pagePlanner(d: OncallBenchDaemon, pages: number, nowMs: number): (n: number) => Step[] {
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
  const start = nowMs - 29 * DAY;
  return (n) => {
    const at = openedAt(start, n, pages);
    // A long tail of alert names: the first few make most of the noise.
    const alertname = `Alert${Math.floor(ALERTS * (n % 997 / 997) ** 3)}`;
    const opened = planOpen({ pageId: `pbench${n.toString(36).padStart(8, '0')}`, agentId: AGENT, incidentKey: `bench/${n}`, policy, policySha256: sha,
      nowMs: at, resolve, event: { id: `bench-event-${n}`, title: `bench page ${n}`, severity: 'P1', alertname } });
    const steps: Step[] = [];
    const add = (atMs: number, plan: PagePlan): PageRecord => {
      steps.push({ atMs, pageId: opened.page.id, plan: { ...plan, notifications: [] } });
      return plan.page;
    };
    let page = add(at, opened);
    const kind = n % 10;
    if (kind === 0) {
      add(at + MIN + (n % 60) * 1000, must(planResolve(page, source, null, null, at + MIN + (n % 60) * 1000)));
      return steps;
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
    return steps;
  };
}

const openedAt = (start: number, n: number, pages: number): number => start + Math.floor((n / pages) * 29 * DAY);

/**
 * Every page's steps in time order, planned as they are taken. Pages open in page order and no step
 * is before its page opened, so once page n is planned, what waits before page n + 1's opening time
 * comes before anything not yet planned: the same order as a stable sort of all of them by time.
 */
export function* stepsInTimeOrder(planPage: (n: number) => Step[], pages: number, nowMs: number): Generator<Step> {
  const heap: Queued[] = [];
  const start = nowMs - 29 * DAY;
  let seq = 0;
  for (let n = 0; n < pages; n++) {
    for (const s of planPage(n)) push(heap, { ...s, seq: seq++ });
    const next = n + 1 < pages ? openedAt(start, n + 1, pages) : Infinity;
    while (heap.length > 0 && (heap[0] as Queued).atMs <= next) yield pop(heap);
  }
}

/** Writes every step in time order, a page's next step only once its last has committed; returns the plans written. */
export async function seedReportPages(d: OncallBenchDaemon, pages: number, nowMs: number, note: (line: string) => void): Promise<number> {
  const store = await storeOf(d);
  const t0 = performance.now();
  let written = 0;
  try {
    const last = new Map<string, Promise<unknown>>();
    const inFlight = new Set<Promise<unknown>>();
    for (const s of stepsInTimeOrder(pagePlanner(d, pages, nowMs), pages, nowMs)) {
      while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
      const before = last.get(s.pageId) ?? Promise.resolve();
      const p = before.then(async () => {
        const r = await store.oncall.applyPagePlan(s.plan, s.atMs);
        if (!r.ok) throw new Error(`a fixture plan did not commit: ${s.pageId}`);
        written += 1;
        if (written % PROGRESS_EVERY === 0) {
          const secs = (performance.now() - t0) / 1000;
          note(`${written} plans written in ${Math.round(secs)} s (${Math.round(written / secs)} plans/s)`);
        }
      });
      last.set(s.pageId, p);
      inFlight.add(p);
      // The last step of a page may be forgotten once it committed: the map holds only pages in flight.
      void p.finally(() => { inFlight.delete(p); if (last.get(s.pageId) === p) last.delete(s.pageId); });
    }
    await Promise.all(inFlight);
  } finally {
    await store.close();
  }
  const secs = (performance.now() - t0) / 1000;
  note(`${pages} pages, ${written} plans written in ${r3(secs)} s (${Math.round(written / secs)} plans/s, ${Math.round(pages / secs)} pages/s)`);
  return written;
}

/** A binary min-heap on (time, planning order). */
const before = (a: Queued, b: Queued): boolean => a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);

function push(heap: Queued[], x: Queued): void {
  heap.push(x);
  for (let i = heap.length - 1; i > 0;) {
    const up = (i - 1) >> 1;
    if (!before(heap[i] as Queued, heap[up] as Queued)) break;
    [heap[i], heap[up]] = [heap[up] as Queued, heap[i] as Queued];
    i = up;
  }
}

function pop(heap: Queued[]): Queued {
  const top = heap[0] as Queued;
  const end = heap.pop() as Queued;
  if (heap.length > 0) {
    heap[0] = end;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l] as Queued, heap[m] as Queued)) m = l;
      if (r < heap.length && before(heap[r] as Queued, heap[m] as Queued)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m] as Queued, heap[i] as Queued];
      i = m;
    }
  }
  return top;
}
