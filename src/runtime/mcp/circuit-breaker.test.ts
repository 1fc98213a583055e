import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { CircuitState } from '../../metrics/metric-names.js';
import { createCircuitBreaker } from './circuit-breaker.js';

/**
 * One step of a scenario: an action, then the state expected after it. `pass` checks tryPass()'s answer.
 * `wait` moves the manual clock.
 */
type Step =
  | { do: 'pass'; expect: boolean; state: CircuitState }
  | { do: 'success' | 'failure' | 'abandon'; state: CircuitState }
  | { do: 'wait'; ms: number; state: CircuitState };

interface Scenario { name: string; threshold: number; steps: Step[]; changes: CircuitState[] }

const OPEN_MS = 1_000;

const scenarios: Scenario[] = [
  { name: 'closed lets everything through', threshold: 3, changes: [], steps: [
    { do: 'pass', expect: true, state: 'closed' },
    { do: 'pass', expect: true, state: 'closed' },
    { do: 'success', state: 'closed' },
  ] },
  { name: 'opens after threshold consecutive failures', threshold: 3, changes: ['open'], steps: [
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'open' },
    { do: 'pass', expect: false, state: 'open' },
  ] },
  { name: 'a success breaks the streak', threshold: 3, changes: [], steps: [
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'closed' },
    { do: 'success', state: 'closed' },
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'closed' },
  ] },
  { name: 'threshold 1 opens on the first failure', threshold: 1, changes: ['open'], steps: [
    { do: 'failure', state: 'open' },
  ] },
  { name: 'refuses until openMs has passed, then admits exactly one trial', threshold: 1, changes: ['open', 'half-open'], steps: [
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS - 1, state: 'open' },
    { do: 'pass', expect: false, state: 'open' },
    { do: 'wait', ms: 1, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
    { do: 'pass', expect: false, state: 'half-open' },
    { do: 'pass', expect: false, state: 'half-open' },
  ] },
  { name: 'a successful trial closes the circuit', threshold: 1, changes: ['open', 'half-open', 'closed'], steps: [
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
    { do: 'success', state: 'closed' },
    { do: 'pass', expect: true, state: 'closed' },
  ] },
  { name: 'a failed trial opens it again and restarts the timer', threshold: 2, changes: ['open', 'half-open', 'open', 'half-open'], steps: [
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS + 500, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
    { do: 'wait', ms: 200, state: 'half-open' },
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS - 1, state: 'open' },
    { do: 'pass', expect: false, state: 'open' },
    { do: 'wait', ms: 1, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
  ] },
  { name: 'after closing, the full threshold is needed again', threshold: 2, changes: ['open', 'half-open', 'closed'], steps: [
    { do: 'failure', state: 'closed' },
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
    { do: 'success', state: 'closed' },
    { do: 'failure', state: 'closed' },
  ] },
  { name: 'an abandoned trial frees the slot for the next caller', threshold: 1, changes: ['open', 'half-open'], steps: [
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
    { do: 'pass', expect: false, state: 'half-open' },
    { do: 'abandon', state: 'half-open' },
    { do: 'pass', expect: true, state: 'half-open' },
  ] },
  { name: 'failures while open do not extend the open period', threshold: 1, changes: ['open', 'half-open'], steps: [
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: OPEN_MS - 100, state: 'open' },
    { do: 'failure', state: 'open' },
    { do: 'wait', ms: 100, state: 'open' },
    { do: 'pass', expect: true, state: 'half-open' },
  ] },
  { name: 'a success while open does not close it early', threshold: 1, changes: ['open'], steps: [
    { do: 'failure', state: 'open' },
    { do: 'success', state: 'open' },
    { do: 'pass', expect: false, state: 'open' },
  ] },
];

describe('createCircuitBreaker', () => {
  for (const s of scenarios) {
    it(s.name, () => {
      const clock = fakeClock(1_700_000_000_000);
      const changes: CircuitState[] = [];
      const breaker = createCircuitBreaker({ failureThreshold: s.threshold, openMs: OPEN_MS, clock, onChange: (st) => changes.push(st) });
      s.steps.forEach((step, i) => {
        const where = `step ${i} (${step.do})`;
        switch (step.do) {
          case 'pass': assert.equal(breaker.tryPass(), step.expect, where); break;
          case 'wait': clock.advance(step.ms); break;
          default: breaker[step.do]();
        }
        assert.equal(breaker.state(), step.state, where);
      });
      assert.deepEqual(changes, s.changes);
    });
  }

  it('rejects a threshold below 1', () => {
    assert.throws(() => createCircuitBreaker({ failureThreshold: 0, openMs: 1, clock: fakeClock(0), onChange: () => {} }), RangeError);
  });
});
