/**
 * The write side of on-call on SQLite (contract §17.4), synchronous, in the store's writer thread
 * beside writer.ts: each operation runs in a savepoint of the writer's group-commit transaction, so a
 * plan's page row, audit rows and notifications commit together or not at all. What each write means
 * is planned elsewhere (oncall/ for pages and handoffs, ../oncall-plans.ts for the rest); this persists it.
 */
import type Database from 'better-sqlite3';
import type { AuditRow, NewAuditEntry } from '../../audit/audit-row.js';
import type { Silence } from '../../oncall/oncall-config.js';
import type { HandoffNotice, HandoffPlan } from '../../oncall/handoff-plan.js';
import type { PageNotification, PagePlan } from '../../oncall/page.js';
import { dueAtMs, isStaleNotification } from '../../oncall/page.js';
import type {
  ApplyResult, ChannelRoom, ClaimOnCommit, DueClaim, NotificationClaim, NotificationOutcome, Quarantined, SendCheck, SendRef, StoredOverride, StoredSilence,
} from '../oncall-store.js';
import {
  noticeCancelledAudit, notificationRows, overrideAddedAudit, overrideRemovedAudit, planNotificationFinish, planSilenceExpiry,
  quarantinedAudit, quarantinedError, silenceCreatedAudit,
} from '../oncall-plans.js';
import type { ActedThrough, ReplayVia } from '../store.js';
import { decodePage, toStoredOverride, toStoredSilence } from '../oncall-rows.js';
import { dueRowsToRead, fullChannels, orderedClaims } from '../outbox-order.js';
import { receiptInserter } from './receipts.js';

export interface OncallWriter {
  applyPagePlan(plan: PagePlan, nowMs: number, claim?: ClaimOnCommit): ApplyResult;
  noteResolve(agentId: string, incidentKey: string, eventId: string, nowMs: number): void;
  writeNotifications(notifications: readonly PageNotification[], audit: readonly NewAuditEntry[], nowMs: number): void;
  claimDuePages(owner: string, nowMs: number, leaseMs: number, limit: number): DueClaim;
  quarantinePage(id: string, nowMs: number): Quarantined | null;
  claimNotifications(owner: string, nowMs: number, leaseMs: number, limit: number, room?: ChannelRoom): NotificationClaim;
  /** The last look's write, when the reader found the notice stale: cancelled and audited (or the claim was lost meanwhile). */
  cancelStale(ref: SendRef, nowMs: number): SendCheck;
  finishNotifications(outcomes: readonly NotificationOutcome[], nowMs: number): number;
  releaseOncallClaims(ownerPrefix: string): number;
  addOverride(override: StoredOverride, nowMs: number, via?: ReplayVia | ActedThrough, told?: HandoffNotice): void;
  removeOverride(id: string, actor: string, nowMs: number, via?: ReplayVia | ActedThrough, told?: HandoffNotice): StoredOverride | null;
  addSilence(silence: Silence, nowMs: number, via?: ReplayVia | ActedThrough): void;
  expireSilence(id: string, actor: string, nowMs: number, via?: ReplayVia | ActedThrough): StoredSilence | null;
  touchHeartbeats(agentId: string, heartbeatIds: readonly string[], nowMs: number): void;
  claimOnce(key: string, untilMs: number, nowMs: number): boolean;
  applyHandoffPlan(plan: HandoffPlan, nowMs: number): boolean;
  savePollOffset(feed: string, offset: number, nowMs: number): void;
}

type Append = (entry: NewAuditEntry, nowMs: number) => AuditRow;

const PAGE_ROW_COLS = 'id, agent_id, incident_key, state, policy_id, ts_ms, due_ms, body';

export function createOncallWriter(db: Database.Database, appendAudit: Append): OncallWriter {
  const st = {
    resolvedAfter: db.prepare<[string, string, string], { event_id: string }>(
      `SELECT r.event_id FROM incident_resolves r JOIN events e ON e.id = ?
       WHERE r.agent_id = ? AND r.incident_key = ? AND r.event_seq > e.seq`),
    noteResolve: db.prepare<[string, string, number, string]>(
      `INSERT INTO incident_resolves (agent_id, incident_key, event_seq, event_id, ts_ms) SELECT ?, ?, seq, id, ? FROM events WHERE id = ?
       ON CONFLICT (agent_id, incident_key) DO UPDATE SET event_seq = excluded.event_seq, event_id = excluded.event_id, ts_ms = excluded.ts_ms
       WHERE excluded.event_seq > incident_resolves.event_seq`),
    openOfKey: db.prepare<[string, string, string], { id: string }>(
      `SELECT id FROM pages WHERE agent_id = ? AND incident_key = ? AND state <> 'resolved' AND id <> ?`),
    insertPage: db.prepare<[string, number, string, string, string, string, number | null, number, string]>(
      `INSERT INTO pages (id, ts_ms, agent_id, incident_key, state, policy_id, due_ms, version, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    updatePage: db.prepare<[string, number | null, number, string, string, number]>(
      `UPDATE pages SET state = ?, due_ms = ?, timer_owner = NULL, timer_lease_ms = NULL, version = ?, body = ? WHERE id = ? AND version = ?`),
    insertNotification: db.prepare<[string, string | null, string, string, number, number, string, string]>(
      `INSERT OR IGNORE INTO page_notifications (delivery_id, page_id, agent_id, kind, status, created_ms, not_before_ms, body, channel_id)
       VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?)`),
    duePages: db.prepare<[number, number, number], Record<string, unknown>>(
      `SELECT ${PAGE_ROW_COLS} FROM pages WHERE due_ms IS NOT NULL AND due_ms <= ? AND (timer_lease_ms IS NULL OR timer_lease_ms <= ?)
       ORDER BY due_ms LIMIT ?`),
    pageRow: db.prepare<[string], Record<string, unknown>>(`SELECT ${PAGE_ROW_COLS} FROM pages WHERE id = ?`),
    leaseTimer: db.prepare<[string, number, string]>('UPDATE pages SET timer_owner = ?, timer_lease_ms = ? WHERE id = ?'),
    // Set aside: no timer, and no longer open (its incident key free for a new page); the body is kept as found.
    quarantinePage: db.prepare<[string]>(`UPDATE pages SET state = 'resolved', due_ms = NULL, timer_owner = NULL, timer_lease_ms = NULL WHERE id = ?`),
    // The channels with no room left (a JSON array of [agentId, channelId], ours) are passed over here; a
    // row written before migration 12 (no channel_id) is judged by outbox-order.ts.
    dueNotifications: db.prepare<[number, string, number], Record<string, unknown>>(
      `SELECT n.seq, n.delivery_id, n.page_id, n.agent_id, n.kind, n.attempt, n.created_ms, n.body, p.state FROM page_notifications n
       LEFT JOIN pages p ON p.id = n.page_id
       WHERE n.status = 'pending' AND n.not_before_ms <= ?
         AND NOT EXISTS (SELECT 1 FROM json_each(?) f WHERE f.value ->> 0 = n.agent_id AND f.value ->> 1 = n.channel_id)
       ORDER BY n.not_before_ms, n.seq LIMIT ?`),
    // A page's pending notifications (migration 12's index): what a claimed one may have to wait for.
    pendingOfPage: db.prepare<[string], Record<string, unknown>>(
      `SELECT seq, delivery_id, page_id, kind, owner, channel_id, body FROM page_notifications WHERE page_id = ? AND status = 'pending' ORDER BY seq`),
    cancelNotification: db.prepare<[number]>(`UPDATE page_notifications SET status = 'cancelled', owner = NULL WHERE seq = ?`),
    // A previous run's claims, due at once (created_ms is past): the next claim hands them out again.
    releaseNotifications: db.prepare<[number, string]>(
      `UPDATE page_notifications SET owner = NULL, not_before_ms = created_ms WHERE status = 'pending' AND substr(owner, 1, ?) = ?`),
    releaseTimers: db.prepare<[number, string]>('UPDATE pages SET timer_owner = NULL, timer_lease_ms = NULL WHERE substr(timer_owner, 1, ?) = ?'),
    quarantineNotification: db.prepare<[string, number]>(`UPDATE page_notifications SET status = 'failed', owner = NULL, error = ? WHERE seq = ?`),
    heldNotification: db.prepare<[string, string, number], { seq: number; kind: string; page_id: string | null; agent_id: string; state: string | null }>(
      `SELECT n.seq, n.kind, n.page_id, n.agent_id, p.state FROM page_notifications n LEFT JOIN pages p ON p.id = n.page_id
       WHERE n.delivery_id = ? AND n.owner = ? AND n.attempt = ? AND n.status = 'pending'`),
    leaseNew: db.prepare<[string, number, string]>(
      `UPDATE page_notifications SET owner = ?, not_before_ms = ?, attempt = 1 WHERE delivery_id = ? AND status = 'pending' AND attempt = 0`),
    leaseNotification: db.prepare<[string, number, number]>(
      'UPDATE page_notifications SET owner = ?, not_before_ms = ?, attempt = attempt + 1 WHERE seq = ?'),
    finishNotification: db.prepare<[string, number, string | null, string, string, number]>(
      `UPDATE page_notifications SET status = ?, not_before_ms = ?, error = ?, owner = NULL
       WHERE delivery_id = ? AND owner = ? AND attempt = ? AND status = 'pending'`),
    insertOverride: db.prepare<[string, string, string, string, number, number, number, string]>(
      `INSERT INTO oncall_overrides (id, agent_id, schedule_id, person_id, from_ms, to_ms, created_ms, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    override: db.prepare<[string], Record<string, unknown>>('SELECT * FROM oncall_overrides WHERE id = ?'),
    deleteOverride: db.prepare<[string]>('DELETE FROM oncall_overrides WHERE id = ?'),
    insertSilence: db.prepare<[string, string | null, string, number, number, string, string]>(
      `INSERT INTO silences (id, agent_id, matchers, starts_ms, ends_ms, reason, created_by) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    silence: db.prepare<[string], Record<string, unknown>>('SELECT * FROM silences WHERE id = ?'),
    expireSilence: db.prepare<[number, number, string]>('UPDATE silences SET expired_ms = ?, ends_ms = ? WHERE id = ?'),
    insertHandoff: db.prepare<[string, string, number | null]>(
      'INSERT OR IGNORE INTO schedule_handoffs (agent_id, schedule_id, next_ms) VALUES (?, ?, ?)'),
    moveHandoff: db.prepare<[number | null, string, string, number | null]>(
      'UPDATE schedule_handoffs SET next_ms = ? WHERE agent_id = ? AND schedule_id = ? AND next_ms IS ?'),
    savePollOffset: db.prepare<[string, number, number]>(
      `INSERT INTO poll_offsets (feed, next_offset, updated_ms) VALUES (?, ?, ?)
       ON CONFLICT (feed) DO UPDATE SET next_offset = excluded.next_offset, updated_ms = excluded.updated_ms`),
    // A key whose claim has passed is claimed anew; a live one is left as it is.
    claimOnce: db.prepare<[string, number, number]>(`INSERT INTO answer_once (key, until_ms) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET until_ms = excluded.until_ms WHERE answer_once.until_ms <= ?`),
    dropPassed: db.prepare<[number]>(
      'DELETE FROM answer_once WHERE key IN (SELECT key FROM answer_once WHERE until_ms <= ? ORDER BY until_ms LIMIT 100)'),
    touchHeartbeat: db.prepare<[string, string, number]>(
      `INSERT INTO heartbeats (agent_id, heartbeat_id, last_seen_ms) VALUES (?, ?, ?)
       ON CONFLICT (agent_id, heartbeat_id) DO UPDATE SET last_seen_ms = MAX(last_seen_ms, excluded.last_seen_ms)`),
  };

  const keepReceipt = receiptInserter(db);
  /** Appends rows (a page's timeline is the rows naming it: ../story-rows.ts). */
  const audit = (entries: readonly NewAuditEntry[], nowMs: number): void => {
    for (const e of entries) appendAudit(e, nowMs);
  };
  /** Writes notifications into the outbox; returns those it added (a deliveryId already there is left as it is). */
  const insertNotifications = (notifications: readonly PageNotification[], nowMs: number): PageNotification[] => {
    const rows = notificationRows(notifications, nowMs);
    return notifications.filter((_, i) => {
      const r = rows[i]!;
      return st.insertNotification.run(r.deliveryId, r.pageId, r.agentId, r.kind, r.createdMs, r.notBeforeMs, r.body, r.channelId).changes === 1;
    });
  };

  /** A damaged page set aside (oncall-store.ts quarantinePage), in the caller's savepoint. */
  const quarantine = (r: Record<string, unknown>, reason: string, nowMs: number): Quarantined => {
    const id = String(r.id);
    st.quarantinePage.run(id);
    const q: Quarantined = { kind: 'page', id, agentId: typeof r.agent_id === 'string' ? r.agent_id : null, pageId: id, reason };
    audit([quarantinedAudit(q)], nowMs);
    return q;
  };

  /** A handoff told: its row and the lines to its person, in the caller's savepoint. */
  const tell = (notice: HandoffNotice, nowMs: number): void => {
    audit(notice.audit, nowMs);
    insertNotifications(notice.notifications, nowMs);
  };

  return {
    applyPagePlan(plan, nowMs, claim) {
      const { page } = plan;
      if (plan.firingEventId !== undefined) {
        const resolved = st.resolvedAfter.get(plan.firingEventId, page.agentId, page.incidentKey);
        if (resolved !== undefined) return { ok: false, reason: 'superseded', resolvedBy: resolved.event_id };
      }
      // One open page per incident key: an open (or a reopen) while another is open is a conflict to re-plan.
      if (page.state !== 'resolved' && st.openOfKey.get(page.agentId, page.incidentKey, page.id) !== undefined) {
        return { ok: false, reason: 'conflict' };
      }
      const body = JSON.stringify(page);
      if (plan.expectedVersion === null) {
        st.insertPage.run(page.id, page.openedAtMs, page.agentId, page.incidentKey, page.state, page.policy.id, dueAtMs(page), page.version, body);
      } else if (st.updatePage.run(page.state, dueAtMs(page), page.version, body, page.id, plan.expectedVersion).changes !== 1) {
        return { ok: false, reason: 'conflict' };
      }
      audit(plan.audit, nowMs);
      const added = insertNotifications(plan.notifications, nowMs);
      if (claim === undefined) return { ok: true };
      for (const n of added) st.leaseNew.run(claim.owner, nowMs + claim.leaseMs, n.deliveryId);
      return { ok: true, claimed: added.map((notification) => ({ notification, owner: claim.owner, attempt: 1, queuedAtMs: nowMs })) };
    },

    noteResolve(agentId, incidentKey, eventId, nowMs) {
      st.noteResolve.run(agentId, incidentKey, nowMs, eventId);
    },

    writeNotifications(notifications, entries, nowMs) {
      audit(entries, nowMs);
      insertNotifications(notifications, nowMs);
    },

    claimDuePages(owner, nowMs, leaseMs, limit) {
      const claim: DueClaim = { pages: [], quarantined: [] };
      for (const r of st.duePages.all(nowMs, nowMs, limit)) {
        const decoded = decodePage(r);
        if (!decoded.ok) {
          claim.quarantined.push(quarantine(r, decoded.reason, nowMs));
          continue;
        }
        st.leaseTimer.run(owner, nowMs + leaseMs, decoded.value.id);
        claim.pages.push(decoded.value);
      }
      return claim;
    },

    quarantinePage(id, nowMs) {
      const r = st.pageRow.get(id);
      if (r === undefined || (r.state === 'resolved' && r.due_ms === null)) return null;
      const decoded = decodePage(r);
      return decoded.ok ? null : quarantine(r, decoded.reason, nowMs);
    },

    claimNotifications(owner, nowMs, leaseMs, limit, room) {
      const full = JSON.stringify(fullChannels(room).map((f) => [f.agentId, f.channelId]));
      const rows = st.dueNotifications.all(nowMs, full, dueRowsToRead(limit, room));
      const pageIds = [...new Set(rows.flatMap((r) => (typeof r.page_id === 'string' ? [r.page_id] : [])))];
      const pending = pageIds.flatMap((id) => st.pendingOfPage.all(id));
      const plan = orderedClaims(rows, pending, limit, room);
      for (const seq of plan.cancel) st.cancelNotification.run(seq);
      for (const q of plan.quarantine) {
        st.quarantineNotification.run(quarantinedError(q.quarantined.reason), q.seq);
        audit([quarantinedAudit(q.quarantined)], nowMs);
      }
      for (const c of plan.claim) st.leaseNotification.run(owner, nowMs + leaseMs, c.seq);
      return { claimed: plan.claim.map((c) => ({ notification: c.notification, owner, attempt: c.attempt + 1, queuedAtMs: c.createdMs })),
        quarantined: plan.quarantine.map((q) => q.quarantined) };
    },

    releaseOncallClaims(prefix) {
      return st.releaseNotifications.run(prefix.length, prefix).changes + st.releaseTimers.run(prefix.length, prefix).changes;
    },

    cancelStale(ref, nowMs) {
      const r = st.heldNotification.get(ref.deliveryId, ref.owner, ref.attempt);
      if (r === undefined) return 'lost';
      if (!isStaleNotification(r.kind, r.state)) return 'send';
      st.cancelNotification.run(r.seq);
      audit([noticeCancelledAudit({ deliveryId: ref.deliveryId, kind: r.kind, agentId: r.agent_id, pageId: r.page_id, pageState: r.state })], nowMs);
      return 'cancelled';
    },

    finishNotifications(outcomes, nowMs) {
      let applied = 0;
      for (const o of outcomes) {
        const plan = planNotificationFinish(o, nowMs);
        if (st.finishNotification.run(plan.status, plan.notBeforeMs, plan.error, o.deliveryId, o.owner, o.attempt).changes !== 1) continue;
        audit(plan.audit, nowMs);
        if (plan.receipt !== null) keepReceipt(plan.receipt);
        applied += 1;
      }
      return applied;
    },

    addOverride(o, nowMs, via, told) {
      st.insertOverride.run(o.id, o.agentId, o.scheduleId, o.personId, o.fromMs, o.toMs, o.createdAtMs, o.createdBy);
      appendAudit(overrideAddedAudit(o, via), nowMs);
      if (told !== undefined) tell(told, nowMs);
    },

    removeOverride(id, actor, nowMs, via, told) {
      const row = st.override.get(id);
      if (row === undefined) return null;
      const o = toStoredOverride(row);
      st.deleteOverride.run(id);
      appendAudit(overrideRemovedAudit(o, actor, via), nowMs);
      if (told !== undefined) tell(told, nowMs);
      return o;
    },

    addSilence(s, nowMs, via) {
      st.insertSilence.run(s.id, s.agentId, JSON.stringify(s.matchers), s.startsAtMs, s.endsAtMs, s.reason, s.createdBy);
      appendAudit(silenceCreatedAudit(s, via), nowMs);
    },

    expireSilence(id, actor, nowMs, via) {
      const row = st.silence.get(id);
      if (row === undefined) return null;
      const plan = planSilenceExpiry(toStoredSilence(row), actor, nowMs, via);
      st.expireSilence.run(plan.silence.expiredAtMs, plan.silence.endsAtMs, id);
      for (const entry of plan.audit) appendAudit(entry, nowMs);
      return plan.silence;
    },

    applyHandoffPlan(plan, nowMs) {
      const moved = plan.expectedNextMs === undefined
        ? st.insertHandoff.run(plan.agentId, plan.scheduleId, plan.nextMs)
        : st.moveHandoff.run(plan.nextMs, plan.agentId, plan.scheduleId, plan.expectedNextMs);
      if (moved.changes !== 1) return false;
      tell(plan, nowMs);
      return true;
    },

    claimOnce(key, untilMs, nowMs) {
      st.dropPassed.run(nowMs);
      return st.claimOnce.run(key, untilMs, nowMs).changes === 1;
    },

    touchHeartbeats(agentId, ids, nowMs) {
      for (const id of ids) st.touchHeartbeat.run(agentId, id, nowMs);
    },

    savePollOffset(feed, offset, nowMs) {
      st.savePollOffset.run(feed, offset, nowMs);
    },
  };
}
