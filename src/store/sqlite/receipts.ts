/**
 * Receipts kept with their pages on SQLite (contract §21.3, ../receipt-store.ts): the table (one
 * migration step of schema.ts), the writer's insert (called by the on-call writer when it records a
 * delivered outcome, in that outcome's savepoint) and close, the reader's list with each page's state;
 * receipt-store.ts puts them behind the threads.
 */
import type Database from 'better-sqlite3';
import type { PageReceipt, WatchedReceipt } from '../receipt-store.js';
import { RECEIPT_COLUMNS, receiptValues, toWatchedReceipt } from '../receipt-store.js';

export const RECEIPTS_MIGRATION = `
  CREATE TABLE page_receipts (
    receipt     TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    page_id     TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    person      TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    sent_ms     INTEGER NOT NULL,
    expires_ms  INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX page_receipts_sent ON page_receipts (sent_ms);
`;

/** Keeps a receipt; one already kept (the same outcome recorded twice) is left as it is. */
export function receiptInserter(db: Database.Database): (r: PageReceipt) => void {
  let insert: Database.Statement<ReturnType<typeof receiptValues>> | null = null;
  return (r) => {
    insert ??= db.prepare(`INSERT OR IGNORE INTO page_receipts (${RECEIPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    insert.run(...receiptValues(r));
  };
}

export interface ReceiptWriter { closeReceipt(receipt: string): boolean }
export interface ReceiptReader { listReceipts(limit: number): WatchedReceipt[] }

export function createReceiptWriter(db: Database.Database): ReceiptWriter {
  let remove: Database.Statement<[string]> | null = null;
  return {
    closeReceipt(receipt) {
      remove ??= db.prepare('DELETE FROM page_receipts WHERE receipt = ?');
      return remove.run(receipt).changes === 1;
    },
  };
}

export function createReceiptReader(db: Database.Database): ReceiptReader {
  let list: Database.Statement<[number], Record<string, unknown>> | null = null;
  return {
    listReceipts(limit) {
      list ??= db.prepare(`SELECT ${RECEIPT_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')}, p.state AS page_state
        FROM page_receipts r LEFT JOIN pages p ON p.id = r.page_id ORDER BY r.sent_ms, r.receipt LIMIT ?`);
      return list.all(limit).map(toWatchedReceipt);
    },
  };
}
