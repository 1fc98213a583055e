/**
 * Page plans inside the chain writer's batches (contract §17.4, §16): many plans share one
 * head-holding transaction, as ingests do, instead of one transaction (and one hold of the chain
 * head) each. A plan's page row, audit rows and notifications still commit together or not at all.
 *
 * - Before the batch, three reads (pipelined with the head lock) get the rows its plans may collide
 *   with: the pages they name (locked), the open pages of their incident keys, and the resolves of
 *   those keys received after a plan's firing event (noteResolve writes them under the same lock). Every change to a
 *   page's state, version or key is made under the head lock (claimDuePages only leases the timer),
 *   so what these reads saw holds until the commit.
 * - Each plan is judged on that read, as the one-plan transaction judged it row by row: a firing a
 *   later resolve superseded writes nothing; a second open page for a key, an insert of an id already
 *   stored, or a version that moved on is a conflict and writes nothing. The writer puts no two plans of one page or one incident key in a batch
 *   (`pageKeys`), so a plan never depends on another of its batch.
 * - The plans' rows go out in ONE statement (multi-row `unnest` writes), pipelined with the chain's
 *   rows and COMMIT; it returns which notifications the outbox did not hold yet (`claimed`).
 *
 * What each plan writes was decided by the planner (oncall/page-plan.ts, ../oncall-plans.ts).
 */
import type pg from 'pg';
import type { PageNotification, PagePlan } from '../../oncall/page.js';
import { dueAtMs } from '../../oncall/page.js';
import type { ApplyResult, ClaimOnCommit } from '../oncall-store.js';
import { notificationRows } from '../oncall-plans.js';
import type { ChainTx, Statement } from './chain-tx.js';

export interface PageOp {
  plan: PagePlan;
  nowMs: number;
  claim: ClaimOnCommit | undefined;
}

/** What the batch's read found of a page: enough to judge a plan's conflicts. */
interface KnownPage { id: string; agentId: string; incidentKey: string; state: string; version: number }

export interface KnownPages {
  byId: ReadonlyMap<string, KnownPage>;
  /** The open page of each `agentId\0incidentKey`. */
  openByKey: ReadonlyMap<string, string>;
  /** For each plan's firing event received before a stored resolve of its key (`agentId\0incidentKey\0eventId`): that resolve's event. */
  resolvedAfter: ReadonlyMap<string, string>;
}

const keyOf = (agentId: string, incidentKey: string): string => `${agentId}\u0000${incidentKey}`;
const firingOf = (plan: PagePlan): string | null => (plan.firingEventId === undefined ? null
  : `${keyOf(plan.page.agentId, plan.page.incidentKey)}\u0000${plan.firingEventId}`);

/** The identities a plan writes under; a batch holds at most one plan per page and per incident key. */
export function pageKeys(plan: PagePlan): [page: string, incident: string] {
  return [plan.page.id, keyOf(plan.page.agentId, plan.page.incidentKey)];
}

/**
 * The pages the batch's plans name and the open pages of their keys, read after the head lock. The
 * named pages are locked here, in id order: a claim of notifications reads its pages `FOR SHARE` in
 * the same order (oncall.ts), so the two never wait for each other in a circle, whatever pages a
 * batch and a claim have in common.
 */
export async function lookupPages(client: pg.ClientBase, ops: readonly PageOp[]): Promise<KnownPages> {
  const byId = new Map<string, KnownPage>();
  const openByKey = new Map<string, string>();
  const resolvedAfter = new Map<string, string>();
  if (ops.length === 0) return { byId, openByKey, resolvedAfter };
  const pages = ops.map((o) => o.plan.page);
  const firing = ops.filter((o) => o.plan.firingEventId !== undefined).map((o) => o.plan);
  type Row = { id: string; agent_id: string; incident_key: string; state: string; version: number };
  type Superseded = { agent_id: string; incident_key: string; event_id: string; resolved_by: string };
  const [named, open, superseded] = await Promise.all([
    client.query<Row>('SELECT id, agent_id, incident_key, state, version FROM pages WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
      [pages.map((p) => p.id)]),
    client.query<Row>(`SELECT p.id, p.agent_id, p.incident_key, p.state, p.version FROM pages p
       JOIN unnest($1::text[], $2::text[]) AS k(agent_id, incident_key) ON p.agent_id = k.agent_id AND p.incident_key = k.incident_key
     WHERE p.state <> 'resolved'`, [pages.map((p) => p.agentId), pages.map((p) => p.incidentKey)]),
    firing.length === 0 ? { rows: [] as Superseded[] } : client.query<Superseded>(
      `SELECT k.agent_id, k.incident_key, k.event_id, r.event_id AS resolved_by
       FROM unnest($1::text[], $2::text[], $3::text[]) AS k(agent_id, incident_key, event_id)
       JOIN events e ON e.id = k.event_id
       JOIN incident_resolves r ON r.agent_id = k.agent_id AND r.incident_key = k.incident_key AND r.event_seq > e.seq`,
      [firing.map((p) => p.page.agentId), firing.map((p) => p.page.incidentKey), firing.map((p) => p.firingEventId)]),
  ]);
  for (const r of superseded.rows) resolvedAfter.set(`${keyOf(r.agent_id, r.incident_key)}\u0000${r.event_id}`, r.resolved_by);
  for (const r of [...named.rows, ...open.rows]) {
    byId.set(r.id, { id: r.id, agentId: r.agent_id, incidentKey: r.incident_key, state: r.state, version: Number(r.version) });
    if (r.state !== 'resolved') openByKey.set(keyOf(r.agent_id, r.incident_key), r.id);
  }
  return { byId, openByKey, resolvedAfter };
}

/** How a plan ends once its batch committed: from the notifications the outbox took. */
export type PageSettle = (added: ReadonlySet<string>) => ApplyResult;

export interface PageWrites {
  /**
   * Judges a plan and, unless it conflicts, adds its rows (its audit rows to `tx`). Throws before
   * adding anything of its own when an audit row cannot be made (the writer then undoes `tx`).
   */
  add(tx: ChainTx, op: PageOp, known: KnownPages): PageSettle;
  /** The one statement that writes every added plan's rows; null when none was added. */
  statement(): Statement | null;
  /** The deliveryIds the statement's answer says the outbox took. */
  added(rows: ReadonlyArray<Record<string, unknown>>): Set<string>;
}

const CONFLICT: ApplyResult = { ok: false, reason: 'conflict' };

interface PageRow {
  id: string; tsMs: number; agentId: string; incidentKey: string; state: string; policyId: string; dueMs: number | null; version: number; body: string;
}
interface OutboxRow { deliveryId: string; pageId: string | null; agentId: string; channelId: string; kind: string; createdMs: number; notBeforeMs: number;
  owner: string | null; attempt: number; body: string }

export function createPageWrites(): PageWrites {
  const inserts: PageRow[] = [];
  const updates: Array<PageRow & { expected: number }> = [];
  const outbox = new Map<string, OutboxRow>();

  const conflicts = (plan: PagePlan, known: KnownPages): boolean => {
    const { page } = plan;
    // One open page per incident key: an open (or a reopen) while another is open is planned again.
    const open = known.openByKey.get(keyOf(page.agentId, page.incidentKey));
    if (page.state !== 'resolved' && open !== undefined && open !== page.id) return true;
    const stored = known.byId.get(page.id);
    if (plan.expectedVersion === null) return stored !== undefined;
    return stored === undefined || stored.version !== plan.expectedVersion;
  };

  return {
    add(tx, { plan, nowMs, claim }, known) {
      const firing = firingOf(plan);
      const resolvedBy = firing === null ? undefined : known.resolvedAfter.get(firing);
      if (resolvedBy !== undefined) return () => ({ ok: false, reason: 'superseded', resolvedBy });
      if (conflicts(plan, known)) return () => CONFLICT;
      const { page } = plan;
      const row: PageRow = { id: page.id, tsMs: page.openedAtMs, agentId: page.agentId, incidentKey: page.incidentKey, state: page.state,
        policyId: page.policy.id, dueMs: dueAtMs(page), version: page.version, body: JSON.stringify(page) };
      const notes = notificationRows(plan.notifications, nowMs);
      // The audit rows last of what may throw: nothing of this plan is kept here until they are made.
      for (const entry of plan.audit) tx.append(entry, nowMs);
      if (plan.expectedVersion === null) inserts.push(row);
      else updates.push({ ...row, expected: plan.expectedVersion });
      const mine: PageNotification[] = [];
      notes.forEach((n, i) => {
        if (outbox.has(n.deliveryId)) return; // another plan of the batch writes it: it is that plan's
        outbox.set(n.deliveryId, { ...n, notBeforeMs: claim === undefined ? n.notBeforeMs : n.notBeforeMs + claim.leaseMs,
          owner: claim?.owner ?? null, attempt: claim === undefined ? 0 : 1 });
        mine.push(plan.notifications[i] as PageNotification);
      });
      if (claim === undefined) return () => ({ ok: true });
      return (added) => ({ ok: true, claimed: mine.filter((n) => added.has(n.deliveryId)).map((notification) => ({ notification, owner: claim.owner,
        attempt: 1, queuedAtMs: nowMs })) });
    },

    statement() {
      if (inserts.length + updates.length === 0) return null;
      const params: unknown[] = [];
      const $ = (values: unknown[], type: string): string => {
        params.push(values);
        return `$${params.length}::${type}[]`;
      };
      const pageCols = (rows: readonly PageRow[]): string => [$(rows.map((r) => r.id), 'text'), $(rows.map((r) => r.state), 'text'),
        $(rows.map((r) => r.dueMs), 'bigint'), $(rows.map((r) => r.version), 'int'), $(rows.map((r) => r.body), 'text')].join(', ');
      const ctes: string[] = [];
      if (inserts.length > 0) {
        const i = inserts;
        ctes.push(`INSERT INTO pages (id, state, due_ms, version, body, ts_ms, agent_id, incident_key, policy_id)
          SELECT * FROM unnest(${pageCols(i)}, ${$(i.map((r) => r.tsMs), 'bigint')}, ${$(i.map((r) => r.agentId), 'text')},
            ${$(i.map((r) => r.incidentKey), 'text')}, ${$(i.map((r) => r.policyId), 'text')})`);
      }
      if (updates.length > 0) {
        const u = updates;
        // The version fence stays, though the batch's read already judged it under the head lock.
        ctes.push(`UPDATE pages p SET state = u.state, due_ms = u.due_ms, timer_owner = NULL, timer_lease_ms = NULL, version = u.version, body = u.body
          FROM unnest(${pageCols(u)}, ${$(u.map((r) => r.expected), 'int')}) AS u(id, state, due_ms, version, body, expected)
          WHERE p.id = u.id AND p.version = u.expected`);
      }
      const n = [...outbox.values()];
      const notifications = n.length === 0 ? 'SELECT NULL::text AS delivery_id WHERE false' : `INSERT INTO page_notifications
          (delivery_id, page_id, agent_id, kind, status, created_ms, not_before_ms, owner, attempt, body, channel_id)
        SELECT d, p, a, k, 'pending', c, nb, o, t, b, ch
        FROM unnest(${$(n.map((r) => r.deliveryId), 'text')}, ${$(n.map((r) => r.pageId), 'text')}, ${$(n.map((r) => r.agentId), 'text')},
          ${$(n.map((r) => r.kind), 'text')}, ${$(n.map((r) => r.createdMs), 'bigint')}, ${$(n.map((r) => r.notBeforeMs), 'bigint')},
          ${$(n.map((r) => r.owner), 'text')}, ${$(n.map((r) => r.attempt), 'int')}, ${$(n.map((r) => r.body), 'text')},
          ${$(n.map((r) => r.channelId), 'text')}) AS x(d, p, a, k, c, nb, o, t, b, ch)
        ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`;
      const sql = `WITH ${ctes.map((c, i) => `w${i} AS (${c})`).join(',\n')}, added AS (${notifications}) SELECT delivery_id FROM added`;
      return { sql, params };
    },

    added: (rows) => new Set(rows.map((r) => String(r.delivery_id))),
  };
}
