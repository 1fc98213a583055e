/**
 * A shadow run's channel (contract §22.3) around a real Pushover channel and Pushover's API on
 * loopback: a P1 page that would ring at emergency priority is answered as shadowed, carries no
 * receipt and the wrapper offers no receipt API — so the leader's receipt duty (§21.3) has nothing
 * stored to watch and no way to poll or cancel — while the same channel sent through live reaches
 * the fake and gets its receipt (the fake was there to be called).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakePushover } from '../../../test/support/fake-pushover.js';
import { startFakePushover } from '../../../test/support/fake-pushover.js';
import { pushoverChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage } from './channel.js';
import { createPushoverChannel } from './pushover-channel.js';
import { shadowChannel } from './shadow-channel.js';

const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzShdw1';
const ALICE = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const opening: OutboundMessage = {
  eventId: 'evt-1', agentId: 'rehearsal', severity: 'P1', status: 'firing', title: 'DiskFull on db-1',
  text: '[P1] DiskFull on db-1\nPage p1 opened (step 1 of 2).', triagedBy: 'oncall', deliveryId: 'p1.1.alice.pushover',
  attempt: 1, to: ALICE, pageId: 'p1', pageKind: 'escalation',
};

describe('a shadow run\'s Pushover channel', () => {
  let po: FakePushover;
  const clock = fakeClock(NOW);
  const signal = new AbortController().signal;
  before(async () => { po = await startFakePushover({ token: TOKEN, users: [ALICE], now: () => clock.now() }); });
  after(() => po.close());

  it('answers an emergency page as shadowed, with no receipt and no receipt API; the live channel gets one', async () => {
    const inner = createPushoverChannel(pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound', token: TOKEN,
      apiUrl: `${po.apiUrl}/` }), { clock });
    assert.ok(inner.receipts !== undefined, 'the live channel answers about receipts');
    const shadow = shadowChannel(inner);

    const shadowed = await shadow.send(opening, signal);
    assert.deepEqual(shadowed, { ok: true, detail: {}, shadow: true });
    assert.equal(shadow.receipts, undefined, 'nothing to poll or cancel through');
    assert.deepEqual([shadow.id, shadow.type], ['pushover', 'pushover']);

    const live = await inner.send({ ...opening, deliveryId: 'p1.1.alice.pushover.live' }, signal);
    assert.ok(live.ok && live.receipt !== undefined, 'the same message sent live carries a receipt');
    assert.deepEqual(po.messages.map((m) => [m.form.priority, m.receipt]), [['2', live.receipt.id]], 'only the live send reached Pushover');
    assert.deepEqual([po.polls.length, po.cancels.length], [0, 0]);
    await shadow.close();
  });

  it('takes the last look as a live send does: a round the page moved past (an ack committed) is not sent, so not shadowed', async () => {
    const inner = createPushoverChannel(pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound', token: TOKEN,
      apiUrl: `${po.apiUrl}/` }), { clock });
    const shadow = shadowChannel(inner);
    const looks: string[] = [];
    const gate = (open: boolean) => ({ enter: () => { looks.push('enter'); return Promise.resolve(open); }, leave: () => { looks.push('leave'); } });
    const moved = await shadow.send(opening, signal, gate(false));
    assert.equal(moved.ok, false);
    assert.match(moved.ok ? '' : moved.error, /not sent: the page moved on/);
    assert.deepEqual(await shadow.send(opening, signal, gate(true)), { ok: true, detail: {}, shadow: true });
    assert.deepEqual(looks, ['enter', 'enter', 'leave']);
    await shadow.close();
  });
});
