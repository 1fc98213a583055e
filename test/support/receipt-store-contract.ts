/**
 * The receipts part of the store contract (contract §21.3, store/receipt-store.ts): a vendor receipt
 * is kept in the write that records its message delivered — only while that sender's claim holds,
 * once — listed with its page's state as committed, oldest first, and closed once, whichever replica
 * asks. storeContract runs it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAck, planResolve } from '../../src/oncall/page-plan.js';
import type { NotificationOutcome } from '../../src/store/oncall-store.js';
import type { PageReceipt } from '../../src/store/receipt-store.js';
import type { Store } from '../../src/store/store.js';
import { openPlan } from './oncall-store-contract.js';

const T0 = Date.UTC(2026, 0, 1);
const LEASE = { owner: 'sender-1', leaseMs: 60_000 };

/** A page opened with its first round claimed by LEASE's sender; returns the page and that round's notification. */
async function openedWithClaim(store: Store, key: string, nowMs = T0) {
  const plan = openPlan(key, nowMs);
  const applied = await store.oncall.applyPagePlan(plan, nowMs, LEASE);
  assert.ok(applied.ok);
  const [claimed] = applied.claimed ?? [];
  assert.ok(claimed, 'the opening round was claimed');
  return { plan, claimed };
}

const receiptOf = (pageId: string, deliveryId: string, id: string, sentAtMs = T0): PageReceipt => ({ receipt: id, agentId: 'agent-a', pageId,
  channelId: 'pushover', person: 'alice', deliveryId, sentAtMs, expiresAtMs: sentAtMs + 3_600_000 });

const delivered = (deliveryId: string, receipt: PageReceipt, owner = LEASE.owner, attempt = 1): NotificationOutcome =>
  ({ deliveryId, owner, attempt, audit: [], outcome: 'delivered', receipt });

export function receiptStoreContract(name: string, open: () => Promise<Store>, again: () => Promise<Store>): void {
  describe(`${name}: receipts kept with their pages (§21.3)`, () => {
    it('a delivery\'s receipt is kept with its outcome and listed with its page\'s state as it changes; closed once', async () => {
      const store = await open();
      const { plan, claimed } = await openedWithClaim(store, 'receipt/1');
      const receipt = receiptOf(plan.page.id, claimed.notification.deliveryId, 'rAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
      assert.deepEqual(await store.receipts.listReceipts(10), []);
      assert.equal(await store.oncall.finishNotifications([delivered(claimed.notification.deliveryId, receipt)], T0 + 10), 1);
      assert.deepEqual(await store.receipts.listReceipts(10), [{ ...receipt, pageState: 'triggered' }]);
      const ack = planAck(plan.page, { actor: 'cli:test', by: 'bob', via: 'cli' }, null, T0 + 20);
      assert.ok(ack.ok && ack.plan !== null);
      assert.deepEqual(await store.oncall.applyPagePlan(ack.plan, T0 + 20), { ok: true });
      assert.deepEqual(await store.receipts.listReceipts(10), [{ ...receipt, pageState: 'acknowledged' }]);
      const resolved = planResolve(ack.plan.page, { actor: 'cli:test', by: 'bob', via: 'cli' }, null, null, T0 + 30);
      assert.ok(resolved.ok && resolved.plan !== null);
      await store.oncall.applyPagePlan(resolved.plan, T0 + 30);
      assert.equal((await store.receipts.listReceipts(10))[0]?.pageState, 'resolved');
      assert.equal(await store.receipts.closeReceipt(receipt.receipt), true);
      assert.equal(await store.receipts.closeReceipt(receipt.receipt), false, 'closed already');
      assert.deepEqual(await store.receipts.listReceipts(10), []);
    });

    it('keeps no receipt for an outcome whose claim no longer holds, and one receipt however often its outcome is recorded', async () => {
      const store = await open();
      const { plan, claimed } = await openedWithClaim(store, 'receipt/2');
      const id = claimed.notification.deliveryId;
      const receipt = receiptOf(plan.page.id, id, 'rBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
      assert.equal(await store.oncall.finishNotifications([delivered(id, receipt, 'someone-else')], T0 + 10), 0);
      assert.equal(await store.oncall.finishNotifications([delivered(id, receipt, LEASE.owner, 2)], T0 + 10), 0);
      assert.deepEqual(await store.receipts.listReceipts(10), [], 'nothing kept for a claim that does not hold');
      assert.equal(await store.oncall.finishNotifications([delivered(id, receipt), delivered(id, receipt)], T0 + 10), 1);
      assert.equal(await store.oncall.finishNotifications([delivered(id, receipt)], T0 + 11), 0, 'recorded already');
      assert.deepEqual((await store.receipts.listReceipts(10)).map((r) => r.receipt), [receipt.receipt]);
    });

    it('lists oldest first, at most the limit, and a receipt whose page is gone with no state', async () => {
      const store = await open();
      const first = await openedWithClaim(store, 'receipt/3', T0);
      const second = await openedWithClaim(store, 'receipt/4', T0);
      const late = receiptOf(second.plan.page.id, second.claimed.notification.deliveryId, 'rDDDDDDDDDDDDDDDDDDDDDDDDDDDDD', T0 + 2000);
      const early = { ...receiptOf(first.plan.page.id, first.claimed.notification.deliveryId, 'rCCCCCCCCCCCCCCCCCCCCCCCCCCCCC', T0 + 1000),
        pageId: 'pnotapage00000' };
      await store.oncall.finishNotifications([delivered(second.claimed.notification.deliveryId, late),
        delivered(first.claimed.notification.deliveryId, early)], T0 + 3000);
      assert.deepEqual(await store.receipts.listReceipts(10), [{ ...early, pageState: null }, { ...late, pageState: 'triggered' }]);
      assert.deepEqual((await store.receipts.listReceipts(1)).map((r) => r.receipt), [early.receipt]);
    });

    it('a receipt closed by two handles at once (two replicas) is closed by exactly one', async () => {
      const store = await open();
      const other = await again();
      const { plan, claimed } = await openedWithClaim(store, 'receipt/5');
      const receipt = receiptOf(plan.page.id, claimed.notification.deliveryId, 'rEEEEEEEEEEEEEEEEEEEEEEEEEEEEE');
      await store.oncall.finishNotifications([delivered(claimed.notification.deliveryId, receipt)], T0 + 10);
      assert.deepEqual((await other.receipts.listReceipts(10)).map((r) => r.receipt), [receipt.receipt]);
      const closed = await Promise.all([store.receipts.closeReceipt(receipt.receipt), other.receipts.closeReceipt(receipt.receipt)]);
      assert.deepEqual(closed.sort(), [false, true]);
    });
  });
}
