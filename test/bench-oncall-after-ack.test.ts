/**
 * The §17.4 check of bench/oncall-acks.ts: what a page sends after its ack is counted, except the
 * ack's own notices to the channels that follow the page's state (§18.4) and their deliveries. An
 * escalation claimed before the ack and delivered after it still counts as a delivery after the ack.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditLite } from '../bench/lib/oncall.js';
import { afterAck } from '../bench/lib/oncall.js';

const row = (seq: number, kind: string, pageId: string, data: Record<string, unknown> = {}): AuditLite =>
  ({ seq, tsMs: seq, kind, pageId, data: { pageId, ...data } });

const trail: AuditLite[] = [
  row(1, 'page.escalated', 'p1'),
  row(2, 'page.notified', 'p1', { deliveryId: 'p1.2.alice.oncall-dm' }), // the escalation, claimed before the ack
  row(3, 'page.acknowledged', 'p1'),
  row(4, 'page.notified', 'p1', { deliveryId: 'p1.3.alice.slack-dm' }), // the ack's own notice to Slack
  row(5, 'page.notified', 'p1', { deliveryId: 'p1.3.bob.slack-dm' }), // and to the next follower
  row(6, 'message.delivered', 'p1', { deliveryId: 'p1.2.alice.oncall-dm' }), // the escalation, in flight at the ack
  row(7, 'message.delivered', 'p1', { deliveryId: 'p1.3.alice.slack-dm' }),
  row(8, 'page.escalated', 'p2'), // never acknowledged
  row(9, 'page.notified', 'p2', { deliveryId: 'p2.2.alice.oncall-dm' }),
  row(10, 'message.delivered', 'p1', { deliveryId: 'p1.3.bob.slack-dm' }),
  row(11, 'page.escalated', 'p1'), // a timer firing after the ack: the defect the bench looks for
  row(12, 'page.notified', 'p1', { deliveryId: 'p1.4.alice.oncall-dm' }),
  row(13, 'message.delivered', 'p1', { deliveryId: 'p1.4.alice.oncall-dm' }),
];

describe('bench afterAck', () => {
  it('counts an escalation after the ack, not the ack\'s own notices', () => {
    assert.equal(afterAck(trail, ['page.escalated']), 1);
    assert.equal(afterAck(trail, ['page.notified']), 1);
  });

  it('counts deliveries after the ack of escalations, not of the ack\'s own notices', () => {
    assert.equal(afterAck(trail, ['message.delivered']), 2);
  });

  it('counts nothing on a trail without the defect', () => {
    const clean = trail.filter((r) => r.seq < 11);
    assert.deepEqual([afterAck(clean, ['page.notified']), afterAck(clean, ['page.escalated']), afterAck(clean, ['message.delivered'])], [0, 0, 1]);
  });
});
