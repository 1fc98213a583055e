/**
 * Receipts kept with their pages on PostgreSQL (contract §21.3, ../receipt-store.ts): the table (one
 * migration step of schema.ts), the insert the on-call store runs in the transaction that records
 * delivered outcomes, and the receipt store: a list with each page's state as committed, and a close
 * that only one replica's call wins.
 */
import type pg from 'pg';
import type { PageReceipt, ReceiptStore } from '../receipt-store.js';
import { RECEIPT_COLUMNS, toWatchedReceipt } from '../receipt-store.js';

export const PG_RECEIPTS_MIGRATION = `
  CREATE TABLE page_receipts (
    receipt     text PRIMARY KEY,
    agent_id    text NOT NULL,
    page_id     text NOT NULL,
    channel_id  text NOT NULL,
    person      text NOT NULL,
    delivery_id text NOT NULL,
    sent_ms     bigint NOT NULL,
    expires_ms  bigint NOT NULL
  );
  CREATE INDEX page_receipts_sent ON page_receipts (sent_ms);
`;

/** Keeps receipts, in the caller's transaction; one already kept is left as it is. */
export async function insertReceipts(client: pg.ClientBase, receipts: readonly PageReceipt[]): Promise<void> {
  if (receipts.length === 0) return;
  await client.query(`INSERT INTO page_receipts (${RECEIPT_COLUMNS})
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
    ON CONFLICT (receipt) DO NOTHING`,
  [receipts.map((r) => r.receipt), receipts.map((r) => r.agentId), receipts.map((r) => r.pageId), receipts.map((r) => r.channelId),
    receipts.map((r) => r.person), receipts.map((r) => r.deliveryId), receipts.map((r) => r.sentAtMs), receipts.map((r) => r.expiresAtMs)]);
}

export function postgresReceipts(pool: pg.Pool): ReceiptStore {
  return {
    async listReceipts(limit) {
      const { rows } = await pool.query<Record<string, unknown>>(`SELECT ${RECEIPT_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')},
          p.state AS page_state
        FROM page_receipts r LEFT JOIN pages p ON p.id = r.page_id ORDER BY r.sent_ms, r.receipt LIMIT $1`, [limit]);
      return rows.map(toWatchedReceipt);
    },
    async closeReceipt(receipt) {
      return ((await pool.query('DELETE FROM page_receipts WHERE receipt = $1', [receipt])).rowCount ?? 0) === 1;
    },
  };
}
