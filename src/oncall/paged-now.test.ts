import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dailyShifts, HOUR } from '../../test/support/oncall-config.js';
import type { Policy } from './oncall-config.js';
import { pagedNow } from './paged-now.js';

const config = dailyShifts({ alice: { dm: 'alice' }, bob: { dm: 'bob' } });
const policy: Policy = { id: 'default', repeat: 1, ackTimeoutMs: 0, onExhausted: [], steps: [
  { notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 5 * 60_000 },
  { notify: [{ kind: 'person', id: 'carol' }, { kind: 'channel', id: 'room' }], afterMs: 10 * 60_000 },
] };
// 2026-11-25 07:30Z: bob's day until 08:00Z, then alice's.
const NOW = Date.UTC(2026, 10, 25, 7, 30);
const page = { state: 'triggered' as const, step: 1, loop: 0, policy, nextEscalationAtMs: NOW + 5 * 60_000, exhausted: false };

describe('who an open page pages now and next (§24.8)', () => {
  it('step 1 pages whoever is on call now; next is step 2 at the escalation, its people and channels named', () => {
    assert.deepEqual(pagedNow(page, config, [], NOW), { step: 1, steps: 2, now: ['bob'],
      next: { step: 2, who: ['carol', 'channel room'], atMs: NOW + 5 * 60_000 } });
  });

  it('a schedule in the next step is read at the escalation, not now; an override wins', () => {
    const late = { ...page, step: 2, nextEscalationAtMs: NOW + HOUR };
    // After step 2 the policy loops back to step 1 (repeat 1), which alice will be on call for by then.
    assert.deepEqual(pagedNow(late, config, [], NOW)?.next, { step: 1, who: ['alice'], atMs: NOW + HOUR });
    const override = { id: 'o1', agentId: 'a', scheduleId: 'primary', personId: 'dana', fromMs: NOW - HOUR, toMs: NOW + HOUR };
    assert.deepEqual(pagedNow(page, config, [override], NOW)?.now, ['dana']);
  });

  it('the last pass has no next step; an acknowledged page pages nobody next; a resolved one nobody at all; an empty schedule says so', () => {
    assert.equal(pagedNow({ ...page, step: 2, loop: 1 }, config, [], NOW)?.next, null);
    assert.equal(pagedNow({ ...page, state: 'acknowledged', nextEscalationAtMs: null }, config, [], NOW)?.next, null);
    assert.equal(pagedNow({ ...page, state: 'resolved' }, config, [], NOW), null);
    const gap = { ...config, schedules: [] };
    assert.deepEqual(pagedNow(page, gap, [], NOW)?.now, ['nobody on call in primary']);
  });
});
