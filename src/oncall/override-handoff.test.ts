/**
 * Overrides that change who is on call now are handoffs told at once (contract §17.6), on fake time:
 * the person on call after the change is told (the row, the line, the deliveryIds), nobody when the
 * change leaves the person on call now as they were; the schedule's timer builds the same notice.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { planHandoff } from './handoff-plan.js';
import type { Override } from './oncall-config.js';
import { HOUR, dailyShifts } from '../../test/support/oncall-config.js';
import { planOverrideHandoff } from './override-handoff.js';

const config = dailyShifts({ alice: { 'oncall-dm': 'alice', mail: 'alice@example.com' }, bob: { 'oncall-dm': 'bob' } });
// 03:00 Berlin on the 26th: alice's shift (until 09:00 that morning).
const clock = fakeClock(Date.parse('2026-11-26T02:00:00Z'));
const override = (id: string, personId: string, fromMs: number, toMs: number): Override =>
  ({ id, agentId: 'agent-a', scheduleId: 'primary', personId, fromMs, toMs });

describe('planOverrideHandoff (§17.6 schedule.handoff)', () => {
  it('"I take over now" (from a moment ago): bob is told at once, on every contact, until the override ends', () => {
    const now = clock.now();
    const o = override('o1', 'bob', now - 5000, now + HOUR);
    assert.deepEqual(planOverrideHandoff(config, [], { kind: 'add', override: o }, now), {
      audit: [{ kind: 'schedule.handoff', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { schedule: 'primary', at: '2026-11-26T02:00:00.000Z', person: 'bob', source: 'override', until: '2026-11-26T03:00:00.000Z' } }],
      notifications: [{ deliveryId: 'handoff.primary.o1-add.bob.oncall-dm', pageId: null, agentId: 'agent-a', kind: 'handoff',
        eventId: 'handoff:primary@2026-11-26T02:00:00.000Z', channelId: 'oncall-dm', person: 'bob', to: 'bob', severity: 'P3', status: 'firing',
        title: 'On call: primary', text: 'You are on call for primary until 2026-11-26 04:00 Europe/Berlin.' }],
    });
  });

  it('removing the override in force hands back to the rotation person, told with an rm deliveryId of their own', () => {
    const now = clock.now();
    const o = override('o1', 'bob', now - 5000, now + HOUR);
    const told = planOverrideHandoff(config, [o], { kind: 'rm', override: o }, now + 10 * 60_000);
    assert.deepEqual(told.audit.map((r) => r.data), [{ schedule: 'primary', at: '2026-11-26T02:10:00.000Z', person: 'alice', source: 'rotation',
      until: '2026-11-26T08:00:00.000Z' }]);
    assert.deepEqual(told.notifications.map((n) => [n.deliveryId, n.to, n.text]), [
      ['handoff.primary.o1-rm.alice.oncall-dm', 'alice', 'You are on call for primary until 2026-11-26 09:00 Europe/Berlin.'],
      ['handoff.primary.o1-rm.alice.mail', 'alice@example.com', 'You are on call for primary until 2026-11-26 09:00 Europe/Berlin.']]);
  });

  it('an override over another hands over between their people; removing it hands back to the one beneath', () => {
    const now = clock.now();
    const under = override('o1', 'bob', now - HOUR, now + 2 * HOUR);
    const over = override('o2', 'alice', now - 1000, now + HOUR);
    assert.deepEqual(planOverrideHandoff(config, [under], { kind: 'add', override: over }, now).audit.map((r) => [r.data.person, r.data.source]),
      [['alice', 'override']]);
    assert.deepEqual(planOverrideHandoff(config, [under, over], { kind: 'rm', override: over }, now).notifications.map((n) => n.deliveryId),
      ['handoff.primary.o2-rm.bob.oncall-dm']);
  });

  it('tells nobody when the person on call now stays: a future override, one naming them, one of another agent, removing one not in force', () => {
    const now = clock.now();
    const nobody = { audit: [], notifications: [] };
    const future = override('o1', 'bob', now + HOUR, now + 2 * HOUR);
    assert.deepEqual(planOverrideHandoff(config, [], { kind: 'add', override: future }, now), nobody);
    assert.deepEqual(planOverrideHandoff(config, [future], { kind: 'rm', override: future }, now), nobody);
    assert.deepEqual(planOverrideHandoff(config, [], { kind: 'add', override: override('o2', 'alice', now - 5000, now + HOUR) }, now), nobody);
    // Another agent's override of a schedule with the same id does not decide who is on call in this one.
    const elsewhere = { ...override('o3', 'bob', now - HOUR, now + HOUR), agentId: 'agent-b' };
    assert.deepEqual(planOverrideHandoff(config, [elsewhere], { kind: 'add', override: override('o4', 'alice', now - 5000, now + HOUR) }, now), nobody);
    assert.deepEqual(planOverrideHandoff(config, [], { kind: 'add', override: { ...override('o5', 'bob', now - 5000, now + HOUR), scheduleId: 'gone' } },
      now), nobody, 'a schedule no longer in the file');
  });

  it('the timer tells with the same notice: the same row shape, the due time in the deliveryId', () => {
    const due = Date.parse('2026-11-25T08:00:00Z');
    const plan = planHandoff(config, 'agent-a', config.schedules[0]!, [], due, due + 1000);
    assert.deepEqual(plan?.audit.map((r) => r.data), [{ schedule: 'primary', at: '2026-11-25T08:00:00.000Z', person: 'alice', source: 'rotation',
      until: '2026-11-26T08:00:00.000Z' }]);
    assert.deepEqual(plan?.notifications.map((n) => n.deliveryId), [`handoff.primary.${due}.alice.oncall-dm`, `handoff.primary.${due}.alice.mail`]);
  });
});

describe('planHandoff after an override change (§17.6)', () => {
  const schedule = config.schedules[0]!;
  it('moves the timer forward to an override\'s start, and back to the rotation\'s next change once one in force is removed', () => {
    const now = clock.now();
    const rotationNext = Date.parse('2026-11-26T08:00:00Z');
    const future = override('o1', 'bob', now + HOUR, now + 2 * HOUR);
    assert.equal(planHandoff(config, 'agent-a', schedule, [future], rotationNext, now)?.nextMs, now + HOUR);
    const inForce = override('o2', 'bob', now - 5000, now + HOUR);
    assert.equal(planHandoff(config, 'agent-a', schedule, [inForce], rotationNext, now)?.nextMs, now + HOUR, 'the override\'s end is the next change');
    // Removed: its end is no change any more; the timer goes back, so nobody is told again at that time.
    const back = planHandoff(config, 'agent-a', schedule, [], now + HOUR, now + 60_000);
    assert.deepEqual([back?.nextMs, back?.audit], [rotationNext, []]);
    assert.equal(planHandoff(config, 'agent-a', schedule, [], rotationNext, now + 60_000), null, 'a timer that is right stays');
  });
});
