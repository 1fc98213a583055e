/**
 * The rows of the on-call part of the store (contract §17.4; the `OncallStore` interface is in store.ts): pages and their due timers, the outbox of page
 * notifications, schedule overrides, silences and heartbeats. The page planner (oncall/page-plan.ts)
 * decides what an action writes; a store persists that plan in one transaction with its audit rows
 * and notifications, and only onto the page version it was planned from (a racing ack and timer
 * cannot both win). Every implementation passes the on-call cases of test/support/store-contract.ts.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { Override, Silence } from '../oncall/oncall-config.js';
import type { PageNotification, PageRecord, PageState } from '../oncall/page.js';
import type { PageReceipt } from './receipt-store.js';

/**
 * A plan's outcome. `claimed`, only when the plan was applied with a `ClaimOnCommit`: its
 * notifications written already claimed, in the plan's own transaction (those whose deliveryId the
 * outbox did not hold yet).
 */
export type ApplyResult = { ok: true; claimed?: ClaimedNotification[] } | { ok: false; reason: 'conflict' }
  /** The plan's firing event is older than a resolve of its incident key the store holds (`resolvedBy`, that resolve's event): nothing written. */
  | { ok: false; reason: 'superseded'; resolvedBy: string };

/**
 * Claim a plan's notifications for this sender as they are written: the caller sends them straight
 * away, sparing the outbox claim's round trip and commit. A sender that dies first leaves them to
 * the outbox when the lease ends, like any claim.
 */
export interface ClaimOnCommit {
  owner: string;
  leaseMs: number;
}

/** A notification handed to this sender: the claim its outcome must present. */
export interface ClaimedNotification {
  notification: PageNotification;
  owner: string;
  /** 1 for the first hand-off, +1 for every later one (a crashed sender's notification claimed again). */
  attempt: number;
  /** When it was queued (its outbox row's `created_ms`): its delivery window starts there. */
  queuedAtMs: number;
}

/** The claim a sender presents for its last look before handing a notification to its channel. */
export interface SendRef {
  deliveryId: string;
  /** Its page (null for a notification of no page): the fence is the page's. */
  pageId: string | null;
  owner: string;
  attempt: number;
}

/**
 * The last look's answer: `send` it now; `cancelled` (its page was acknowledged or resolved since the
 * claim: not sent, a `page.notice-cancelled` row says so); `lost` (the claim no longer holds: another
 * sender has it, or it ended).
 */
export type SendCheck = 'send' | 'cancelled' | 'lost';

/**
 * The last look, held (contract §17.4): with `send`, the page cannot change state — no ack or resolve
 * commits — until `release` is called, so what the channel commits to the wire meanwhile (a file's
 * line, an HTTP request) is committed before any acknowledgement that comes after the look. Release it
 * as soon as those bytes are handed to the kernel (or given up): an ack of the page waits for it.
 */
export type SendHold = { check: 'send'; release(): Promise<void> } | { check: 'cancelled' | 'lost' };

/** Audit kind of a notification cancelled at the last look (§17.4: nothing of an escalation after the ack). */
export const NOTICE_CANCELLED = 'page.notice-cancelled';

/**
 * Audit kinds of a row set aside because it cannot be decoded (damaged on disk, edited by hand): a page
 * whose body is not a page, an outbox row whose body is not a notification. Its data names the row and
 * the reason, never the row's content.
 */
export const PAGE_QUARANTINED = 'page.quarantined';
export const NOTIFICATION_QUARANTINED = 'notification.quarantined';

/** A row set aside: which table, its id (a page id or a deliveryId), and why it cannot be read. */
export interface Quarantined {
  kind: 'page' | 'notification';
  id: string;
  agentId: string | null;
  pageId: string | null;
  reason: string;
}

/**
 * A page row whose body cannot be read as a page: what its columns still say, marked `corrupt`
 * (contract §11.5: listed, never a 500, never planned on). `reason` says what is wrong, never quotes it.
 */
export interface DamagedPage {
  corrupt: true;
  id: string;
  agentId: string;
  incidentKey: string;
  state: PageState;
  policy: string;
  /** The row's `ts_ms` (0 when even that is unreadable). */
  openedAtMs: number;
  reason: string;
}

/** A page as a store reads it: the record, or what is left of a damaged one. */
export type StoredPage = PageRecord | DamagedPage;

export function isDamagedPage(page: StoredPage): page is DamagedPage {
  return 'corrupt' in page;
}

/** What a claim of due timers found: the pages to fire, and the rows it set aside instead. */
export interface DueClaim {
  pages: PageRecord[];
  quarantined: Quarantined[];
}

/** One channel of one agent. */
export interface ChannelRef {
  agentId: string;
  channelId: string;
}

/**
 * What a sender can take of each channel: at most `max` sends under way to one channel, `busy` those
 * under way now. A claim hands out no more than that and reads further down the outbox for the others.
 */
export interface ChannelRoom {
  max: number;
  busy: ReadonlyArray<ChannelRef & { count: number }>;
}

/** How many due rows a claim that passes over full channels reads, per notification it may hand out. */
export const ROOM_READ_FACTOR = 4;

/** What a claim of the outbox found: the notifications handed to this sender, and the rows it set aside instead. */
export interface NotificationClaim {
  claimed: ClaimedNotification[];
  quarantined: Quarantined[];
}

export type NotificationOutcome = {
  deliveryId: string;
  owner: string;
  attempt: number;
  audit: NewAuditEntry[];
} & (
  /** `receipt`: the vendor's receipt of a message it repeats until answered (§21.3), stored with the outcome. */
  | { outcome: 'delivered'; receipt?: PageReceipt }
  /** Given up: not retried. */
  | { outcome: 'failed'; error: string }
  /** Tried again at `retryAtMs` (with the same deliveryId). */
  | { outcome: 'retry'; retryAtMs: number; error: string }
);

export interface PageFilter { agent?: string; state?: PageState; policy?: string }

export interface StoredOverride extends Override {
  createdAtMs: number;
  createdBy: string;
}

export interface StoredSilence extends Silence {
  /** When it was expired by hand (`svc silence expire`); null otherwise. */
  expiredAtMs: number | null;
}

export interface HeartbeatSeen {
  agentId: string;
  heartbeatId: string;
  lastSeenMs: number;
}

export interface OpenPageCount {
  agentId: string;
  state: Exclude<PageState, 'resolved'>;
  count: number;
}

/** A schedule's handoff timer (§17.6): when its answer next changes; null when not within the horizon. */
export interface HandoffTimer {
  agentId: string;
  scheduleId: string;
  nextMs: number | null;
}
