/**
 * A batch of page plans and a notification claim take their pages' row locks in one order, id order
 * (page-writes.ts `lookupPages` FOR UPDATE, oncall.ts `claimNotifications` FOR SHARE): many pages to a
 * transaction on both sides, so in any other order the two could each hold a page the other waits
 * for. A third connection, the blocker, holds one page FOR SHARE to stop the batch at a known step:
 *
 * - blocker on the lower id p1: the batch waits on p1 holding nothing, and the claim (FOR SHARE p1
 *   beside the blocker, then p2) answers at once. A batch that locked p2 first would make the claim
 *   wait for it, and both would wait in a circle once the blocker lets go.
 * - blocker on the higher id p2: the batch holds p1 and waits on p2; the claim waits on p1 holding
 *   nothing and, once the batch commits, reads the acknowledgements and cancels both escalations. A
 *   claim that took p2 first (beside the blocker) would hold it while waiting on p1: a deadlock.
 *
 * Each step waits until the server shows the transaction waiting on its lock (pg_stat_activity,
 * pg_blocking_pids); nothing sleeps. A deadlock would be found in 100 ms (deadlock_timeout).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { PgCluster } from '../../../test/support/postgres.js';
import { startPgCluster } from '../../../test/support/postgres.js';
import { openPlan } from '../../../test/support/oncall-store-contract.js';
import { waitFor } from '../../../test/support/wait.js';
import type { PagePlan, PageRecord } from '../../oncall/page.js';
import { planAck } from '../../oncall/page-plan.js';
import type { ApplyResult, ClaimedNotification } from '../oncall-store.js';
import { openPostgresStore } from './postgres-store.js';

const T0 = Date.UTC(2026, 0, 1);
const cluster: PgCluster = await startPgCluster();
after(() => cluster.close());
let count = 0;

/** What one run of the scenario saw. */
interface Seen {
  p1: string;
  p2: string;
  /** Whether the claim answered while the blocker still held its page, or waited for the batch's lock. */
  claimBeforeRelease: 'answered' | 'waited for the batch';
  acks: Array<ApplyResult | string>;
  /** The pages whose notices the claim handed out, or how it failed. */
  claimed: string[] | string;
  /** The status of each page's escalation notice, by page id. */
  notices: Record<string, string>;
  /** How many transactions wrote the two pages' acknowledgements (rows written by one share their xmin). */
  ackTransactions: number;
}

const failure = (err: unknown): string => {
  const e = err as { code?: unknown; message?: unknown };
  return `${typeof e.code === 'string' ? `${e.code}: ` : ''}${typeof e.message === 'string' ? e.message : String(err)}`;
};

const pagesOf = (claimed: ClaimedNotification[]): string[] => claimed.map((c) => String(c.notification.pageId)).sort();

/**
 * Two open pages p1 < p2 (inserted p2 first, so their physical order is not their id order), each with
 * a pending escalation notice; the blocker holds `held` FOR SHARE; both pages are acknowledged in one
 * batch (plans in the order p2, p1); once the batch waits for the blocker, a claim runs; then the
 * blocker commits and everything is awaited.
 */
async function run(held: 'p1' | 'p2'): Promise<Seen> {
  const db = `lock_order_${++count}`;
  const url = await cluster.createDatabase(db);
  await cluster.query('postgres', `ALTER DATABASE ${db} SET deadlock_timeout = '100ms'`);
  const store = await openPostgresStore({ url });
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  let open = false;
  try {
    const [low, high] = [openPlan(`${db}-low`, T0), openPlan(`${db}-high`, T0)];
    const [p1, p2] = [low.page.id, high.page.id];
    assert.ok(p1 < p2, 'the page opened first has the lower id');
    for (const plan of [high, low]) assert.deepEqual(await store.oncall.applyPagePlan(plan, T0), { ok: true });
    const ack = (page: PageRecord): PagePlan => {
      const r = planAck(page, { actor: 'cli:test', by: 'alice', via: 'cli' }, null, T0 + 1);
      assert.ok(r.ok && r.plan !== null);
      return r.plan;
    };

    const blockerPid = Number((await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    await blocker.query('BEGIN');
    open = true;
    await blocker.query('SELECT id FROM pages WHERE id = $1 FOR SHARE', [held === 'p1' ? p1 : p2]);

    /** The backend of this database waiting for a lock that `pid` holds, if there is one. */
    const waitingOn = async (pid: number): Promise<number | undefined> => (await cluster.query<{ pid: number }>('postgres',
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND $2 = ANY(pg_blocking_pids(pid))`, [db, pid]))[0]?.pid;

    // In one turn: the chain writer puts both plans in one batch, one transaction.
    const acks = Promise.all([high, low].map((p) => store.oncall.applyPagePlan(ack(p.page), T0 + 1).catch(failure)));
    const batchPid = await waitFor('the batch of acknowledgements to wait for the blocker', () => waitingOn(blockerPid));

    let answer: string[] | string | undefined;
    const claim = store.oncall.claimNotifications('r1', T0 + 2, 30_000, 10).then((c) => pagesOf(c.claimed), failure).then((a) => { answer = a; return a; });
    const claimBeforeRelease = await waitFor('the claim to answer or to wait for the batch', async () => (answer !== undefined ? 'answered' as const
      : await waitingOn(batchPid) !== undefined ? 'waited for the batch' as const : undefined));

    await blocker.query('COMMIT');
    open = false;
    const seen = { acks: await acks, claimed: await claim };
    const rows = await cluster.query<{ page_id: string; status: string }>(db, 'SELECT page_id, status FROM page_notifications ORDER BY page_id');
    const [writers] = await cluster.query<{ n: string }>(db, `SELECT count(DISTINCT xmin::text) AS n FROM pages WHERE state = 'acknowledged'`);
    return { p1, p2, claimBeforeRelease, ...seen, notices: Object.fromEntries(rows.map((r) => [r.page_id, r.status])), ackTransactions: Number(writers?.n) };
  } finally {
    if (open) await blocker.query('COMMIT');
    await blocker.end();
    await store.close();
  }
}

describe('postgres store: a batch of page plans and a notification claim lock their pages in one order (id order)', () => {
  it('the batch waits on the lower page holding nothing, so a claim of both pages\' notices answers at once and the batch commits after', async () => {
    const { p1, p2, ...seen } = await run('p1');
    // Both escalations handed out (leased, still pending): the claim read the pages before the acknowledgements.
    assert.deepEqual(seen, { claimBeforeRelease: 'answered', acks: [{ ok: true }, { ok: true }], ackTransactions: 1, claimed: [p1, p2],
      notices: { [p1]: 'pending', [p2]: 'pending' } });
  });

  it('the claim waits on the lower page holding nothing, so the batch commits first and the claim cancels both escalations', async () => {
    const { p1, p2, ...seen } = await run('p2');
    // Nothing handed out: the claim read both pages as the batch committed them, acknowledged.
    assert.deepEqual(seen, { claimBeforeRelease: 'waited for the batch', acks: [{ ok: true }, { ok: true }], ackTransactions: 1, claimed: [],
      notices: { [p1]: 'cancelled', [p2]: 'cancelled' } });
  });
});
