/** Outbound channels (contract §9.5, §18, §21): file, webhook, slack, teams, pagerduty, email, ntfy, pushover, twilio, telegram. */
import type { ChannelConfig } from '../../config/schema.js';
import type { NotificationKind } from '../../oncall/page.js';
import type { PageAction, PageMessage } from '../../oncall/page-message-model.js';
import { actionsIn } from '../../oncall/page-message-model.js';
import { actLine, actLinks, pageLines } from '../../oncall/page-text.js';

export type Severity = 'P1' | 'P2' | 'P3';

/** The direct message the agent sends to the on-call person. */
export interface OutboundMessage {
  eventId: string;
  agentId: string;
  severity: Severity;
  status: 'firing' | 'resolved';
  title: string;
  text: string;
  /** Who triaged it (contract §14.4). */
  triagedBy: string;
  /** The same on every retry and every later claim of the event (contract §10.3). */
  deliveryId: string;
  /** Which claim of the event this hand-off belongs to: above 1, an earlier holder may have delivered it. */
  attempt: number;
  /** A person's address on this channel (oncall.yaml `contacts`, §17); absent: the channel's own recipient. */
  to?: string;
  /** The page this message belongs to (§17), when it is a page's. */
  pageId?: string;
  /** What the message tells about its page (§17.4): opening or escalation, join, acknowledged, unacknowledged, resolved. */
  pageKind?: NotificationKind;
  /**
   * What a page's message says (§24.1), for channels that render it in their own form (buttons, a
   * card); `text` is its plain rendering with the way to act. Absent for other messages, and for page
   * notifications stored before it existed (their `text` is what they say).
   */
  page?: PageMessage;
  /** The IANA zone the recipient reads times in (§24.5, oncall/person-zone.ts); with `page`. */
  zone?: string;
  /** One-time links for the addressed person (§18.6), when the agent has an ack source; channels without buttons show them. */
  links?: AckLinks;
  /**
   * What this channel reported (its delivery detail) for the message of this page it last posted to
   * the same recipient — Slack's `channel` and `ts`, Telegram's `chat_id` and `message_id` — so a
   * channel that updates its page messages in place (§18.1, §21.5) edits that one. Absent before the
   * page's first message there.
   */
  pageMessage?: Readonly<Record<string, string>>;
}

/** A person's one-time links to acknowledge or resolve a page (contract §18.6). */
export interface AckLinks {
  ack: string;
  resolve: string;
}

/** The message's text with its one way to act, for channels that carry plain text only. */
export function textWithLinks(message: Pick<OutboundMessage, 'text' | 'links' | 'page'>): string {
  // A page message's text already ends with its links or its command (oncall/page-text.ts).
  if (message.links === undefined || message.page !== undefined) return message.text;
  return `${message.text}\n\nAcknowledge: ${message.links.ack}\nResolve: ${message.links.resolve}`;
}

/**
 * A message's text as a channel shows it. A page message (§24.1) is rendered for its reader: without
 * its first line when the channel shows the title on its own (`title`), and without its line to act
 * by when the channel acts through buttons of its own (`buttons`). Any other message: its text, with
 * the links below it unless the channel has buttons.
 */
export function messageText(message: Pick<OutboundMessage, 'text' | 'links' | 'page' | 'zone'>,
  shows: { buttons?: boolean; title?: boolean } = {}): string {
  if (message.page === undefined) return shows.buttons === true ? message.text : textWithLinks(message);
  const lines = pageLines(message.page, message.zone ?? 'UTC');
  const act = shows.buttons === true ? null : actLine(message.page, message.links ?? null);
  return [...(shows.title === true ? lines.slice(1) : lines), ...(act === null ? [] : [act])].join('\n');
}

/** The person's links that still make sense (§24.1), for channels that show them as buttons of their own. */
export function linkActions(message: Pick<OutboundMessage, 'links' | 'page'>): Array<{ action: 'ack' | 'resolve'; url: string }> {
  if (message.links === undefined) return [];
  if (message.page === undefined) return [{ action: 'ack', url: message.links.ack }, { action: 'resolve', url: message.links.resolve }];
  return actLinks(message.page, message.links);
}

/** What a person can still do about the message's page (§24.1): the model's actions, or for a row stored before it, by its kind. */
export function pageActions(message: Pick<OutboundMessage, 'page' | 'status' | 'pageKind'>): PageAction[] {
  if (message.page !== undefined) return message.page.actions;
  if (message.status === 'resolved' || message.pageKind === 'resolved') return [];
  return actionsIn(message.pageKind === 'acknowledged' ? 'acknowledged' : 'triggered');
}

/**
 * A message that tells of a page's later state — its acknowledgement, its resolution (§21.1 status
 * updates) — rather than asking someone to act: channels that ring a phone send it quietly.
 */
export function isStatusUpdate(message: Pick<OutboundMessage, 'status' | 'pageKind'>): boolean {
  return message.status === 'resolved' || message.pageKind === 'acknowledged' || message.pageKind === 'resolved' || message.pageKind === 'escalated-past'
    || message.pageKind === 'joined-acked';
}

/** A join notice (a round, or a status update to an acknowledged page's holder): a reply under the page's message, never an edit of it. */
export function isJoinNotice(message: Pick<OutboundMessage, 'pageKind'>): boolean {
  return message.pageKind === 'join' || message.pageKind === 'joined-acked';
}

/**
 * Result of one delivery attempt; the dispatcher owns retries and back-off. `shadow`: nothing was
 * sent — a shadow run's channel (shadow-channel.ts) took it, and it is recorded as `message.shadowed`.
 */
export type DeliveryResult =
  | { ok: true; detail: Record<string, string>; receipt?: DeliveryReceipt; shadow?: true }
  | { ok: false; retryable: boolean; error: string; retryAfterMs?: number };

/**
 * The last look before the wire (contract §17.4), given with a page's notification. The channel calls
 * `enter` just before the first byte that commits the message — the write of a file's line, an HTTP
 * request's bytes on a socket already connected — and `leave` as soon as those bytes are with the
 * kernel, or given up; a message sent in parts (Slack's or Telegram's edit, then its thread reply)
 * looks again before each. Everything slow before (connecting, opening a Slack DM) comes first. `enter`
 * false: the page moved on (acknowledged, resolved) — nothing is sent and the channel returns
 * `NOT_SENT`. Between the two no change of the page commits: an acknowledgement waits for `leave`.
 */
export interface WireGate {
  enter(): Promise<boolean>;
  leave(): void;
}

/** What a channel answers when its gate said no. */
export const NOT_SENT: DeliveryResult = { ok: false, retryable: false, error: 'not sent: the page moved on before the message went out' };

/**
 * Runs `write` (the bytes that commit the message) inside the gate; without a gate it just runs.
 * False when the gate said no (nothing written).
 */
export async function throughGate(gate: WireGate | undefined, write: () => Promise<void>): Promise<boolean> {
  if (gate === undefined) {
    await write();
    return true;
  }
  if (!await gate.enter()) return false;
  try {
    await write();
  } finally {
    gate.leave();
  }
  return true;
}

/**
 * A message the vendor keeps repeating until someone answers it (Pushover's emergency priority,
 * §21.3): the vendor's receipt for it, and when the vendor stops repeating it. Stored with the page
 * and watched through the channel's `receipts`.
 */
export interface DeliveryReceipt {
  id: string;
  expiresAtMs: number;
}

/** What the vendor says of a receipt now (§21.3). */
export type ReceiptStatus =
  | { kind: 'pending' }
  /** Answered on the vendor's side: the device that answered, when. */
  | { kind: 'acknowledged'; device: string; atMs: number }
  /** No longer repeated, and nobody answered. */
  | { kind: 'expired' }
  /** The vendor does not know the receipt (any more): nothing left to watch. */
  | { kind: 'gone'; error: string }
  /** Not known now (the vendor down, throttling, a network error): ask again later. */
  | { kind: 'failed'; error: string; retryAfterMs?: number };

/** The outcome of cancelling a receipt: `cancelled` and `gone` are final, `failed` is tried again. */
export type ReceiptCancel = { kind: 'cancelled' } | { kind: 'gone'; error: string } | { kind: 'failed'; error: string; retryAfterMs?: number };

/** How a channel whose messages carry receipts answers questions about them (its credentials stay inside it). */
export interface ReceiptApi {
  poll(receipt: string, signal: AbortSignal): Promise<ReceiptStatus>;
  cancel(receipt: string, signal: AbortSignal): Promise<ReceiptCancel>;
}

/** A message arriving from the chat side (a mention, a DM reply). */
export interface InboundMessage {
  from: string;
  text: string;
}

export interface Channel {
  readonly id: string;
  readonly type: ChannelConfig['type'];
  readonly direction: 'outbound';
  /**
   * The channel keeps a vendor's incident or message in step with the page: besides openings,
   * escalations and resolutions it is told when a page it notified is acknowledged or unacknowledged
   * (PagerDuty §18.4, Slack §18.1).
   */
  readonly followsPageState?: boolean;
  /**
   * The channel rings a phone or pops over (ntfy, Pushover, a Twilio call): a person hears a page's
   * status updates there only when their `statusUpdates` lists it (§21.1).
   */
  readonly rings?: boolean;
  /** The channel edits its page messages in place (§18.1): each send of a page is told its `pageMessage`. */
  readonly updatesPageMessages?: boolean;
  /** The keys of its delivery detail that name such a page message (default Slack's `channel` and `ts`). */
  readonly pageMessageKeys?: readonly string[];
  /** The channel's messages may carry receipts (`DeliveryResult.receipt`): how to ask about them. */
  readonly receipts?: ReceiptApi;
  /** Attempts before dead-lettering, when the channel sets its own. */
  readonly maxAttempts: number | undefined;
  /**
   * One delivery attempt. Never throws: failures are results. With `gate` (a page's notification),
   * the channel takes the last look just before it commits the message to the wire (WireGate).
   */
  send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult>;
  /** Outbound channels ignore inbound messages (spec: "inbound mentions are ignored"). */
  receive(message: InboundMessage): { handled: false; reason: 'outbound-only' };
  ready(): boolean;
  /** Files a channel keeps open are opened afresh on the next write (SIGHUP after a rotation). */
  reopen?(): void;
  close(): Promise<void>;
}
