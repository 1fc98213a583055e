import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Override, Policy } from './oncall-config.js';
import type { PageRecord } from './page.js';
import { planOpen } from './page-plan.js';
import type { NextAgent } from './stranded-state.js';
import { strandedState } from './stranded-state.js';
import { testPerson } from '../../test/support/oncall-config.js';

const policy: Policy = { id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [{ kind: 'schedule', id: 'managers' }],
  steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 60_000 }, { notify: [{ kind: 'person', id: 'bob' }, { kind: 'channel', id: 'room' }], afterMs: 60_000 }] };
const page = (id: string, state: PageRecord['state'] = 'triggered'): PageRecord => ({
  ...planOpen({ pageId: id, agentId: 'ops', incidentKey: id, policy, policySha256: 'sha', event: { id: 'e1', title: 'Disk full on db-1', severity: 'P1' },
    nowMs: 0, resolve: () => ({ recipients: [], nobodyOnCall: [] }) }).page, state });
const next = (people: string[], schedules: string[], channels = ['dm', 'room']): NextAgent => ({ channels,
  people: people.map((id) => testPerson(id, { dm: id })),
  schedules: schedules.map((id) => ({ id, timeZone: 'UTC', rotations: [], fallback: null, allowGaps: true })) });
const override: Override = { id: 'o1', agentId: 'ops', scheduleId: 'primary', personId: 'carol', fromMs: 0, toMs: Date.parse('2026-11-25T10:00:00Z') };

describe('strandedState (issue 33.4)', () => {
  it('names each open page whose stored policy notifies a person or schedule the new file drops, and each override for a dropped person', () => {
    assert.deepEqual(strandedState('ops', next(['alice'], ['primary']), [page('p1'), page('p2', 'acknowledged'), page('p3', 'resolved')], [override]), [
      'agent ops: open page p1 ("Disk full on db-1", policy default) notifies person:bob, schedule:managers, which the new oncall.yaml does not have',
      'agent ops: open page p2 ("Disk full on db-1", policy default) notifies person:bob, schedule:managers, which the new oncall.yaml does not have',
      'agent ops: override o1 puts carol on call for primary until 2026-11-25T10:00:00.000Z, and the new oncall.yaml has no person carol',
    ]);
  });

  it('names each open page whose stored policy notifies a channel the new channels.yaml drops, beside the people and schedules', () => {
    assert.deepEqual(strandedState('ops', next(['alice', 'bob', 'carol'], ['primary', 'managers'], ['dm']), [page('p1'), page('p3', 'resolved')], []), [
      'agent ops: open page p1 ("Disk full on db-1", policy default) notifies channel:room, which the new channels.yaml does not have',
    ]);
    assert.deepEqual(strandedState('ops', next(['alice'], ['primary', 'managers'], []), [page('p1')], []), [
      'agent ops: open page p1 ("Disk full on db-1", policy default) notifies person:bob, which the new oncall.yaml does not have, '
        + 'and channel:room, which the new channels.yaml does not have',
    ]);
  });

  it('nothing when the file keeps everyone the store names, or the state is another agent\'s', () => {
    assert.deepEqual(strandedState('ops', next(['alice', 'bob', 'carol'], ['primary', 'managers']), [page('p1')], [override]), []);
    assert.deepEqual(strandedState('other', next([], []), [page('p1')], [override]), []);
  });
});
