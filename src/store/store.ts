/**
 * The store interface. The embedded default is SQLite (sqlite-store.ts); every method is async so a
 * PostgreSQL implementation can fill the same shape later.
 */

import type { AuditRow, NewAuditEntry, StoredAuditRow } from '../audit/audit-row.js';

export type EventStatus = 'accepted' | 'processing' | 'processed' | 'dead-lettered';

/** Event as the control plane shows it (contract §5). */
export interface EventRecord {
  id: string;
  ts: string;
  agentId: string;
  sourceId: string;
  kind: string;
  fingerprint: string | null;
  status: EventStatus;
  payload: unknown;
}

export interface NewEvent {
  agentId: string;
  sourceId: string;
  kind: string;
  fingerprint: string | null;
  payload: unknown;
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
  payload: unknown;
}

export type NewDeadLetter = Omit<DeadLetterRecord, 'id' | 'ts'>;

export type IngestResult =
  | { outcome: 'accepted'; event: EventRecord }
  | { outcome: 'duplicate'; eventId: string };

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

export interface Store {
  readonly kind: 'sqlite' | 'postgres';

  /**
   * Stores an event unless its fingerprint was seen for the same agent and source within
   * `windowMs`. The fingerprint, the event and the `event.accepted` audit row are written in one
   * transaction: after this resolves, the event is durable.
   */
  ingestEvent(event: NewEvent, windowMs: number): Promise<IngestResult>;
  /** Events still to dispatch (accepted or processing), oldest first: re-queued after a restart. */
  pendingEvents(): Promise<EventRecord[]>;
  setEventStatus(eventId: string, status: EventStatus): Promise<void>;
  /** Records a dead letter, marks its event `dead-lettered` and appends the audit row, atomically. */
  addDeadLetter(letter: NewDeadLetter): Promise<DeadLetterRecord>;
  /** Appends one audit row; appends are serialised so the chain never forks. */
  appendAudit(entry: NewAuditEntry): Promise<AuditRow>;

  listEvents(query: PageQuery, filter: EventFilter): Promise<Page<EventRecord>>;
  listDeadLetters(query: PageQuery, filter: DeadLetterFilter): Promise<Page<DeadLetterRecord>>;
  listAudit(query: PageQuery, filter: AuditFilter): Promise<Page<AuditRow>>;
  /** Audit rows with seq > afterSeq in seq order, for whole-chain verification in chunks. */
  auditChunk(afterSeq: number, limit: number): Promise<AuditRow[]>;
  /**
   * The same rows as stored, `data` left as its text: what verification hashes, and a row whose
   * data is not even JSON any more is still readable (and found to mismatch) instead of failing.
   */
  auditStoredChunk(afterSeq: number, limit: number): Promise<StoredAuditRow[]>;
  /** Seq and timestamp (ms) of the chain's last row; null when the chain is empty. */
  auditHead(): Promise<{ seq: number; tsMs: number } | null>;

  /** Seq of the last audit row the SIEM exporter `exporterId` had acknowledged; 0 when it never exported. */
  exportCursor(exporterId: string): Promise<number>;
  /**
   * Records that `exporterId` had every row up to `seq` acknowledged. Durable when it resolves, and
   * only ever moves forward: a smaller seq than the stored one is ignored (a late or repeated ack).
   */
  advanceExportCursor(exporterId: string, seq: number): Promise<void>;

  close(): Promise<void>;
}
