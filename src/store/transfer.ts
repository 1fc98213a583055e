/**
 * Moving a store's contents to another store (`svc store copy`, contract §16.7): rows as stored, with
 * their seqs, timestamps and hashes, read in keyset batches from one store and written into another.
 * A narrow side door next to the `Store` interface, used by nothing but the copy: the runtime never
 * writes rows it did not make.
 *
 * Audit rows are imported already hashed; the target checks every one continues its chain (seq,
 * prevHash) and hashes to its stored hash before it writes it, so a copy can never produce a chain
 * that does not verify.
 */
import type { StoredAuditRow } from '../audit/audit-row.js';

export interface TransferEvent {
  seq: number;
  id: string;
  tsMs: number;
  agentId: string;
  sourceId: string;
  kind: string;
  fingerprint: string | null;
  /**
   * store.ts's EventStatus, spelt out (store.ts imports this file: no cycle). A claim is not copied:
   * an event that was processing is accepted in the copy.
   */
  status: 'accepted' | 'processing' | 'processed' | 'dead-lettered' | 'suppressed';
  payloadText: string;
  attempt: number;
}

export interface TransferDeadLetter {
  seq: number;
  id: string;
  tsMs: number;
  agentId: string;
  sourceId: string;
  eventId: string;
  reason: string;
  error: string;
  attempts: number;
  payloadText: string;
  replayedMs: number | null;
}

export interface TransferFingerprint {
  agentId: string;
  sourceId: string;
  fingerprint: string;
  eventId: string;
  seenMs: number;
}

export interface TransferCursor {
  exporterId: string;
  lastSeq: number;
  updatedMs: number;
}

/** Rows for one import transaction. */
export interface TransferBatch {
  events?: TransferEvent[];
  deadLetters?: TransferDeadLetter[];
  audit?: StoredAuditRow[];
  fingerprints?: TransferFingerprint[];
  cursors?: TransferCursor[];
}

export type FingerprintKey = [agentId: string, sourceId: string, fingerprint: string];

export interface StoreTransfer {
  /** Events with seq > afterSeq in seq order, at most `limit`. */
  readEvents(afterSeq: number, limit: number): Promise<TransferEvent[]>;
  /** Dead letters with seq > afterSeq in seq order, at most `limit`. */
  readDeadLetters(afterSeq: number, limit: number): Promise<TransferDeadLetter[]>;
  /** Fingerprints seen at or after `sinceMs` (the live window), after `after` in key order, at most `limit`. */
  readFingerprints(sinceMs: number, after: FingerprintKey | null, limit: number): Promise<TransferFingerprint[]>;
  readExportCursors(): Promise<TransferCursor[]>;
  /** True when the store holds no event, dead letter or audit row: a copy goes only into an empty store. */
  isEmpty(): Promise<boolean>;
  /** Writes one batch in one transaction; rejects (writing nothing of it) when an audit row does not continue the chain. */
  importRows(batch: TransferBatch): Promise<void>;
}
