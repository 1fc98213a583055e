/**
 * The rounds that tell rather than page (contract §21.1 status updates, §24.1): each is a round of its
 * own (its `page.notified` rows say their `kind`, so reports do not count them as interruptions, §23),
 * to people and rooms already notified, and notifies nobody new. Who hears each is status-updates.ts's
 * to say; an ack, an unack, a resolve, an escalation past a person and a join after the ack are told
 * here. Nobody to tell: no round is spent.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Notified, NotificationKind, PageNotification, PageRecord } from './page.js';
import type { Happened, PagedNow } from './page-message-model.js';
import { pageMessage } from './page-message-model.js';
import type { Recipient } from './page-notice.js';
import { lastEvent, notice } from './page-notice.js';
import type { StatusRoute } from './status-updates.js';
import { holderRecipients, roomRecipients, statusRecipients } from './status-updates.js';

/** A status update's round: a new round to `to`, who are not counted as notified by it; nobody: no round. */
function tellRound(page: PageRecord, to: readonly Recipient[], kind: NotificationKind, happened: Happened, paged: PagedNow | null, nowMs: number,
  eventId: string, audit: NewAuditEntry[]): PageNotification[] {
  if (to.length === 0) return [];
  page.round += 1;
  const message = pageMessage(page, happened, paged, nowMs);
  return to.map((n) => notice(page, n, kind, message, eventId, audit, { status: true }));
}

/**
 * A state change (ack, unack, resolve) reaches everyone already notified, on the contacts
 * status-updates.ts picks for them. `paged`: who the page pages now and next, for an unack, which
 * pages again (§24.1); null for the others.
 */
export function tellStatus(page: PageRecord, kind: 'acknowledged' | 'unacknowledged' | 'resolved', nowMs: number, eventId: string,
  route: StatusRoute, audit: NewAuditEntry[], paged: PagedNow | null = null): PageNotification[] {
  return tellRound(page, statusRecipients(page.notified, route), kind, { kind }, paged, nowMs, eventId, audit);
}

/**
 * An escalation climbed past people notified before (`passed`, whom the new step does not name): they
 * hear whom it pages now (`to`), in a round after the one that pages them.
 */
export function tellEscalatedPast(page: PageRecord, passed: readonly Notified[], to: string[], manual: boolean, nowMs: number, route: StatusRoute,
  audit: NewAuditEntry[]): PageNotification[] {
  return tellRound(page, statusRecipients(passed, route), 'escalated-past', { kind: 'escalated-past', manual, to }, null, nowMs, lastEvent(page),
    audit);
}

/**
 * A join to an acknowledged page (§21.7: nothing rings after the ack): told to its holder — on their
 * `statusUpdates` contacts, else the quiet ones the page used — and to the rooms that carried the
 * page (its channel targets, §24.2), reading like the join notice without the ack action.
 */
export function tellJoinAcked(page: PageRecord, nowMs: number, route: StatusRoute, audit: NewAuditEntry[]): PageNotification[] {
  const holder = page.acknowledgedBy === null ? [] : holderRecipients(page.notified, page.acknowledgedBy, route);
  return tellRound(page, [...holder, ...roomRecipients(page.notified, route)], 'joined-acked', { kind: 'joined' }, null, nowMs, lastEvent(page),
    audit);
}
