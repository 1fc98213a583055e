import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from './clock.js';
import { timerSlot } from './timer-slot.js';

describe('timerSlot', () => {
  it('fires once at the time set last; a later set replaces the earlier', () => {
    const clock = fakeClock(0);
    const fired: number[] = [];
    const slot = timerSlot(clock, new AbortController().signal, () => fired.push(clock.monotonic()));
    slot.set(100);
    slot.set(30);
    clock.advance(200);
    assert.deepEqual(fired, [30]);
    slot.set(0);
    clock.advance(0);
    assert.deepEqual(fired, [30, 200]);
  });

  it('an abort clears the timer pending and every set after it is ignored', () => {
    const clock = fakeClock(0);
    const stop = new AbortController();
    let fired = 0;
    const slot = timerSlot(clock, stop.signal, () => { fired += 1; });
    slot.set(50);
    stop.abort();
    slot.set(10);
    clock.advance(100);
    assert.equal(fired, 0);
    assert.equal(clock.pendingTimers(), 0);
  });
});
