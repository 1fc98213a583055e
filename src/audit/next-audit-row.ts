/**
 * The next row of the audit chain, decided in one place for every store (contract §5, §16.3): its
 * seq, its timestamp (never earlier than the head's), its data as RFC 8785 text and its hash. A store
 * reads its head, asks here, and writes what it is given; it computes none of it.
 */
import { isoTs } from '../core/clock.js';
import type { NewAuditEntry, StoredAuditRow } from './audit-row.js';
import { canonicalJson, GENESIS_HASH, sha256Hex, storedRowText } from './chain.js';

/** Where a chain stands: its last row's seq, hash and ts_ms (seq 0 and the genesis hash when empty). */
export interface AuditHead {
  seq: number;
  hash: string;
  tsMs: number | null;
}

export const EMPTY_AUDIT_HEAD: Readonly<AuditHead> = { seq: 0, hash: GENESIS_HASH, tsMs: null };

/** A row as it is to be stored: the stored form plus its ts in milliseconds (an indexed column). */
export interface PlannedAuditRow extends StoredAuditRow {
  tsMs: number;
}

/**
 * Timestamp of a new row of a table (audit, events, dead letters): the caller's clock, but never
 * earlier than the table's last row, so ts_ms is non-decreasing in seq when the wall clock steps back
 * or one replica's clock is behind another's (pages and exporters rely on it).
 */
export function stampMs(nowMs: number, lastMs: number | null | undefined): number {
  return Math.max(nowMs, lastMs ?? -Infinity);
}

/**
 * The row that follows `head`. `data` is stored as its RFC 8785 text and the row hashed through
 * `storedRowText` — the same text `canonicalRow` gives once data is canonical, built by concatenation
 * instead of a second canonicalisation — so what verification recomputes from the stored row is
 * exactly what was hashed here.
 */
export function nextAuditRow(head: Readonly<AuditHead>, entry: NewAuditEntry, nowMs: number): PlannedAuditRow {
  const tsMs = stampMs(nowMs, head.tsMs);
  const row: PlannedAuditRow = { seq: head.seq + 1, ts: isoTs(tsMs), tsMs, kind: entry.kind, actor: entry.actor, agentId: entry.agentId,
    dataText: canonicalJson(entry.data), prevHash: head.hash, hash: '' };
  row.hash = sha256Hex(`${row.prevHash}\n${storedRowText(row)}`);
  return row;
}

/** The head once `row` is appended. */
export function headAfter(row: PlannedAuditRow): AuditHead {
  return { seq: row.seq, hash: row.hash, tsMs: row.tsMs };
}

/** Rows for `entries`, in order, each following the one before; and the head after the last. */
export function planAuditRows(head: Readonly<AuditHead>, entries: readonly NewAuditEntry[], nowMs: number):
  { rows: PlannedAuditRow[]; head: AuditHead } {
  let at: AuditHead = { ...head };
  const rows = entries.map((entry) => {
    const row = nextAuditRow(at, entry, nowMs);
    at = headAfter(row);
    return row;
  });
  return { rows, head: at };
}
