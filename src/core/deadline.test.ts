import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { fakeClock } from './clock.js';
import { raceDeadline, signalScope, startDeadline } from './deadline.js';

test('raceDeadline: the value in time, the error in time, a timeout past it; no timer left behind', async () => {
  const clock = fakeClock();
  assert.deepEqual(await raceDeadline(100, clock, Promise.resolve(7)), { ok: true, value: 7 });
  const failed = await raceDeadline(100, clock, Promise.reject(new Error('store down')));
  assert.equal(failed.ok, false);
  assert.equal(!failed.ok && failed.why, 'error');
  assert.equal(clock.pendingTimers(), 0);

  let release: (v: number) => void = () => undefined;
  const slow = raceDeadline(100, clock, new Promise<number>((resolve) => { release = resolve; }));
  await clock.advanceAsync(100);
  const late = await slow;
  assert.equal(!late.ok && late.why, 'timeout');
  release(1); // a late answer changes nothing
  assert.equal(clock.pendingTimers(), 0);
});

test('signalScope: 20 tasks, each with a deadline on its own signal, put one listener on the outer signal; its abort reaches all', () => {
  const clock = fakeClock();
  const outer = new AbortController();
  const scope = signalScope(outer.signal);
  const tasks = Array.from({ length: 20 }, () => scope.signal());
  const deadlines = tasks.map((t) => startDeadline(1000, clock, t.signal));
  assert.equal(getEventListeners(outer.signal, 'abort').length, 1);
  outer.abort(new Error('stopping'));
  assert.deepEqual(deadlines.map((d) => d.why()), Array.from({ length: 20 }, () => 'aborted'));
  for (const d of deadlines) d.dispose();
  for (const t of tasks) t.dispose();
  scope.dispose();
  assert.equal(getEventListeners(outer.signal, 'abort').length, 0);
  assert.equal(scope.signal().signal.aborted, true, 'a task started after the abort starts aborted');
});
