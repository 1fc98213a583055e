/**
 * On-call on PostgreSQL (contract §17.4, §16): several replicas share the pages, their timers and the
 * notification outbox.
 *
 * - A plan is applied in a chain transaction (its audit rows join the one chain), onto the page
 *   version it was planned from; a second open page for one incident key is a conflict too. The
 *   loser of a race writes nothing and plans again. Plans share the chain writer's batches: many
 *   to one transaction and one hold of the chain head (page-writes.ts).
 * - Due timers are claimed in one statement with `FOR UPDATE SKIP LOCKED` and a lease: each due
 *   timer is held by exactly one replica at a time, and the version fence makes its step fire once
 *   even when a replica that stalled past its lease comes back.
 * - Notifications are claimed `SKIP LOCKED` too; their pages are read `FOR SHARE` in the same
 *   transaction, so an acknowledgement being committed is waited for, and an escalation notice of a
 *   page that is no longer triggered is cancelled instead of handed out.
 *
 * What each write means is planned elsewhere (oncall/ for pages and handoffs, ../oncall-plans.ts for
 * the rest), the same plans the SQLite store persists.
 */
import type pg from 'pg';
import type { NewAuditEntry } from '../../audit/audit-row.js';
import type { HandoffNotice } from '../../oncall/handoff-plan.js';
import type { PageNotification } from '../../oncall/page.js';
import { isStaleNotification } from '../../oncall/page.js';
import { createSemaphore } from '../../core/semaphore.js';
import type { ClaimOnCommit, DueClaim, NotificationOutcome, Quarantined, SendCheck, SendHold, SendRef, StoredPage } from '../oncall-store.js';
import {
  noticeCancelledAudit, notificationRows, overrideAddedAudit, overrideRemovedAudit, planNotificationFinish, planSilenceExpiry,
  quarantinedAudit, quarantinedError, silenceCreatedAudit,
} from '../oncall-plans.js';
import { PAGE_COLS, decodeNotification, decodePage, toStoredOverride, toStoredPage, toStoredSilence } from '../oncall-rows.js';
import { dueRowsToRead, fullChannels, orderedClaims } from '../outbox-order.js';
import type { OncallStore } from '../store.js';
import { AUDIT_COLS, toListedAudit } from '../rows.js';
import { timelineSql } from '../story-rows.js';
import type { ChainTx } from './chain-tx.js';
import type { ChainWriter } from './chain-writer.js';
import { page as keysetPage } from './pages.js';
import { readReportRows } from '../report-rows.js';
import { postgresReportFacts } from './report-facts.js';
import { postgresReportReads } from './report-reads.js';
import { insertReceipts } from './receipts.js';

/** Schema step 9 of schema.ts: each outbox row's channel, and a page's pending notifications in order, as SQLite's migration 12. */
export const PG_OUTBOX_ORDER_INDEX = `
  ALTER TABLE page_notifications ADD COLUMN channel_id text;
  CREATE INDEX page_notifications_page_pending ON page_notifications (page_id, seq) WHERE status = 'pending';
`;

/**
 * Most sends held at their last look at once (each holds a pooled connection in a transaction for the
 * few milliseconds its message takes to reach the kernel): the pool's other connections stay free for
 * the chain writer and the reads.
 */
const MAX_SEND_HOLDS = 4;

/** Schema step of schema.ts: the same tables as SQLite's (sqlite/oncall-schema.ts). */
export const PG_ONCALL_MIGRATION = `
  CREATE TABLE pages (
    seq            bigserial PRIMARY KEY,
    id             text NOT NULL UNIQUE,
    ts_ms          bigint NOT NULL,
    agent_id       text NOT NULL,
    incident_key   text NOT NULL,
    state          text NOT NULL CHECK (state IN ('triggered', 'acknowledged', 'resolved')),
    policy_id      text NOT NULL,
    due_ms         bigint,
    timer_owner    text,
    timer_lease_ms bigint,
    version        integer NOT NULL,
    body           text NOT NULL
  );
  CREATE UNIQUE INDEX pages_open_key ON pages (agent_id, incident_key) WHERE state <> 'resolved';
  CREATE INDEX pages_key_seq ON pages (agent_id, incident_key, seq);
  CREATE INDEX pages_due ON pages (due_ms) WHERE due_ms IS NOT NULL;
  CREATE INDEX pages_agent_seq ON pages (agent_id, seq);
  CREATE INDEX pages_state_seq ON pages (state, seq);
  CREATE INDEX pages_policy_seq ON pages (policy_id, seq);
  CREATE INDEX pages_ts ON pages (ts_ms);
  CREATE TABLE page_audit (page_id text NOT NULL, seq bigint NOT NULL, PRIMARY KEY (page_id, seq));
  CREATE TABLE page_notifications (
    seq           bigserial PRIMARY KEY,
    delivery_id   text NOT NULL UNIQUE,
    page_id       text,
    agent_id      text NOT NULL,
    kind          text NOT NULL,
    status        text NOT NULL CHECK (status IN ('pending', 'sent', 'cancelled', 'failed')),
    created_ms    bigint NOT NULL,
    not_before_ms bigint NOT NULL,
    owner         text,
    attempt       integer NOT NULL DEFAULT 0,
    error         text,
    body          text NOT NULL
  );
  CREATE INDEX page_notifications_pending ON page_notifications (not_before_ms) WHERE status = 'pending';
  CREATE TABLE oncall_overrides (
    id text PRIMARY KEY, agent_id text NOT NULL, schedule_id text NOT NULL, person_id text NOT NULL,
    from_ms bigint NOT NULL, to_ms bigint NOT NULL, created_ms bigint NOT NULL, created_by text NOT NULL
  );
  CREATE INDEX oncall_overrides_to ON oncall_overrides (to_ms);
  CREATE TABLE silences (
    seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, agent_id text, matchers text NOT NULL, starts_ms bigint NOT NULL,
    ends_ms bigint NOT NULL, reason text NOT NULL, created_by text NOT NULL, expired_ms bigint
  );
  CREATE INDEX silences_ends ON silences (ends_ms);
  CREATE TABLE heartbeats (
    agent_id text NOT NULL, heartbeat_id text NOT NULL, last_seen_ms bigint NOT NULL, PRIMARY KEY (agent_id, heartbeat_id)
  );
`;

/** Schema step 6 of schema.ts: where each vendor update feed is read from next (sqlite/oncall-schema.ts POLL_OFFSETS_TABLE). */
export const PG_POLL_OFFSETS_TABLE = `
  CREATE TABLE poll_offsets (feed text PRIMARY KEY, next_offset bigint NOT NULL, updated_ms bigint NOT NULL);
`;

/**
 * Schema step of schema.ts (issue 33), as SQLite's migration 9 (sqlite/oncall-schema.ts): each incident
 * key's latest resolve, in receive order (events.seq); requests answered once (claimOnce); stories and timelines read from the hashed rows
 * (../story-rows.ts): audit_events and page_audit give way to indexes over `audit_ref(data, field)`,
 * the text a row's data names as `eventId` or `pageId` (null when it names none, or is not JSON).
 * jsonb refuses the \u0000 escape that text data may hold: it is read as U+FFFD for this purpose only
 * (the stored text, and so the hash, are untouched).
 */
export const PG_ONCALL_INTEGRITY_MIGRATION = `
  CREATE TABLE incident_resolves (
    agent_id     text NOT NULL,
    incident_key text NOT NULL,
    event_seq    bigint NOT NULL,
    event_id     text NOT NULL,
    ts_ms        bigint NOT NULL,
    PRIMARY KEY (agent_id, incident_key)
  );
  CREATE INDEX incident_resolves_ts ON incident_resolves (ts_ms);

  DROP TRIGGER audit_events_fill ON audit;
  DROP FUNCTION audit_events_fill();
  DROP FUNCTION audit_event_ids(text);
  DROP TABLE audit_events;
  DROP TABLE page_audit;
  CREATE FUNCTION audit_ref(data text, field text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE WHEN jsonb_typeof(j -> field) = 'string' THEN j ->> field END FROM (SELECT replace(data, '\\u0000', '\\ufffd')::jsonb AS j) d
  $$;
  CREATE INDEX audit_event_ref ON audit (audit_ref(data, 'eventId')) WHERE audit_ref(data, 'eventId') IS NOT NULL;
  CREATE INDEX audit_page_ref ON audit (audit_ref(data, 'pageId')) WHERE audit_ref(data, 'pageId') IS NOT NULL;
  CREATE TABLE answer_once (key text PRIMARY KEY, until_ms bigint NOT NULL);
  CREATE INDEX answer_once_until ON answer_once (until_ms);
`;

/** Appends rows in the caller's transaction (a page's timeline is the rows naming it: ../story-rows.ts). */
function audit(tx: ChainTx, entries: readonly NewAuditEntry[], nowMs: number): void {
  for (const e of entries) tx.append(e, nowMs);
}

/**
 * Writes notifications into the outbox — claimed by `claim`'s owner, leased until now + its lease, when
 * given — and returns those it added (a deliveryId already there is left as it is).
 */
async function insertNotifications(client: pg.ClientBase, notifications: readonly PageNotification[], nowMs: number,
  claim?: ClaimOnCommit): Promise<PageNotification[]> {
  if (notifications.length === 0) return [];
  const rows = notificationRows(notifications, nowMs);
  const { rows: added } = await client.query<{ delivery_id: string }>(`INSERT INTO page_notifications
      (delivery_id, page_id, agent_id, kind, status, created_ms, not_before_ms, owner, attempt, body, channel_id)
    SELECT d, p, a, k, 'pending', c, n, $8::text, $9::integer, b, ch
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $10::text[]) AS x(d, p, a, k, c, n, b, ch)
    ON CONFLICT (delivery_id) DO NOTHING RETURNING delivery_id`,
  [rows.map((r) => r.deliveryId), rows.map((r) => r.pageId), rows.map((r) => r.agentId), rows.map((r) => r.kind),
    rows.map((r) => r.createdMs), rows.map((r) => (claim === undefined ? r.notBeforeMs : r.notBeforeMs + claim.leaseMs)), rows.map((r) => r.body),
    claim?.owner ?? null, claim === undefined ? 0 : 1, rows.map((r) => r.channelId)]);
  const ids = new Set(added.map((r) => r.delivery_id));
  return notifications.filter((n) => ids.has(n.deliveryId));
}

/** A handoff told: its row and the lines to its person, in the caller's transaction. */
async function tell(tx: ChainTx, notice: HandoffNotice, nowMs: number): Promise<void> {
  audit(tx, notice.audit, nowMs);
  await insertNotifications(tx.client, notice.notifications, nowMs);
}

/**
 * A damaged page set aside in the caller's transaction (oncall-store.ts quarantinePage): read again
 * under its lock, so a page two callers found damaged is set aside once. Null when it decodes, or was
 * set aside already.
 */
async function quarantineIfDamaged(tx: ChainTx, id: string, nowMs: number): Promise<Quarantined | null> {
  const r = (await tx.client.query<Record<string, unknown>>(`SELECT ${PAGE_COLS}, due_ms FROM pages WHERE id = $1 FOR UPDATE`, [id])).rows[0];
  if (r === undefined || (r.state === 'resolved' && r.due_ms === null)) return null;
  const decoded = decodePage(r);
  if (decoded.ok) return null;
  await tx.client.query(`UPDATE pages SET state = 'resolved', due_ms = NULL, timer_owner = NULL, timer_lease_ms = NULL WHERE id = $1`, [id]);
  const q: Quarantined = { kind: 'page', id, agentId: typeof r.agent_id === 'string' ? r.agent_id : null, pageId: id, reason: decoded.reason };
  audit(tx, [quarantinedAudit(q)], nowMs);
  return q;
}

export function postgresOncall(pool: pg.Pool, writer: ChainWriter, budget?: number): OncallStore {
  const one = async (sql: string, params: unknown[]): Promise<StoredPage | null> => {
    const { rows } = await pool.query<Record<string, unknown>>(sql, params);
    return rows[0] === undefined ? null : toStoredPage(rows[0]);
  };
  const reportReads = postgresReportReads(pool);
  const holds = createSemaphore(MAX_SEND_HOLDS);
  async function holdSend(ref: SendRef, nowMs: number): Promise<SendHold> {
    const held = `SELECT n.seq, n.kind, n.page_id, n.agent_id, p.state FROM page_notifications n LEFT JOIN pages p ON p.id = n.page_id
      WHERE n.delivery_id = $1 AND n.owner = $2 AND n.attempt = $3 AND n.status = 'pending'`;
    type Held = { seq: string; kind: string; page_id: string | null; agent_id: string; state: string | null };
    const slot = await holds.acquire();
    let client: pg.PoolClient | null = null;
    let check: SendCheck;
    try {
      client = await pool.connect();
      await client.query('BEGIN');
      // The fence: the page's row held FOR SHARE until the release. A plan that changes the page locks
      // it FOR UPDATE (page-writes.ts), so an ack commits before this look (which then sees it) or
      // after the release — never while the message is on its way to the wire.
      if (ref.pageId !== null) await client.query('SELECT 1 FROM pages WHERE id = $1 FOR SHARE', [ref.pageId]);
      const r = (await client.query<Held>(held, [ref.deliveryId, ref.owner, ref.attempt])).rows[0];
      check = r === undefined ? 'lost' : isStaleNotification(r.kind, r.state) ? 'cancelled' : 'send';
      if (check === 'send') {
        const c = client;
        client = null;
        let released = false;
        return { check, release: async () => {
          if (released) return;
          released = true;
          try {
            await c.query('COMMIT');
            c.release();
          } catch (err) {
            c.release(err instanceof Error ? err : new Error(String(err)));
          } finally {
            slot();
          }
        } } satisfies SendHold;
      }
      await client.query('COMMIT');
    } catch (err) {
      await client?.query('ROLLBACK').catch(() => undefined);
      client?.release(err instanceof Error ? err : new Error(String(err)));
      slot();
      throw err;
    }
    client.release();
    slot();
    if (check === 'lost') return { check };
    // Stale: cancelled and audited on the chain, the claim and the state asked again under the lock.
    const cancelled = await writer.solo(async (tx): Promise<SendCheck> => {
      const r = (await tx.client.query<Held>(`${held} FOR UPDATE OF n`, [ref.deliveryId, ref.owner, ref.attempt])).rows[0];
      if (r === undefined) return 'lost';
      if (!isStaleNotification(r.kind, r.state)) return 'send';
      await tx.client.query(`UPDATE page_notifications SET status = 'cancelled', owner = NULL WHERE seq = $1`, [r.seq]);
      audit(tx, [noticeCancelledAudit({ deliveryId: ref.deliveryId, kind: r.kind, agentId: r.agent_id, pageId: r.page_id,
        pageState: r.state })], nowMs);
      return 'cancelled';
    });
    // A page moved back to triggered meanwhile (an unack): look again, held.
    return cancelled === 'send' ? holdSend(ref, nowMs) : { check: cancelled };
  }

  return {
    reportRows: (window) => readReportRows(reportReads, window),
    reportReads,
    reportFacts: postgresReportFacts(pool),
    // In the chain writer's batches, many plans to a transaction (page-writes.ts).
    applyPagePlan: (plan, nowMs, claim) => writer.applyPagePlan(plan, nowMs, claim),

    // Under the chain head, as page plans are (their batch reads incident_resolves after the lock):
    // a firing's plan either committed before this, or sees it.
    noteResolve: (agentId, incidentKey, eventId, nowMs) => writer.solo(async (tx) => {
      await tx.client.query(`INSERT INTO incident_resolves (agent_id, incident_key, event_seq, event_id, ts_ms)
          SELECT $1, $2, seq, id, $3 FROM events WHERE id = $4
        ON CONFLICT (agent_id, incident_key) DO UPDATE SET event_seq = excluded.event_seq, event_id = excluded.event_id, ts_ms = excluded.ts_ms
        WHERE excluded.event_seq > incident_resolves.event_seq`, [agentId, incidentKey, nowMs, eventId]);
    }),

    writeNotifications: (notifications, entries, nowMs) => writer.solo(async (tx) => {
      audit(tx, entries, nowMs);
      await insertNotifications(tx.client, notifications, nowMs);
    }),

    async claimDuePages(owner, nowMs, leaseMs, limit) {
      const { rows } = await pool.query<Record<string, unknown>>(`UPDATE pages p SET timer_owner = $1, timer_lease_ms = $2 FROM (
          SELECT seq FROM pages WHERE due_ms IS NOT NULL AND due_ms <= $3 AND (timer_lease_ms IS NULL OR timer_lease_ms <= $3)
          ORDER BY due_ms LIMIT $4 FOR UPDATE SKIP LOCKED) d
        WHERE p.seq = d.seq RETURNING ${PAGE_COLS.split(', ').map((c) => `p.${c}`).join(', ')}`, [owner, nowMs + leaseMs, nowMs, limit]);
      const claim: DueClaim = { pages: [], quarantined: [] };
      const damaged: string[] = [];
      for (const r of rows) {
        const decoded = decodePage(r);
        if (decoded.ok) claim.pages.push(decoded.value);
        else damaged.push(String(r.id));
      }
      // Rare: set aside on the chain (its audit row), in a transaction of its own after the claim.
      if (damaged.length > 0) {
        claim.quarantined = await writer.solo(async (tx) => {
          const done: Quarantined[] = [];
          for (const id of damaged) {
            const q = await quarantineIfDamaged(tx, id, nowMs);
            if (q !== null) done.push(q);
          }
          return done;
        });
      }
      return claim;
    },

    quarantinePage: (id, nowMs) => writer.solo((tx) => quarantineIfDamaged(tx, id, nowMs)),

    async claimNotifications(owner, nowMs, leaseMs, limit, room) {
      const client = await pool.connect();
      let plan: ReturnType<typeof orderedClaims>;
      try {
        await client.query('BEGIN');
        // The channels with no room left are passed over here; a row of one written before migration 9 (no channel_id) is judged by outbox-order.ts.
        const full = fullChannels(room);
        const { rows } = await client.query<Record<string, unknown>>(
          `SELECT seq, delivery_id, page_id, agent_id, kind, attempt, created_ms, body FROM page_notifications n
           WHERE status = 'pending' AND not_before_ms <= $1
             AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[]) AS f(a, c) WHERE f.a = n.agent_id AND f.c = n.channel_id)
           ORDER BY not_before_ms, seq LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [nowMs, dueRowsToRead(limit, room), full.map((f) => f.agentId), full.map((f) => f.channelId)]);
        const pageIds = [...new Set(rows.flatMap((r) => (typeof r.page_id === 'string' ? [r.page_id] : [])))];
        // FOR SHARE waits for an acknowledgement being committed, then reads the page as it committed;
        // in id order, the order a batch of page plans locks its pages in (page-writes.ts): no deadlock.
        const states = await client.query<{ id: string; state: string }>('SELECT id, state FROM pages WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE',
          [pageIds]);
        const pending = await client.query<Record<string, unknown>>(`SELECT seq, page_id, kind, owner, delivery_id, channel_id, body FROM page_notifications
          WHERE page_id = ANY($1::text[]) AND status = 'pending' ORDER BY seq`, [pageIds]);
        const stateOf = new Map(states.rows.map((r) => [r.id, r.state]));
        plan = orderedClaims(rows.map((r) => ({ ...r, state: typeof r.page_id === 'string' ? stateOf.get(r.page_id) ?? null : null })), pending.rows,
          limit, room);
        if (plan.cancel.length > 0) {
          await client.query(`UPDATE page_notifications SET status = 'cancelled', owner = NULL WHERE seq = ANY($1::bigint[])`, [plan.cancel]);
        }
        if (plan.claim.length > 0) {
          await client.query('UPDATE page_notifications SET owner = $1, not_before_ms = $2, attempt = attempt + 1 WHERE seq = ANY($3::bigint[])',
            [owner, nowMs + leaseMs, plan.claim.map((c) => c.seq)]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      const claimed = plan.claim.map((c) => ({ notification: c.notification, owner, attempt: c.attempt + 1, queuedAtMs: c.createdMs }));
      if (plan.quarantine.length === 0) return { claimed, quarantined: [] };
      // Rare: given up on the chain (its audit row), each row read again under its lock, so two replicas
      // that both found it set it aside once.
      const quarantined = await writer.solo(async (tx) => {
        const { rows } = await tx.client.query<Record<string, unknown>>(`SELECT seq, delivery_id, page_id, agent_id, body FROM page_notifications
          WHERE seq = ANY($1::bigint[]) AND status = 'pending' ORDER BY seq FOR UPDATE`, [plan.quarantine.map((q) => q.seq)]);
        const still = plan.quarantine.filter((q) => rows.some((r) => Number(r.seq) === q.seq && !decodeNotification(r).ok));
        if (still.length === 0) return [];
        await tx.client.query(`UPDATE page_notifications n SET status = 'failed', owner = NULL, error = u.error
          FROM unnest($1::bigint[], $2::text[]) AS u(seq, error) WHERE n.seq = u.seq`,
        [still.map((q) => q.seq), still.map((q) => quarantinedError(q.quarantined.reason))]);
        audit(tx, still.map((q) => quarantinedAudit(q.quarantined)), nowMs);
        return still.map((q) => q.quarantined);
      });
      return { claimed, quarantined };
    },

    holdSend: (ref, nowMs) => holdSend(ref, nowMs),

    async releaseClaims(ownerPrefix) {
      const notices = await pool.query(`UPDATE page_notifications SET owner = NULL, not_before_ms = created_ms
        WHERE status = 'pending' AND starts_with(owner, $1)`, [ownerPrefix]);
      const timers = await pool.query('UPDATE pages SET timer_owner = NULL, timer_lease_ms = NULL WHERE starts_with(timer_owner, $1)', [ownerPrefix]);
      return (notices.rowCount ?? 0) + (timers.rowCount ?? 0);
    },

    // One statement for the whole batch of outcomes (a sender's pass), not a round trip each while the
    // chain head is held. An outcome applies only while its claim holds; of two for one claim, the first.
    finishNotifications: (outcomes, nowMs) => writer.solo(async (tx) => {
      const claimKey = (deliveryId: string, owner: string, attempt: number): string => `${deliveryId}#${owner}#${attempt}`;
      const claimOf = (o: NotificationOutcome): string => claimKey(o.deliveryId, o.owner, o.attempt);
      const byClaim = new Map<string, NotificationOutcome>();
      for (const o of outcomes) if (!byClaim.has(claimOf(o))) byClaim.set(claimOf(o), o);
      const firsts = [...byClaim.values()];
      const plans = firsts.map((o) => planNotificationFinish(o, nowMs));
      const { rows } = await tx.client.query<{ delivery_id: string; owner: string; attempt: number }>(`UPDATE page_notifications n
          SET status = u.status, not_before_ms = u.not_before_ms, error = u.error, owner = NULL
        FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[], $6::text[]) AS u(delivery_id, owner, attempt, status, not_before_ms, error)
        WHERE n.delivery_id = u.delivery_id AND n.owner = u.owner AND n.attempt = u.attempt AND n.status = 'pending'
        RETURNING n.delivery_id, u.owner, u.attempt`,
      [firsts.map((o) => o.deliveryId), firsts.map((o) => o.owner), firsts.map((o) => o.attempt), plans.map((f) => f.status),
        plans.map((f) => f.notBeforeMs), plans.map((f) => f.error)]);
      const applied = new Set(rows.map((r) => claimKey(r.delivery_id, r.owner, r.attempt)));
      // The rows in the outcomes' order, as one at a time wrote them.
      const entries = firsts.flatMap((o, i) => (applied.has(claimOf(o)) ? plans[i]?.audit ?? [] : []));
      audit(tx, entries, nowMs);
      await insertReceipts(tx.client, firsts.flatMap((o, i) => {
        const receipt = plans[i]?.receipt ?? null;
        return applied.has(claimOf(o)) && receipt !== null ? [receipt] : [];
      }));
      return applied.size;
    }),

    getPage: (id) => one(`SELECT ${PAGE_COLS} FROM pages WHERE id = $1`, [id]),
    findPage: (agentId, key) => one(`SELECT ${PAGE_COLS} FROM pages WHERE agent_id = $1 AND incident_key = $2
      ORDER BY (state <> 'resolved') DESC, seq DESC LIMIT 1`, [agentId, key]),
    listPages: (q, f) => keysetPage(pool, { table: 'pages', cols: `seq, ${PAGE_COLS}`, bytesColumn: 'body',
      filters: [['agent_id', f.agent], ['state', f.state], ['policy_id', f.policy]], map: toStoredPage }, q, budget),
    async pageTimeline(pageId) {
      const { rows } = await pool.query<Record<string, unknown>>(timelineSql('postgres', AUDIT_COLS, '$1'), [pageId]);
      return rows.map(toListedAudit);
    },
    async openPageCounts() {
      const { rows } = await pool.query<{ agent_id: string; state: 'triggered' | 'acknowledged'; n: string }>(
        `SELECT agent_id, state, count(*) AS n FROM pages WHERE state <> 'resolved' GROUP BY agent_id, state`);
      return rows.map((r) => ({ agentId: r.agent_id, state: r.state, count: Number(r.n) }));
    },

    addOverride: (o, nowMs, via, told) => writer.solo(async (tx) => {
      await tx.client.query(`INSERT INTO oncall_overrides (id, agent_id, schedule_id, person_id, from_ms, to_ms, created_ms, created_by)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [o.id, o.agentId, o.scheduleId, o.personId, o.fromMs, o.toMs, o.createdAtMs, o.createdBy]);
      tx.append(overrideAddedAudit(o, via), nowMs);
      if (told !== undefined) await tell(tx, told, nowMs);
    }),
    removeOverride: (id, actor, nowMs, via, told) => writer.solo(async (tx) => {
      const { rows } = await tx.client.query<Record<string, unknown>>('DELETE FROM oncall_overrides WHERE id = $1 RETURNING *', [id]);
      if (rows[0] === undefined) return null;
      const o = toStoredOverride(rows[0]);
      tx.append(overrideRemovedAudit(o, actor, via), nowMs);
      if (told !== undefined) await tell(tx, told, nowMs);
      return o;
    }),
    async listOverrides(agentId, endsAfterMs) {
      const { rows } = await pool.query<Record<string, unknown>>(`SELECT * FROM oncall_overrides WHERE to_ms > $1 AND ($2::text IS NULL OR agent_id = $2)
        ORDER BY from_ms, id`, [endsAfterMs, agentId]);
      return rows.map(toStoredOverride);
    },

    addSilence: (s, nowMs, via) => writer.solo(async (tx) => {
      await tx.client.query(`INSERT INTO silences (id, agent_id, matchers, starts_ms, ends_ms, reason, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [s.id, s.agentId, JSON.stringify(s.matchers), s.startsAtMs, s.endsAtMs, s.reason, s.createdBy]);
      tx.append(silenceCreatedAudit(s, via), nowMs);
    }),
    expireSilence: (id, actor, nowMs, via) => writer.solo(async (tx) => {
      const { rows } = await tx.client.query<Record<string, unknown>>('SELECT * FROM silences WHERE id = $1 FOR UPDATE', [id]);
      if (rows[0] === undefined) return null;
      const plan = planSilenceExpiry(toStoredSilence(rows[0]), actor, nowMs, via);
      await tx.client.query('UPDATE silences SET expired_ms = $1, ends_ms = $2 WHERE id = $3', [plan.silence.expiredAtMs, plan.silence.endsAtMs, id]);
      for (const entry of plan.audit) tx.append(entry, nowMs);
      return plan.silence;
    }),
    async listSilences(endedAfterMs) {
      const { rows } = await pool.query<Record<string, unknown>>('SELECT * FROM silences WHERE ends_ms > $1 ORDER BY seq', [endedAfterMs]);
      return rows.map(toStoredSilence);
    },

    async touchHeartbeats(agentId, ids, nowMs) {
      if (ids.length === 0) return;
      await pool.query(`INSERT INTO heartbeats (agent_id, heartbeat_id, last_seen_ms) SELECT $1, h, $3 FROM unnest($2::text[]) AS h
        ON CONFLICT (agent_id, heartbeat_id) DO UPDATE SET last_seen_ms = GREATEST(heartbeats.last_seen_ms, excluded.last_seen_ms)`, [agentId, ids, nowMs]);
    },
    async listHandoffs() {
      const { rows } = await pool.query<{ agent_id: string; schedule_id: string; next_ms: string | null }>(
        'SELECT agent_id, schedule_id, next_ms FROM schedule_handoffs ORDER BY agent_id, schedule_id');
      return rows.map((r) => ({ agentId: r.agent_id, scheduleId: r.schedule_id, nextMs: r.next_ms === null ? null : Number(r.next_ms) }));
    },

    // The row is the claim: an insert that finds one, or a move from a due time that is no longer
    // there, writes nothing, so each handoff is told by exactly one replica.
    applyHandoffPlan: (plan, nowMs) => writer.solo(async (tx) => {
      const moved = plan.expectedNextMs === undefined
        ? await tx.client.query(`INSERT INTO schedule_handoffs (agent_id, schedule_id, next_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [plan.agentId, plan.scheduleId, plan.nextMs])
        : await tx.client.query(`UPDATE schedule_handoffs SET next_ms = $1 WHERE agent_id = $2 AND schedule_id = $3
          AND next_ms IS NOT DISTINCT FROM $4`, [plan.nextMs, plan.agentId, plan.scheduleId, plan.expectedNextMs]);
      if (moved.rowCount !== 1) return false;
      await tell(tx, plan, nowMs);
      return true;
    }),

    async pollOffset(feed) {
      const { rows } = await pool.query<{ next_offset: string }>('SELECT next_offset FROM poll_offsets WHERE feed = $1', [feed]);
      return rows[0] === undefined ? null : Number(rows[0].next_offset);
    },
    async savePollOffset(feed, offset, nowMs) {
      await pool.query(`INSERT INTO poll_offsets (feed, next_offset, updated_ms) VALUES ($1, $2, $3)
        ON CONFLICT (feed) DO UPDATE SET next_offset = excluded.next_offset, updated_ms = excluded.updated_ms`, [feed, offset, nowMs]);
    },
    // One statement each, no chain head: the key's row is what replicas claiming it at once contend for.
    async claimOnce(key, untilMs, nowMs) {
      await pool.query(`DELETE FROM answer_once WHERE key IN (SELECT key FROM answer_once WHERE until_ms <= $1 ORDER BY until_ms LIMIT 100)`, [nowMs]);
      const { rowCount } = await pool.query(`INSERT INTO answer_once (key, until_ms) VALUES ($1, $2)
        ON CONFLICT (key) DO UPDATE SET until_ms = excluded.until_ms WHERE answer_once.until_ms <= $3`, [key, untilMs, nowMs]);
      return rowCount === 1;
    },

    async listHeartbeats() {
      const { rows } = await pool.query<{ agent_id: string; heartbeat_id: string; last_seen_ms: number }>(
        'SELECT agent_id, heartbeat_id, last_seen_ms FROM heartbeats ORDER BY agent_id, heartbeat_id');
      return rows.map((r) => ({ agentId: r.agent_id, heartbeatId: r.heartbeat_id, lastSeenMs: Number(r.last_seen_ms) }));
    },
  };
}
