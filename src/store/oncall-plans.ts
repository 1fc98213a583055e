/**
 * What an on-call write means beyond a page plan, decided once for every store (contract §17.4–§17.8):
 * the audit rows of an override added or removed and of a silence created or expired, what an
 * expiry does to a silence's times, the row of a notice cancelled at the last look, how a sender's
 * outcome is stored on its notification, and the outbox rows of new notifications. Pure: time comes in as an argument. Pages and handoffs are planned in
 * oncall/ (page-plan.ts, handoff-plan.ts); the SQLite on-call writer and the PostgreSQL on-call store
 * read what a plan needs, ask here, and persist what they are given, as write-plans.ts does for events.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Silence } from '../oncall/oncall-config.js';
import type { PageNotification } from '../oncall/page.js';
import type { NotificationOutcome, Quarantined, StoredOverride, StoredSilence } from './oncall-store.js';
import type { PageReceipt } from './receipt-store.js';
import { NOTICE_CANCELLED, NOTIFICATION_QUARANTINED, PAGE_QUARANTINED } from './oncall-store.js';
import type { ActedThrough, ReplayVia } from './store.js';
import { viaField } from './store.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The row `svc oncall override add` (or the console) writes with a new override. */
export function overrideAddedAudit(o: StoredOverride, via?: ReplayVia | ActedThrough): NewAuditEntry {
  return { kind: 'schedule.override.added', actor: o.createdBy, agentId: o.agentId,
    data: { overrideId: o.id, schedule: o.scheduleId, person: o.personId, from: iso(o.fromMs), to: iso(o.toMs), ...viaField(via) } };
}

/** The row of an override removed: `o` is the override as it was stored. */
export function overrideRemovedAudit(o: StoredOverride, actor: string, via?: ReplayVia | ActedThrough): NewAuditEntry {
  return { kind: 'schedule.override.removed', actor, agentId: o.agentId,
    data: { overrideId: o.id, schedule: o.scheduleId, person: o.personId, ...viaField(via) } };
}

/** The row of a new silence. */
export function silenceCreatedAudit(s: Silence, via?: ReplayVia | ActedThrough): NewAuditEntry {
  return { kind: 'silence.created', actor: s.createdBy, agentId: s.agentId,
    data: { silenceId: s.id, matchers: s.matchers, startsAt: iso(s.startsAtMs), endsAt: iso(s.endsAtMs), reason: s.reason, ...viaField(via) } };
}

export interface SilenceExpiryPlan {
  /** The silence as it is to be stored: expired now, ending now at the latest. */
  silence: StoredSilence & { expiredAtMs: number };
  audit: NewAuditEntry[];
}

/**
 * A silence expired by hand (`svc silence expire`): it ends now unless it ended already (an earlier
 * end is kept, so a silence that was over stays over when it was), and says so on the chain.
 */
export function planSilenceExpiry(stored: StoredSilence, actor: string, nowMs: number, via?: ReplayVia | ActedThrough): SilenceExpiryPlan {
  return {
    silence: { ...stored, expiredAtMs: nowMs, endsAtMs: Math.min(stored.endsAtMs, nowMs) },
    audit: [{ kind: 'silence.expired', actor, agentId: stored.agentId, data: { silenceId: stored.id, reason: 'manual', ...viaField(via) } }],
  };
}

/** A notification held at its last look whose page moved on (oncall/page.ts isStaleNotification). */
export interface HeldNotice {
  deliveryId: string;
  kind: string;
  agentId: string;
  pageId: string | null;
  pageState: string | null;
}

/** The row of a notice cancelled at the last look (§17.4: nothing of an escalation after the ack). */
export function noticeCancelledAudit(held: HeldNotice): NewAuditEntry {
  return { kind: NOTICE_CANCELLED, actor: `agent:${held.agentId}`, agentId: held.agentId,
    data: { pageId: held.pageId, deliveryId: held.deliveryId, notice: held.kind, pageState: held.pageState } };
}

/**
 * The row of a row set aside (quarantined) because it cannot be decoded: which row and why, never its
 * content. `agentId` only when the row's own column names one.
 */
export function quarantinedAudit(q: Quarantined): NewAuditEntry {
  const agentId = q.agentId === null || q.agentId === '' ? null : q.agentId;
  if (q.kind === 'page') {
    return { kind: PAGE_QUARANTINED, actor: 'svc', agentId, data: { pageId: q.id, reason: q.reason } };
  }
  return { kind: NOTIFICATION_QUARANTINED, actor: 'svc', agentId, data: { deliveryId: q.id, pageId: q.pageId, reason: q.reason } };
}

/** The error a quarantined notification is given up with (the outbox row's `error`). */
export const quarantinedError = (reason: string): string => `quarantined: ${reason}`;

/** What a sender's outcome sets on its notification (only while its claim holds) and the rows that go with it. */
export interface NotificationFinish {
  status: 'sent' | 'failed' | 'pending';
  /** When it may be claimed again: the retry's time, else now (moot once sent or failed). */
  notBeforeMs: number;
  error: string | null;
  audit: readonly NewAuditEntry[];
  /** A receipt to keep with the page (§21.3): written with the outcome, once (a receipt already kept is left as it is). */
  receipt: PageReceipt | null;
}

export function planNotificationFinish(o: NotificationOutcome, nowMs: number): NotificationFinish {
  switch (o.outcome) {
    case 'delivered': return { status: 'sent', notBeforeMs: nowMs, error: null, audit: o.audit, receipt: o.receipt ?? null };
    case 'failed': return { status: 'failed', notBeforeMs: nowMs, error: o.error, audit: o.audit, receipt: null };
    case 'retry': return { status: 'pending', notBeforeMs: o.retryAtMs, error: o.error, audit: o.audit, receipt: null };
  }
}

/** One outbox row: pending, claimable from now. A row whose deliveryId is stored already is not written again. */
export interface NotificationRow {
  deliveryId: string;
  pageId: string | null;
  agentId: string;
  channelId: string;
  kind: string;
  createdMs: number;
  notBeforeMs: number;
  body: string;
}

export function notificationRows(notifications: readonly PageNotification[], nowMs: number): NotificationRow[] {
  return notifications.map((n) => ({ deliveryId: n.deliveryId, pageId: n.pageId, agentId: n.agentId, channelId: n.channelId, kind: n.kind, createdMs: nowMs,
    notBeforeMs: nowMs, body: JSON.stringify(n) }));
}
