/**
 * The store: the only door to data (contract §10). Events and their claims, dead letters, idempotency
 * fingerprints, the audit chain, SIEM export cursors, backup and retention all go through this
 * interface; `open-store.ts` picks the implementation (SQLite embedded, PostgreSQL for replicas) and is
 * the only code that knows which. Every implementation passes the shared contract suite
 * (test/support/store-contract.ts).
 *
 * Time: no implementation reads a clock. Calls that depend on time carry `nowMs` from the caller's
 * injected clock, so tests drive leases, windows and retention with fake time.
 *
 * Payloads and audit data travel as their stored JSON text: ingest stores the body it verified, views
 * embed the text in their answers, and nothing parses a megabyte only to print it again.
 */
import type { VerifyResult } from '../audit/chain.js';
import type { AuditRow, NewAuditEntry, StoredAuditRow } from '../audit/audit-row.js';
import type { Silence } from '../oncall/oncall-config.js';
import type { HandoffNotice, HandoffPlan } from '../oncall/handoff-plan.js';
import type { PageNotification, PagePlan } from '../oncall/page.js';
import type {
  ApplyResult, ChannelRoom, ClaimOnCommit, DueClaim, HandoffTimer, HeartbeatSeen, NotificationClaim, NotificationOutcome, OpenPageCount, PageFilter,
  Quarantined, SendHold, SendRef, StoredOverride, StoredPage, StoredSilence,
} from './oncall-store.js';
import type { ReportFactsStore } from './report-facts.js';
import type { ReportReads, ReportRows, ReportWindow } from './report-rows.js';
import type { ReceiptStore } from './receipt-store.js';
import type { StoreTransfer } from './transfer.js';

export type EventStatus = 'accepted' | 'processing' | 'processed' | 'dead-lettered' | 'suppressed';
export const EVENT_STATUSES: readonly EventStatus[] = ['accepted', 'processing', 'processed', 'dead-lettered', 'suppressed'];
/**
 * Statuses an event never leaves by itself: retention may delete it. `suppressed` (contract §17.8):
 * every alert matched a live silence when it arrived, so it was stored finished and nobody is paged.
 */
export const FINISHED_EVENT_STATUSES: readonly EventStatus[] = ['processed', 'dead-lettered', 'suppressed'];
/** FINISHED_EVENT_STATUSES as an SQL list, for the stores' retention queries. */
export const FINISHED_EVENT_STATUSES_SQL = FINISHED_EVENT_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * An event as stored (contract §5). A row whose columns cannot be decoded is still listed, with
 * `corrupt: true`, its unreadable fields null or empty (contract §11.5).
 */
export interface EventRecord {
  id: string;
  ts: string;
  agentId: string;
  sourceId: string;
  kind: string;
  fingerprint: string | null;
  status: EventStatus;
  /** The stored JSON text of the payload; null when the row is corrupt. */
  payloadText: string | null;
  corrupt?: true;
}

export interface NewEvent {
  agentId: string;
  sourceId: string;
  kind: string;
  fingerprint: string | null;
  /** JSON text, already validated by ingest (a JSON object within the nesting limit). */
  payloadText: string;
}

export interface DeadLetterRecord {
  id: string;
  ts: string;
  agentId: string;
  sourceId: string;
  eventId: string;
  reason: string;
  error: string;
  attempts: number;
  payloadText: string | null;
  /** Set when the dead letter was put back in the queue (`svc dlq replay`). */
  replayedAt: string | null;
  corrupt?: true;
}

export interface NewDeadLetter {
  reason: string;
  error: string;
  attempts: number;
}

/** A listed audit row: as stored, `dataText` null when the row is corrupt. */
export type ListedAuditRow = Omit<StoredAuditRow, 'dataText'> & { dataText: string | null; corrupt?: true };

/**
 * A row of an event's story (contract §20.3), as stored, with the hash of the row just before it and
 * the prevHash of the row just after it (null when there is none), so the caller can check the row's
 * links on both sides as well as its hash.
 */
export type StoryRow = StoredAuditRow & { predecessorHash: string | null; successorPrevHash: string | null; corrupt?: true };

/** Most rows an event's story returns (the oldest ones); a story longer than this says so. */
export const STORY_ROW_LIMIT = 5000;

export type IngestResult =
  | { outcome: 'accepted'; event: EventRecord }
  | { outcome: 'duplicate'; eventId: string };

/** A claim on an event (contract §10.2): who holds it, and which claim of the event it is. */
export interface ClaimRef {
  eventId: string;
  owner: string;
  /** 1 for the first claim, +1 for every later one (a crashed or expired holder's event claimed again). */
  attempt: number;
}

/** A claimed event: the event and the claim its completion must present. */
export interface ClaimedEvent {
  event: EventRecord;
  claim: ClaimRef;
  /** Ms since the epoch at which the lease runs out unless renewed. */
  leaseUntilMs: number;
  /**
   * What earlier rounds of delivery left (runtime/dispatch/delivery-state.ts: which channels delivered,
   * which keep failing since when, the triage to send again), as the text the runtime wrote; null before
   * the first round ends.
   */
  delivery: string | null;
}

export interface ClaimRequest {
  owner: string;
  agentId: string;
  /** At most this many events... */
  limit: number;
  /** ...and no more once their payloads add up to this many bytes (at least one event is claimed). */
  maxBytes: number;
  leaseMs: number;
  nowMs: number;
}

/**
 * How a claimed event ends. Each is applied only while the claim still holds (same owner and attempt):
 * a worker whose lease was taken cannot overwrite the new holder's result. Its audit rows are
 * appended in the same transaction.
 */
export type Completion =
  | { claim: ClaimRef; outcome: 'processed'; audit: NewAuditEntry[]; delivery?: string }
  | { claim: ClaimRef; outcome: 'dead-lettered'; deadLetter: NewDeadLetter; audit: NewAuditEntry[]; delivery?: string }
  /**
   * Gives the event back (status accepted) to be claimed again at `dueMs`, not before: a delivery that
   * keeps failing waits in the store, not under a lease. `delivery` is stored for the next round.
   */
  | { claim: ClaimRef; outcome: 'retry'; dueMs: number; delivery: string; audit: NewAuditEntry[] }
  /** Gives the event back (status accepted) without an outcome: shutdown, or a gate that closed. */
  | { claim: ClaimRef; outcome: 'released' };

export type CompletionResult = { ok: true; deadLetterId?: string } | { ok: false; reason: 'claim-lost' };

export type Order = 'asc' | 'desc';

/** Keyset page request. `cursor` is the opaque string of a previous page's `nextCursor`. */
export interface PageQuery {
  limit: number;
  cursor: string | null;
  order: Order;
  sinceMs: number | null;
  untilMs: number | null;
}

export interface EventFilter { agent?: string; source?: string; kind?: string; status?: string }
export interface DeadLetterFilter { agent?: string; source?: string; reason?: string }
export interface AuditFilter { kind?: string; agent?: string }

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A page already encoded as the views answer it (store/record-json.ts). */
export interface JsonPage {
  /** UTF-8 of a JSON array of the records, in a buffer of its own. */
  items: Uint8Array;
  count: number;
  nextCursor: string | null;
}

export type View = 'events' | 'dlq' | 'audit';
export type ViewFilter<V extends View> = V extends 'events' ? EventFilter : V extends 'dlq' ? DeadLetterFilter : AuditFilter;

/** Most bytes of payload or data text one page carries (contract §11.4); the page ends early past it. */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

export interface BacklogCount {
  agentId: string;
  sourceId: string;
  /** Events accepted or processing. */
  count: number;
}

export interface RetentionPolicy {
  /** Finished events (FINISHED_EVENT_STATUSES) older than this go (never a pending one, nor one a dead letter points at). */
  eventsBeforeMs: number | null;
  deadLettersBeforeMs: number | null;
  /** Idempotency fingerprints last seen before this (the window has passed them). */
  fingerprintsBeforeMs: number | null;
  /** Rows deleted per call, so one call never holds the writer long. */
  batch: number;
}

/** Through what an operator asked for a replay, an override or a silence (the console), recorded as `via` in its audit rows. */
export type ReplayVia = 'console';

/** Through the console, and as which person of oncall.yaml (contract §24.6): the audit row's data names them as `by`. */
export interface ActedThrough {
  via: ReplayVia;
  by?: string;
}

/** The `via` (and `by`) fields of an audit row's data: present only when the operator acted through the console. */
export function viaField(via: ReplayVia | ActedThrough | undefined): { via?: ReplayVia; by?: string } {
  if (via === undefined) return {};
  if (typeof via === 'string') return { via };
  return via.by === undefined ? { via: via.via } : { via: via.via, by: via.by };
}

export interface DeadLetterSelection {
  ids?: readonly string[];
  sourceId?: string;
  reason?: string;
  /** Without ids: only letters after this seq (a previous chunk's `lastSeq`). */
  afterSeq?: number;
  /** Without ids: at most this many letters, the oldest first, so one call is one bounded transaction. */
  limit?: number;
}

export interface ReplayResult {
  replayed: string[];
  missing: string[];
  /** With `limit`: seq of the last letter looked at (the next chunk's `afterSeq`); absent when none was. */
  lastSeq?: number;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';

  /**
   * Stores an event unless its fingerprint was seen for the same agent and source within the store's
   * idempotency window (an option of the store, given when it opens) before `nowMs`. The fingerprint, the event and its
   * `event.accepted` audit row are one transaction:
   * when this resolves, the event is durable. An event every alert of which matches a silence live at
   * `nowMs` (oncall/silence-match.ts, read in the same transaction) is stored `suppressed`, with an
   * `event.suppressed` row naming the silences: no dispatcher ever claims it (contract §17.8).
   */
  ingestEvent(event: NewEvent, nowMs: number): Promise<IngestResult>;

  /**
   * Claims the agent's oldest events that are accepted (and due: a retry waits for its `dueMs`), or
   * processing with a lease that ran out, for `owner` until `nowMs + leaseMs`. Never hands one event to
   * two holders at once.
   */
  claimEvents(request: ClaimRequest): Promise<ClaimedEvent[]>;
  /** Extends the leases still held; returns the claims that were lost (taken by another holder). */
  renewLeases(claims: readonly ClaimRef[], leaseMs: number, nowMs: number): Promise<ClaimRef[]>;
  /** Applies completions in one transaction (group commit); one result per completion, in order. */
  completeEvents(completions: readonly Completion[], nowMs: number): Promise<CompletionResult[]>;
  /**
   * Gives back every claim whose owner starts with `ownerPrefix` (a previous run of this replica),
   * so its events need not wait out their leases. Returns how many.
   */
  releaseClaims(ownerPrefix: string): Promise<number>;
  /** Accepted + processing events by agent and source. */
  backlog(): Promise<BacklogCount[]>;

  /** Puts dead letters back in the queue (event accepted and due at once, `replayedAt` set, audit row). */
  replayDeadLetters(selection: DeadLetterSelection, actor: string, nowMs: number, via?: ReplayVia): Promise<ReplayResult>;

  /** Appends one audit row; appends are serialised so the chain never forks. */
  appendAudit(entry: NewAuditEntry, nowMs: number): Promise<AuditRow>;
  /** Rows with seq > afterSeq in seq order, as stored: what verification hashes and export ships. */
  readAudit(afterSeq: number, limit: number): Promise<StoredAuditRow[]>;
  /**
   * Every audit row that concerns the event (its data names it as `eventId`) and
   * every row of a page those rows name (`pageId`: the page it opened, joined or resolved, with its
   * notices, escalations and acknowledgements), in seq order, at most STORY_ROW_LIMIT + 1 of them;
   * empty when no row names it. Read from the hashed rows themselves (story-rows.ts), through the
   * database's indexes over what they name: costs the same whatever the length of the chain.
   */
  eventStory(eventId: string): Promise<StoryRow[]>;
  /** The chain's last row (seq, hash, time); null when it is empty. */
  auditHead(): Promise<{ seq: number; hash: string; tsMs: number } | null>;
  /**
   * Verifies the whole chain up to its head when the run starts (contract §5), without stalling the
   * caller, judging the rows as committed when the call is made (§20.1): a call never shares a run
   * that began before it; calls made during a run share the next one. With `afterSeq`, the rows after
   * it (the first must link to row `afterSeq` as stored; the story of an event checks from its first
   * row, §20.3): `checked` counts those rows, a run shared with a wider call may check more.
   */
  verifyAudit(afterSeq?: number): Promise<VerifyResult>;

  listEvents(query: PageQuery, filter: EventFilter): Promise<Page<EventRecord>>;
  listDeadLetters(query: PageQuery, filter: DeadLetterFilter): Promise<Page<DeadLetterRecord>>;
  listAudit(query: PageQuery, filter: AuditFilter): Promise<Page<ListedAuditRow>>;
  /**
   * A page of a view encoded as the control plane answers it (store/record-json.ts), built where the
   * rows are read: a large page never costs the caller's event loop more than a buffer hand-over.
   */
  listJson<V extends View>(view: V, query: PageQuery, filter: ViewFilter<V>): Promise<JsonPage>;
  /** One event by its id (the console's event view), through the unique index; null when there is none. */
  getEvent(id: string): Promise<EventRecord | null>;

  /** Seq of the last audit row the SIEM exporter `exporterId` had acknowledged; 0 when it never exported. */
  exportCursor(exporterId: string): Promise<number>;
  /** Durable when it resolves; only ever moves forward (a late or repeated ack is ignored). */
  advanceExportCursor(exporterId: string, seq: number, nowMs: number): Promise<void>;

  /**
   * Holds or takes the leader lease for `holder` until `nowMs + leaseMs` (contract §16.4): true while
   * `holder` leads. One replica at a time runs the SIEM exporters and retention. A store only one
   * process can use (SQLite) always answers true.
   */
  acquireLeadership(holder: string, leaseMs: number, nowMs: number): Promise<boolean>;
  /** Gives the leader lease up, if `holder` has it (a clean shutdown hands over at once). */
  releaseLeadership(holder: string): Promise<void>;
  /** Writes a tiny durable row: rejects when the store cannot be written (readiness, contract §13). */
  probeWrite(nowMs: number): Promise<void>;

  /** Deletes a batch of expired rows (contract §10.5); the audit chain is never pruned. */
  prune(policy: RetentionPolicy): Promise<{ events: number; deadLetters: number; fingerprints: number }>;
  /** A consistent copy of the whole store in a new file at `path`, taken while it runs. */
  backup(path: string): Promise<{ bytes: number }>;

  /**
   * Rows as stored, for `svc store copy` (contract §16.7) and nothing else: keyset reads on any store,
   * imports of already-hashed rows into an empty one (transfer.ts).
   */
  readonly transfer: StoreTransfer;

  /** Pages and their timers, page notifications, overrides, silences, heartbeats (contract §17, oncall-store.ts). */
  readonly oncall: OncallStore;
  /** Vendor receipts kept with their pages (contract §21.3, receipt-store.ts). */
  readonly receipts: ReceiptStore;

  close(): Promise<void>;
}

/**
 * The on-call part of the store (contract §17.4): pages and their due timers, the outbox of page
 * notifications, overrides, silences, heartbeats. The page planner (oncall/page-plan.ts) decides what
 * an action writes; a store persists that plan in one transaction, onto the page version it was
 * planned from. Every implementation passes test/support/oncall-store-contract.ts.
 */
export interface OncallStore {
  /**
   * Persists a plan (page, audit rows, notifications) in one transaction, or nothing when the page
   * moved on. With `claim`, the notifications are written claimed by that sender (attempt 1) and
   * returned in `claimed`: a freshly opened page's first round goes out without an outbox claim.
   */
  applyPagePlan(plan: PagePlan, nowMs: number, claim?: ClaimOnCommit): Promise<ApplyResult>;
  /**
   * Remembers that the stored event `eventId` resolved the agent's incident `incidentKey`, by the
   * event's place in the order events were received (its seq), keeping the latest such resolve. A
   * plan for a firing event received before it is then `superseded` (PagePlan.firingEventId), however
   * late that firing's triage ends; a firing received after it pages as ever. Serialised with page
   * plans (the writer; the chain head on PostgreSQL): call it before looking for the page to resolve,
   * and a firing racing it either opened that page first or is superseded.
   */
  noteResolve(agentId: string, incidentKey: string, eventId: string, nowMs: number): Promise<void>;
  /** Writes notifications that belong to no page (a route's `notify:`) with their audit rows. */
  writeNotifications(notifications: readonly PageNotification[], audit: readonly NewAuditEntry[], nowMs: number): Promise<void>;
  /** A page as stored; a damaged row comes back as what its columns say, marked corrupt (never thrown). */
  getPage(id: string): Promise<StoredPage | null>;
  /** The open page of an incident key, else the one resolved last; null when the key never paged. */
  findPage(agentId: string, incidentKey: string): Promise<StoredPage | null>;
  /**
   * Claims up to `limit` pages whose due time has come and whose timer nobody holds, for `owner`
   * until `nowMs + leaseMs` (one replica at a time: `FOR UPDATE SKIP LOCKED` on PostgreSQL). A claim
   * is not the fence: the plan applied afterwards is (its page version). A due page whose body cannot
   * be decoded is quarantined in the same transaction (`quarantinePage`) and returned as such, never
   * thrown: the rest of the batch fires.
   */
  claimDuePages(owner: string, nowMs: number, leaseMs: number, limit: number): Promise<DueClaim>;
  /**
   * Sets a damaged page aside: its timer stopped and its incident key freed (the row counts as closed,
   * so the next alert of the key opens a new page), the row kept as found, a `page.quarantined` row
   * written. Null when the row decodes after all, or was set aside already.
   */
  quarantinePage(id: string, nowMs: number): Promise<Quarantined | null>;
  /**
   * Hands out notifications that are due, for `owner` until `nowMs + leaseMs`. In the same
   * transaction, an escalation notification of a page no longer triggered (acknowledged or resolved)
   * is cancelled instead — that transaction is the hand-off to a channel, so nothing of a page's
   * escalation is handed over after its acknowledgement committed (§17.4). One page's messages to one
   * channel go in order: a notification waits while an earlier one of its page to its channel is
   * pending (in flight, or waiting for a retry) — until that one is delivered, given up, or cancelled.
   * A row whose body cannot be decoded is given up in the same transaction (`notification.quarantined`).
   * With `room`, no channel gets more than the sender can take of it: the rest of that channel's rows
   * are left where they are, and the claim reads further down the outbox for the others.
   */
  claimNotifications(owner: string, nowMs: number, leaseMs: number, limit: number, room?: ChannelRoom): Promise<NotificationClaim>;
  /**
   * The last look before a claimed notification goes on the wire, held: read with the page as
   * committed, an acknowledgement (or resolution) that committed since the claim cancels an escalation
   * here, audited as `page.notice-cancelled` (on the page's timeline); with `send`, no change of the
   * page's state commits until the hold is released. Taken by the channel just before it commits the
   * message to the wire (oncall-store.ts SendHold), so an ack racing a send either stops it or comes
   * after it (§17.4).
   */
  holdSend(ref: SendRef, nowMs: number): Promise<SendHold>;
  /**
   * Gives back every notification claim and timer lease whose owner starts with `ownerPrefix` (a
   * previous run of this replica): they are handed out again at once, not after their lease — a page's
   * later messages to a channel wait for its earlier one. Returns how many.
   */
  releaseClaims(ownerPrefix: string): Promise<number>;
  /** Records outcomes while the claim still holds (same owner and attempt); returns how many applied. */
  finishNotifications(outcomes: readonly NotificationOutcome[], nowMs: number): Promise<number>;
  listPages(query: PageQuery, filter: PageFilter): Promise<Page<StoredPage>>;
  /** The page's audit rows in seq order (§17.9 timeline): every row whose data names it as `pageId` (story-rows.ts). */
  pageTimeline(pageId: string): Promise<ListedAuditRow[]>;
  openPageCounts(): Promise<OpenPageCount[]>;

  /** Stores an override; `told` (oncall/override-handoff.ts: it changed who is on call now) commits with it. */
  addOverride(override: StoredOverride, nowMs: number, via?: ReplayVia | ActedThrough, told?: HandoffNotice): Promise<void>;
  /** Removes an override, and writes `told` with it; null (and nothing written) when there is none with that id. */
  removeOverride(id: string, actor: string, nowMs: number, via?: ReplayVia | ActedThrough, told?: HandoffNotice): Promise<StoredOverride | null>;
  /** Overrides of the agent (all agents when null) that end after `endsAfterMs`. */
  listOverrides(agentId: string | null, endsAfterMs: number): Promise<StoredOverride[]>;

  addSilence(silence: Silence, nowMs: number, via?: ReplayVia | ActedThrough): Promise<void>;
  expireSilence(id: string, actor: string, nowMs: number, via?: ReplayVia | ActedThrough): Promise<StoredSilence | null>;
  /** Silences live at `nowMs` or ended after `endedAfterMs`. */
  listSilences(endedAfterMs: number): Promise<StoredSilence[]>;

  /** Every schedule's handoff timer as stored. */
  listHandoffs(): Promise<HandoffTimer[]>;
  /**
   * Moves a schedule's handoff timer from `expectedNextMs` (undefined: no row yet) to `nextMs` with
   * the plan's audit rows and notifications, in one transaction; false (nothing written) when the
   * timer is no longer at `expectedNextMs` — another replica or an earlier run told this handoff.
   */
  applyHandoffPlan(plan: HandoffPlan, nowMs: number): Promise<boolean>;

  /**
   * What a report (contract §23) reads: the pages opened in the window and their audit rows of the
   * page kinds, read in bounded chunks (report-rows.ts `readReportRows`, the one rule for both stores).
   */
  reportRows(window: ReportWindow): Promise<ReportRows>;
  /** The reads `reportRows` is made of, for a reader that keeps what it read (report/report-cache.ts). */
  readonly reportReads: ReportReads;
  /** The report cache's checkpoint (report-facts.ts): derived data, saved by the cache and loaded when it starts. */
  readonly reportFacts: ReportFactsStore;

  /**
   * Claims `key` until `untilMs`: true the first time, false while an earlier claim of it holds (a
   * replayed request: a signed Slack click sent again within its 300 s). Shared by every replica;
   * claims whose time has passed are removed as new ones come.
   */
  claimOnce(key: string, untilMs: number, nowMs: number): Promise<boolean>;
  /** Records that matching deliveries arrived (duplicates too, §17.7). */
  touchHeartbeats(agentId: string, heartbeatIds: readonly string[], nowMs: number): Promise<void>;
  listHeartbeats(): Promise<HeartbeatSeen[]>;

  /**
   * The offset a vendor's update feed is read from next, by feed (a Telegram bot's `getUpdates`, §21.5:
   * `telegram:<bot id>`); null before its first read. The leader that polls stores it after each batch,
   * so a restart or another replica taking over goes on from there.
   */
  pollOffset(feed: string): Promise<number | null>;
  savePollOffset(feed: string, offset: number, nowMs: number): Promise<void>;
}
