import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from './clock.js';
import { every } from './every.js';

test('runs after each interval, measured from the end of the previous run', async () => {
  const clock = fakeClock();
  const runs: number[] = [];
  const loop = every({ clock, intervalMs: 100, onError: assert.fail,
    run: async (signal) => { runs.push(clock.monotonic()); await clock.sleep(30, signal).catch(() => undefined); } });
  await clock.advanceAsync(99);
  assert.deepEqual(runs, []);
  await clock.advanceAsync(1);
  assert.deepEqual(runs, [100]);
  await clock.advanceAsync(129); // the run takes 30 ms, then a 100 ms pause
  assert.deepEqual(runs, [100]);
  await clock.advanceAsync(1);
  assert.deepEqual(runs, [100, 230]);
  await loop.close();
  assert.equal(clock.pendingTimers(), 0);
});

test('close aborts the run in flight and resolves once it has ended; nothing runs after', async () => {
  const clock = fakeClock();
  let ended = false;
  let started = 0;
  const loop = every({
    clock, intervalMs: 10, firstDelayMs: 0,
    run: async (signal) => {
      started += 1;
      await clock.sleep(1000, signal).catch(() => undefined);
      ended = true;
    },
    onError: assert.fail,
  });
  await clock.advanceAsync(0);
  assert.equal(started, 1);
  const closed = loop.close();
  await closed;
  assert.equal(ended, true, 'close waited for the run in flight');
  await clock.advanceAsync(10_000);
  assert.equal(started, 1);
  assert.equal(clock.pendingTimers(), 0);
});

test('a run that throws is reported and the loop goes on; an error after close is not reported', async () => {
  const clock = fakeClock();
  const errors: unknown[] = [];
  let n = 0;
  const loop = every({ clock, intervalMs: 5, run: () => { n += 1; return Promise.reject(new Error(`run ${n}`)); }, onError: (e) => errors.push(e) });
  await clock.advanceAsync(10);
  assert.equal(n, 2);
  assert.deepEqual(errors.map((e) => (e as Error).message), ['run 1', 'run 2']);
  await loop.close();
});

test('runNow runs at once, joins a run in flight, and restarts the pause', async () => {
  const clock = fakeClock();
  const runs: number[] = [];
  const loop = every({ clock, intervalMs: () => 50, onError: assert.fail,
    run: async (signal) => { runs.push(clock.monotonic()); await clock.sleep(5, signal).catch(() => undefined); } });
  await clock.advanceAsync(20);
  const a = loop.runNow();
  const b = loop.runNow();
  assert.deepEqual(runs, [20]);
  await clock.advanceAsync(5);
  await Promise.all([a, b]);
  await clock.advanceAsync(49);
  assert.deepEqual(runs, [20]);
  await clock.advanceAsync(1);
  assert.deepEqual(runs, [20, 75]);
  await loop.close();
  await loop.runNow();
  assert.equal(runs.length, 2);
});
