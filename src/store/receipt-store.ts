/**
 * Receipts kept with their pages (contract §21.3): a message a vendor repeats until someone answers
 * it (Pushover's emergency priority) leaves a receipt, stored in the transaction that records the
 * message as delivered (`finishNotifications`, the delivered outcome's `receipt`), so a delivery is
 * never recorded without it nor it without the delivery. The leader's receipt duty lists the receipts
 * still watched with their pages' states as committed, and closes each once: answered, cancelled,
 * expired or unknown to the vendor. A closed receipt's row is gone; what became of it is in the
 * agent's log and the page's own rows (its acknowledgement). Every implementation passes
 * test/support/receipt-store-contract.ts.
 */
import type { PageState } from '../oncall/page.js';

/** A receipt as it is stored with its page. */
export interface PageReceipt {
  /** The vendor's receipt id. */
  receipt: string;
  agentId: string;
  pageId: string;
  /** The channel that sent the message, and so answers about its receipt. */
  channelId: string;
  /** The person the message was for: an answer on the vendor's side is theirs. */
  person: string;
  deliveryId: string;
  sentAtMs: number;
  /** When the vendor stops repeating the message (its `expire`). */
  expiresAtMs: number;
}

/** A watched receipt with its page's state as committed when it was read (null: the page is gone). */
export interface WatchedReceipt extends PageReceipt {
  pageState: PageState | null;
}

export interface ReceiptStore {
  /** The receipts still watched, oldest first, at most `limit`, each with its page's state. */
  listReceipts(limit: number): Promise<WatchedReceipt[]>;
  /** Stops watching a receipt; false when it was not watched any more (closed already, by this replica or another). */
  closeReceipt(receipt: string): Promise<boolean>;
}

/** The columns of a receipt row, in the order both stores write them. */
export const RECEIPT_COLUMNS = 'receipt, agent_id, page_id, channel_id, person, delivery_id, sent_ms, expires_ms';

/** A receipt row as either store returns it (PostgreSQL's bigints as text). */
export function toWatchedReceipt(r: Record<string, unknown>): WatchedReceipt {
  return { receipt: String(r.receipt), agentId: String(r.agent_id), pageId: String(r.page_id), channelId: String(r.channel_id),
    person: String(r.person), deliveryId: String(r.delivery_id), sentAtMs: Number(r.sent_ms), expiresAtMs: Number(r.expires_ms),
    pageState: typeof r.page_state === 'string' ? r.page_state as PageState : null };
}

/** A receipt row's values in RECEIPT_COLUMNS order. */
export function receiptValues(r: PageReceipt): [string, string, string, string, string, string, number, number] {
  return [r.receipt, r.agentId, r.pageId, r.channelId, r.person, r.deliveryId, r.sentAtMs, r.expiresAtMs];
}
