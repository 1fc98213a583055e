import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from './clock.js';
import { raceDeadline } from './deadline.js';

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
