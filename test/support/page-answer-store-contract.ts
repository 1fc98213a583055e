/**
 * What the store keeps for the channels that answer pages from outside (contract §21.4, §21.5):
 * a vendor update feed's offset (a Telegram bot's getUpdates), read by whichever replica leads next,
 * and audit rows about a page that no plan wrote (a call nobody answered, a refused press), which join
 * that page's timeline. storeContract runs it on every store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../src/store/store.js';
import { openPlan } from './oncall-store-contract.js';

const T0 = Date.UTC(2026, 0, 1);

export function pageAnswerStoreContract(name: string, open: () => Promise<Store>, again: () => Promise<Store>): void {
  describe(`${name}: page answers from outside`, () => {
    it('a feed offset: none before the first save; the last one saved, per feed, read by another handle on the store', async () => {
      const store = await open();
      assert.equal(await store.oncall.pollOffset('telegram:110201543'), null);
      await store.oncall.savePollOffset('telegram:110201543', 870_001, T0);
      await store.oncall.savePollOffset('telegram:220302654', 5, T0);
      // Telegram restarts its update ids at random after a quiet week: the offset saved last wins, lower or not.
      await store.oncall.savePollOffset('telegram:110201543', 12, T0 + 1);
      const other = await again();
      assert.equal(await other.oncall.pollOffset('telegram:110201543'), 12);
      assert.equal(await other.oncall.pollOffset('telegram:220302654'), 5);
      assert.equal(await other.oncall.pollOffset('telegram:330403765'), null);
      // Update ids are 32-bit and grow; an offset past 2^31 reads back as written.
      await other.oncall.savePollOffset('telegram:220302654', 2 ** 31 + 7, T0 + 2);
      assert.equal(await store.oncall.pollOffset('telegram:220302654'), 2 ** 31 + 7);
    });

    it('an audit row about a page written outside a plan joins that page\'s timeline, and changes nothing of the page', async () => {
      const store = await open();
      const plan = openPlan('answers/key', T0, 'agent-a');
      await store.oncall.applyPagePlan(plan, T0);
      await store.oncall.writeNotifications([], [{ kind: 'page.call-failed', actor: 'twilio:CA0001', agentId: 'agent-a',
        data: { pageId: plan.page.id, deliveryId: `${plan.page.id}.1.alice.phone`, person: 'alice', channel: 'phone', status: 'no-answer',
          callSid: 'CA0001' } }], T0 + 1000);
      const timeline = await store.oncall.pageTimeline(plan.page.id);
      assert.deepEqual(timeline.map((r) => r.kind), ['page.opened', 'page.notified', 'page.call-failed']);
      assert.deepEqual(await store.oncall.getPage(plan.page.id), plan.page, 'the page as it was: its next step still due');
      assert.equal((await store.verifyAudit()).ok, true);
    });
  });
}
