/**
 * Where the runtime's agents append audit rows: a narrow function rather than the Store, so the same
 * provider and tool code runs in the daemon (rows go to the store's chain) and in `svc triage` (rows
 * are collected and printed; nothing is stored).
 */
import type { NewAuditEntry } from '../audit/audit-row.js';

/** Resolves once the row is appended (its value, e.g. the stored row, is not used); rejects when it cannot be. */
export type AuditSink = (entry: NewAuditEntry) => Promise<unknown>;

/** A sink that keeps the rows in memory, in order. */
export function collectingAuditSink(): { sink: AuditSink; rows: NewAuditEntry[] } {
  const rows: NewAuditEntry[] = [];
  return {
    rows,
    sink: (entry) => {
      rows.push(entry);
      return Promise.resolve();
    },
  };
}
