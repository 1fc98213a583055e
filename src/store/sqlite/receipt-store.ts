/** The receipt store (../receipt-store.ts) over the SQLite threads: closes go to the writer, lists to the reader (receipts.ts). */
import type { ReceiptStore } from '../receipt-store.js';
import type { ReaderOps, WriterOps } from './store-worker.js';
import type { WorkerCall } from './worker-client.js';

export function sqliteReceipts(write: WorkerCall<WriterOps>, read: WorkerCall<ReaderOps>): ReceiptStore {
  return {
    listReceipts: (limit) => read('listReceipts', limit),
    closeReceipt: (receipt) => write('closeReceipt', receipt),
  };
}
