import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportRows } from '../../test/support/report-rows.js';
import { FLAPPING_MS, pageFacts } from './page-facts.js';

const T0 = Date.UTC(2026, 10, 23, 3, 0);
const MIN = 60_000;

describe('page facts', () => {
  it('times to the first ack and the first resolve; escalations by reason; exhausted', () => {
    const facts = pageFacts(reportRows().page('p1', T0)
      .notified('p1', T0, 'alice', 'push')
      .row('p1', 'page.escalated', T0 + 5 * MIN, { reason: 'timeout' })
      .row('p1', 'page.escalated', T0 + 6 * MIN, { reason: 'manual' })
      .row('p1', 'page.exhausted', T0 + 7 * MIN)
      .row('p1', 'page.acknowledged', T0 + 8 * MIN, { via: 'cli' })
      .row('p1', 'page.unacknowledged', T0 + 9 * MIN, { reason: 'manual' })
      .row('p1', 'page.acknowledged', T0 + 10 * MIN, { via: 'cli' })
      .row('p1', 'page.resolved', T0 + 20 * MIN, { via: 'cli' })
      .row('p1', 'page.resolved', T0 + 30 * MIN, { via: 'cli' })
      .build()).get('p1');
    assert.deepEqual([facts?.ackMs, facts?.resolveMs, facts?.escalations, facts?.exhausted, facts?.flapping],
      [8 * MIN, 20 * MIN, { timeout: 1, manual: 1 }, true, false]);
  });

  it('a status update is not a page round: by its own kind when the row says, else by standing right after an ack, a resolve or a manual unack', () => {
    const facts = pageFacts(reportRows().page('p1', T0)
      .notified('p1', T0, 'alice', 'push')
      .notified('p1', T0, 'alice', 'slack')
      .row('p1', 'page.acknowledged', T0 + MIN, { via: 'slack' })
      .notified('p1', T0 + MIN, 'alice', 'slack') // the ack's notice: follows the ack row
      .row('p1', 'page.unacknowledged', T0 + 31 * MIN, { reason: 'ack-timeout' })
      .notified('p1', T0 + 31 * MIN, 'alice', 'push') // an ack timeout pages again
      .row('p1', 'page.acknowledged', T0 + 32 * MIN, { via: 'cli' })
      .skip()
      .notified('p1', T0 + 33 * MIN, 'bob', 'push') // not right after the ack: another plan's (a join notice)
      .row('p1', 'page.unacknowledged', T0 + 34 * MIN, { reason: 'manual' })
      .notified('p1', T0 + 34 * MIN, 'alice', 'slack') // the unack's notice
      .notified('p1', T0 + 40 * MIN, 'alice', 'push', { round: 'escalation' })
      .notified('p1', T0 + 41 * MIN, 'alice', 'push', { round: 'resolved' }) // says it is a status update
      .row('p1', 'page.resolved', T0 + 50 * MIN, { via: 'cli' })
      .notified('p1', T0 + 50 * MIN, 'alice', 'push')
      .notified('p1', T0 + 50 * MIN, 'bob', 'push')
      .notified('p1', T0 + 50 * MIN, 'bob', 'push', { round: 'join' }) // its own kind wins over where it stands
      .build()).get('p1');
    assert.deepEqual(facts?.rounds.map((r) => [r.person, r.channel, (r.tsMs - T0) / MIN]), [
      ['alice', 'push', 0], ['alice', 'slack', 0], ['alice', 'push', 31], ['bob', 'push', 33], ['alice', 'push', 40], ['bob', 'push', 50],
    ]);
  });

  it('a join told to an acknowledged page\'s holder (`joined-acked`) is a status update; a join round is a round', () => {
    const facts = pageFacts(reportRows().page('p1', T0)
      .notified('p1', T0, 'alice', 'push')
      .row('p1', 'page.acknowledged', T0 + MIN, { via: 'cli' })
      .skip()
      .notified('p1', T0 + 5 * MIN, 'alice', 'sms', { round: 'joined-acked' }) // another plan's: told by its kind alone
      .notified('p1', T0 + 6 * MIN, 'bob', 'push', { round: 'join' })
      .build()).get('p1');
    assert.deepEqual(facts?.rounds.map((r) => [r.person, r.channel, (r.tsMs - T0) / MIN]), [['alice', 'push', 0], ['bob', 'push', 6]]);
  });

  it('shadow rounds and channel targets reached nobody; other pages\' rows are not this page\'s', () => {
    const facts = pageFacts(reportRows().page('p1', T0)
      .notified('p1', T0, 'alice', 'push', { shadow: true })
      .notified('p1', T0, '-', 'team-room')
      .notified('p2', T0, 'bob', 'push')
      .notified('p1', T0, 'carol', 'push')
      .build());
    assert.deepEqual([...facts.keys()], ['p1']);
    assert.deepEqual(facts.get('p1')?.rounds.map((r) => r.person), ['carol']);
  });

  it('flapping: resolved by the source within 5 minutes of opening, never acknowledged before', () => {
    const b = reportRows();
    const cases: Array<[string, number, string, boolean]> = [['at-limit', FLAPPING_MS, 'source', false], ['late', FLAPPING_MS + 1, 'source', false],
      ['by-hand', MIN, 'cli', false], ['acked', MIN, 'source', true]];
    for (const [id, after, via, acked] of cases) {
      b.page(id, T0);
      if (acked) b.row(id, 'page.acknowledged', T0 + 1000, { via: 'cli' });
      b.row(id, 'page.resolved', T0 + after, { via });
    }
    b.page('reopened', T0).row('reopened', 'page.resolved', T0 + MIN, { via: 'source' }).row('reopened', 'page.resolved', T0 + 60 * MIN, { via: 'cli' });
    const facts = pageFacts(b.build());
    assert.deepEqual([...facts.values()].map((f) => [f.page.id, f.flapping]),
      [['at-limit', true], ['late', false], ['by-hand', false], ['acked', false], ['reopened', true]]);
  });
});
