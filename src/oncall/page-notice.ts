/**
 * One notification of a page, as every planner writes it (contract §17.4, §17.10): its deliveryId
 * (`<pageId>.<round>.<personId>.<channelId>`), its `page.notified` row and the notification the store
 * commits with the page — the message as its model (§24.1) and as text. Rounds that page
 * (page-plan.ts) and rounds that tell (status-rounds.ts) are both made of these.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { NotificationKind, PageNotification, PageRecord } from './page.js';
import { incarnationOf } from './page.js';
import type { PageMessage } from './page-message-model.js';
import { pageMessageText } from './page-text.js';

export interface Recipient {
  person: string;
  channel: string;
  /** Null: the channel's own recipient (a `channel:` target). */
  to: string | null;
}

/** `<pageId>.<round>.<personId>.<channelId>`, `-` for a channel target (§17.4). */
export function pageDeliveryId(pageId: string, round: number, recipient: Recipient): string {
  return `${pageId}.${round}.${recipient.person}.${recipient.channel}`;
}

/** The chain's actor of what the pager does by itself. */
export const engineActor = (agentId: string): string => `agent:${agentId}`;

/** An audit row of the page (its `pageId` first in the data). */
export function entry(page: PageRecord, kind: string, actor: string, data: Record<string, unknown>): NewAuditEntry {
  return { kind, actor, agentId: page.agentId, data: { pageId: page.id, ...data } };
}

/** The page's latest event: what a round that no event caused (a timer, an action) is about. */
export function lastEvent(page: PageRecord): string {
  return page.eventIds[page.eventIds.length - 1] ?? '';
}

/**
 * One notification in the page's current round: its `page.notified` row (with `rule` for a person's
 * later rule), and the recipient remembered as notified — except for a status update (`status`),
 * which notifies nobody new.
 */
export function notice(page: PageRecord, r: Recipient, kind: NotificationKind, message: PageMessage, eventId: string, audit: NewAuditEntry[],
  opts: { rule?: number; status?: boolean } = {}): PageNotification {
  const deliveryId = pageDeliveryId(page.id, page.round, r);
  const rule = opts.rule === undefined ? {} : { rule: opts.rule };
  audit.push(entry(page, 'page.notified', engineActor(page.agentId),
    { step: page.step, loop: page.loop, person: r.person, channel: r.channel, deliveryId, kind, ...rule }));
  if (opts.status !== true && !page.notified.some((n) => n.person === r.person && n.channel === r.channel)) page.notified.push({ ...r });
  const incarnation = incarnationOf(page);
  return { deliveryId, pageId: page.id, agentId: page.agentId, kind, eventId, channelId: r.channel, person: r.person, to: r.to,
    severity: page.severity, status: kind === 'resolved' ? 'resolved' : 'firing', title: page.title, text: pageMessageText(message, 'UTC', null), message,
    ...(incarnation === 0 ? {} : { incarnation }), ...rule };
}
