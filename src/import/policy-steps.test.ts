import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stepsFrom } from './policy-steps.js';
import { notifyRules } from './personal-rules.js';
import { fillTurns, localHandoff, rotate, shiftLength } from './rotation-parts.js';

const MIN = 60_000;
const p = (id: string) => ({ kind: 'person' as const, id });

describe('the pieces policies and rotations are built from', () => {
  it('turns a timeline into steps: one step per moment, the gap to the next as after', () => {
    const { steps, notes } = stepsFrom([{ atMs: 10 * MIN, targets: [p('carol')] }, { atMs: 0, targets: [p('alice')] }, { atMs: 0, targets: [p('bob'), p('alice')] }], 7 * MIN);
    assert.deepEqual(steps, [{ notify: [p('alice'), p('bob')], afterMs: 10 * MIN }, { notify: [p('carol')], afterMs: 7 * MIN }]);
    assert.deepEqual(notes, []);
  });

  it('says where svc differs: a first step that waited, a wait outside 1s..24h', () => {
    const { steps, notes } = stepsFrom([{ atMs: 5 * MIN, targets: [p('alice')] }], 0);
    assert.deepEqual(steps, [{ notify: [p('alice')], afterMs: 1000 }]);
    assert.deepEqual(notes, ['svc notifies the first step as the page opens; the source waited 5m first', 'the wait after the last step (none) is outside svc\'s 1s..24h: 1s instead']);
  });

  it('groups personal steps by delay and caps them at an hour', () => {
    const notes: string[] = [];
    assert.deepEqual(notifyRules([{ afterMs: 0, channel: 'mail' }, { afterMs: 90 * MIN, channel: 'sms' }, { afterMs: 0, channel: 'push' }, { afterMs: 0, channel: 'mail' }], notes),
      [{ afterMs: 0, via: ['mail', 'push'] }, { afterMs: 60 * MIN, via: ['sms'] }]);
    assert.equal(notes.length, 1);
  });

  it('gives a turn without a person to the one before it, and reads instants as local handoffs', () => {
    assert.deepEqual(fillTurns([undefined, 'a', undefined, 'b']), ['a', 'a', 'a', 'b']);
    assert.equal(fillTurns([undefined]), null);
    assert.deepEqual(rotate(['a', 'b', 'c'], 1), ['b', 'c', 'a']);
    assert.deepEqual(rotate(['a', 'b', 'c'], -1), ['c', 'a', 'b']);
    assert.deepEqual(localHandoff(Date.parse('2026-07-01T07:00:30Z'), 'Europe/Berlin'), { handoff: '2026-07-01T09:00', cut: true });
    assert.deepEqual(shiftLength(90 * 86_400_000, 1), { everyMs: 7 * 86_400_000, note: null }, 'one person: any length is the same');
    assert.equal(shiftLength(90 * 86_400_000, 2).everyMs, 28 * 86_400_000);
  });
});
