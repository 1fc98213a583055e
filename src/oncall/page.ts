/**
 * A page (contract §17.3–§17.4) as the page planner reads and writes it and the stores persist it.
 * Everything a step needs is in the row: the policy snapshot it opened under (editing oncall.yaml never
 * changes an open page), where it stands (step, loop), the one due time the timer queue fires, and a
 * `version` that every change bumps — a plan is applied only to the version it was planned from, so
 * an ack and a timer that race cannot both win, on one process or on several replicas.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Policy, Severity } from './oncall-config.js';
import type { PageAlerts } from './page-alert.js';
import type { Happened, PageMessage } from './page-message-model.js';

export const PAGE_STATES = ['triggered', 'acknowledged', 'resolved'] as const;
export type PageState = (typeof PAGE_STATES)[number];

/** Page ids are short enough to type (`svc ack p3k9x2mfq`) and hold no `.` (deliveryIds join on it). */
export const PAGE_ID_PATTERN = /^p[a-z0-9]{8,31}$/;

/** Who was told about a page on which channel: everyone here hears of its resolution. */
export interface Notified {
  person: string;
  channel: string;
  /** Null: the channel's own recipient. */
  to: string | null;
}

export interface PageRecord {
  id: string;
  agentId: string;
  incidentKey: string;
  state: PageState;
  exhausted: boolean;
  /** The policy the page opened under, as it was then. */
  policy: Policy;
  policySha256: string;
  /** 1-based step of the policy the page stands at. */
  step: number;
  /** Loops completed over all steps (0 on the first pass). */
  loop: number;
  /** Times the page has notified anyone (§17.4); committed before that round is sent. */
  round: number;
  openedAtMs: number;
  acknowledgedAtMs: number | null;
  acknowledgedBy: string | null;
  resolvedAtMs: number | null;
  resolvedBy: string | null;
  /** When the next step fires while triggered; null when exhausted, acknowledged or resolved. */
  nextEscalationAtMs: number | null;
  /** When an acknowledged page returns to triggered (ackTimeout); null otherwise. */
  ackTimeoutAtMs: number | null;
  /** Joins not yet told (inside the minute after the last join notice), and when they will be. */
  pendingJoins: number;
  joinNoticeAtMs: number | null;
  lastJoinNoticeAtMs: number | null;
  eventIds: string[];
  title: string;
  severity: Severity;
  /**
   * What the opening event says about itself — runbook, source and Alertmanager links, one per line —
   * shown in every message that asks for action, whoever triaged the event. Absent on pages stored
   * before it existed, and for payloads that carry none.
   */
  facts?: string[];
  /** What the page's alerts say (§24.1: summary, instance, links), for its messages; absent on pages stored before. */
  alerts?: PageAlerts;
  notified: Notified[];
  /**
   * Times the page was reopened (§17 `reopenWindow`) and when it last was; absent on a page never
   * reopened. Each opening is an incarnation of the page: links minted in one do not act in the next
   * (oncall/ack-token.ts), and a heartbeat seen before the page last opened does not resolve it.
   */
  reopens?: number;
  reopenedAtMs?: number;
  /**
   * People's later notification rules still to come (§21.1), earliest first: durable timers of the
   * page, cancelled by an ack or a resolve. Absent: none (and on pages stored before they existed).
   */
  personalSteps?: PersonalStep[];
  /**
   * The identities (`<fingerprint>@<startsAt>`) of the firing alerts the page has heard of (§24.4), at
   * most MAX_PAGE_ALERTS, the newest kept: a delivery naming only these is a repeat, not news. Absent on
   * pages stored before it existed and for payloads without alerts (every delivery then joins).
   */
  alertIds?: string[];
  version: number;
}

/** One later rule of a person's `notify` (§21.1), due at `atMs`: its own round when it fires. */
export interface PersonalStep {
  person: string;
  /** The rule's index in the person's `notify` (1 and up: rule 0 goes out in the round that named them). */
  rule: number;
  atMs: number;
  /** The rule's contacts with their addresses as they were when the round named the person. */
  contacts: { channel: string; to: string | null }[];
  /** What the round that named the person said, as text (UTC): what a step stored before `happened` sends. */
  text: string;
  /** What happened in the round that named the person: the step's message says it again (§24.1), with who is paged as of then. */
  happened?: Happened;
}

/** Which opening of the page this is: 0 until it is first reopened. */
export function incarnationOf(page: Pick<PageRecord, 'reopens'>): number {
  return page.reopens ?? 0;
}

/** When the page's current incarnation opened: its last reopening, else its opening. */
export function incarnationOpenedAtMs(page: Pick<PageRecord, 'openedAtMs' | 'reopenedAtMs'>): number {
  return page.reopenedAtMs ?? page.openedAtMs;
}

/** The earliest of a page's timers: the one the store's timer queue orders by. */
export function dueAtMs(page: Pick<PageRecord, 'nextEscalationAtMs' | 'ackTimeoutAtMs' | 'joinNoticeAtMs' | 'personalSteps'>): number | null {
  const times = [page.nextEscalationAtMs, page.ackTimeoutAtMs, page.joinNoticeAtMs, ...(page.personalSteps ?? []).map((s) => s.atMs)]
    .filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/**
 * What a notification is for. `escalation` ones (opening, a step, an ack timeout, exhaustion, a
 * person's later rule, §21.1) go out only while the page is triggered: an acknowledgement that
 * commits first cancels them (§17.4).
 */
export const NOTIFICATION_KINDS = ['escalation', 'join', 'resolved', 'notify', 'acknowledged', 'unacknowledged',
  /** A person's shift started (§17.6 `schedule.handoff`): no page, never stale. */
  'handoff',
  /** A status update (§21.1): an escalation climbed past the person, who is told whom it pages now. */
  'escalated-past',
  /** A status update (§21.1, §21.7): an event joined an acknowledged page; its holder alone is told, quietly. */
  'joined-acked'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * Whether a notification no longer tells the truth when it is claimed, given its page's state then:
 * an escalation or a join round of a page no longer triggered (nothing rings after an ack commits,
 * §21.7), a state change (`acknowledged`, `unacknowledged`, sent to channels that follow the page's
 * state, §18.4) the page has since left, an escalation past a person or a join told to the holder
 * after the resolve. Such a notification is cancelled instead of sent.
 */
export function isStaleNotification(kind: string, state: string | null | undefined): boolean {
  if (kind === 'escalation' || kind === 'join' || kind === 'unacknowledged') return state !== 'triggered';
  if (kind === 'acknowledged') return state !== 'acknowledged';
  return (kind === 'escalated-past' || kind === 'joined-acked') && state === 'resolved';
}

/** The `person` of a notification to a channel target (nobody in particular). */
export const CHANNEL_TARGET = '-';

/** An outbound message a plan commits; the page notifier hands it to its channel at least once. */
export interface PageNotification {
  /** `<pageId>.<round>.<personId>.<channelId>` (`-` for a channel target); for a route's notify: `<eventId>.notify.<person>.<channel>`. */
  deliveryId: string;
  pageId: string | null;
  agentId: string;
  kind: NotificationKind;
  eventId: string;
  channelId: string;
  person: string;
  /** The person's address on the channel; null sends to the channel's own recipient. */
  to: string | null;
  severity: Severity;
  status: 'firing' | 'resolved';
  title: string;
  /** The message as text (in UTC, with the `svc ack` line): what a notification stored before `message` existed sends. */
  text: string;
  /** What the message says (§24.1), rendered for its recipient when sent; absent on rows stored before it existed. */
  message?: PageMessage;
  /** The page's incarnation when the notification was planned (its ack links are bound to it); absent: its first opening. */
  incarnation?: number;
  /** A person's later rule this notification is (§21.1): its index in their `notify`; absent: the round's own. */
  rule?: number;
}

/**
 * What one action on a page writes, in one transaction: the page as it becomes (inserted when
 * `expectedVersion` is null, else updated only if still at that version), its audit rows and the
 * notifications it sends.
 */
export interface PagePlan {
  page: PageRecord;
  expectedVersion: number | null;
  audit: NewAuditEntry[];
  notifications: PageNotification[];
  /**
   * The alert event (a stored event's id) whose firing this plan opens, reopens or joins the page for.
   * The store applies the plan only if no resolve of the page's incident key was received after that
   * event (OncallStore.noteResolve): a resolve that overtook its firing in triage wins (§17.3).
   */
  firingEventId?: string;
}
