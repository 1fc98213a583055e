import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListedAuditRow } from '../../store/store.js';
import { joinsOutOf } from './joins-out.js';

let seq = 0;
const row = (kind: string, atS: number, data: Record<string, unknown> | null): ListedAuditRow => ({ seq: ++seq,
  ts: new Date(Date.UTC(2026, 10, 25, 3) + atS * 1000).toISOString(), kind, actor: 'agent:oncall', agentId: 'oncall',
  dataText: data === null ? null : JSON.stringify(data), prevHash: '', hash: '' });
const notified = (deliveryId: string, kind: string, atS: number): ListedAuditRow => row('page.notified', atS, { pageId: 'p0123456789ab', deliveryId, kind });
const outcome = (kind: string, deliveryId: string, atS: number): ListedAuditRow => row(kind, atS, { pageId: 'p0123456789ab', deliveryId });
const at = (s: number): number => Date.UTC(2026, 10, 25, 3) + s * 1000;

describe('joinsOutOf: the page\'s join notices as the wire saw them', () => {
  it('the last join notice out is its delivery row\'s time; other rounds and damaged rows are not join notices', () => {
    const timeline = [
      notified('p.1.alice.dm', 'escalation', 0), outcome('message.delivered', 'p.1.alice.dm', 1),
      notified('p.2.alice.dm', 'join', 10), notified('p.2.-.room', 'join', 10),
      outcome('message.delivered', 'p.2.-.room', 11), outcome('message.shadowed', 'p.2.alice.dm', 12),
      notified('p.3.alice.dm', 'acknowledged', 20),
      row('page.notified', 30, null), row('message.delivered', 31, null),
    ];
    assert.deepEqual(joinsOutOf(timeline), { lastOutAtMs: at(12), onItsWay: false }, 'the ack notice still pending is no join notice');
  });

  it('a join notice with no outcome yet is on its way; one given up, cancelled or set aside never reaches the wire', () => {
    const base = [notified('p.2.alice.dm', 'join', 10), outcome('message.delivered', 'p.2.alice.dm', 11.5)];
    assert.deepEqual(joinsOutOf([...base, notified('p.4.alice.dm', 'joined-acked', 70)]), { lastOutAtMs: at(11.5), onItsWay: true });
    for (const ended of ['message.failed', 'page.notice-cancelled', 'notification.quarantined']) {
      assert.deepEqual(joinsOutOf([...base, notified('p.4.alice.dm', 'join', 70), outcome(ended, 'p.4.alice.dm', 71)]),
        { lastOutAtMs: at(11.5), onItsWay: false }, ended);
    }
    assert.deepEqual(joinsOutOf([]), { lastOutAtMs: null, onItsWay: false });
  });
});
