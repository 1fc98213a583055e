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
import type { StoreTransfer } from './transfer.js';

export type EventStatus = 'accepted' | 'processing' | 'processed' | 'dead-lettered';
export const EVENT_STATUSES: readonly EventStatus[] = ['accepted', 'processing', 'processed', 'dead-lettered'];

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
  | { claim: ClaimRef; outcome: 'processed'; audit: NewAuditEntry[] }
  | { claim: ClaimRef; outcome: 'dead-lettered'; deadLetter: NewDeadLetter; audit: NewAuditEntry[] }
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

export interface EventFilter { agent?: string; source?: string; kind?: string }
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
  /** Processed and dead-lettered events older than this go (never a pending one, nor one a dead letter points at). */
  eventsBeforeMs: number | null;
  deadLettersBeforeMs: number | null;
  /** Idempotency fingerprints last seen before this (the window has passed them). */
  fingerprintsBeforeMs: number | null;
  /** Rows deleted per call, so one call never holds the writer long. */
  batch: number;
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
   * Stores an event unless its fingerprint was seen for the same agent and source within `windowMs`
   * before `nowMs`. The fingerprint, the event and its `event.accepted` audit row are one transaction:
   * when this resolves, the event is durable.
   */
  ingestEvent(event: NewEvent, windowMs: number, nowMs: number): Promise<IngestResult>;

  /**
   * Claims the agent's oldest events that are accepted, or processing with a lease that ran out,
   * for `owner` until `nowMs + leaseMs`. Never hands one event to two holders at once.
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

  /** Puts dead letters back in the queue (event accepted again, `replayedAt` set, audit row). */
  replayDeadLetters(selection: DeadLetterSelection, actor: string, nowMs: number): Promise<ReplayResult>;

  /** Appends one audit row; appends are serialised so the chain never forks. */
  appendAudit(entry: NewAuditEntry, nowMs: number): Promise<AuditRow>;
  /** Rows with seq > afterSeq in seq order, as stored: what verification hashes and export ships. */
  readAudit(afterSeq: number, limit: number): Promise<StoredAuditRow[]>;
  /** The chain's last row (seq, hash, time); null when it is empty. */
  auditHead(): Promise<{ seq: number; hash: string; tsMs: number } | null>;
  /**
   * Verifies the whole chain up to its head when the run starts (contract §5), without stalling the
   * caller, judging the rows as committed when the call is made (§20.1): a call never shares a run
   * that began before it; calls made during a run share the next one.
   */
  verifyAudit(): Promise<VerifyResult>;

  listEvents(query: PageQuery, filter: EventFilter): Promise<Page<EventRecord>>;
  listDeadLetters(query: PageQuery, filter: DeadLetterFilter): Promise<Page<DeadLetterRecord>>;
  listAudit(query: PageQuery, filter: AuditFilter): Promise<Page<ListedAuditRow>>;
  /**
   * A page of a view encoded as the control plane answers it (store/record-json.ts), built where the
   * rows are read: a large page never costs the caller's event loop more than a buffer hand-over.
   */
  listJson<V extends View>(view: V, query: PageQuery, filter: ViewFilter<V>): Promise<JsonPage>;

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

  close(): Promise<void>;
}
