import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReadGate } from './read-gate.js';

describe('read gate', () => {
  it('lets `limit` in at once, the rest in arrival order as others leave', async () => {
    const gate = createReadGate(2);
    const signal = new AbortController().signal;
    const order: number[] = [];
    const a = await gate.enter(signal);
    const b = await gate.enter(signal);
    const waiting = [3, 4, 5].map((n) => gate.enter(signal).then((leave) => { order.push(n); return leave; }));
    assert.deepEqual(gate.stats(), { active: 2, waiting: 3 });
    a();
    a(); // twice is once
    const c = await waiting[0]!;
    assert.deepEqual(order, [3]);
    assert.deepEqual(gate.stats(), { active: 2, waiting: 2 });
    b();
    c();
    await Promise.all(waiting.slice(1)).then((leaves) => leaves.forEach((l) => l()));
    assert.deepEqual(order, [3, 4, 5]);
    assert.deepEqual(gate.stats(), { active: 0, waiting: 0 });
  });

  it('a waiter whose client leaves gives up its place and holds nothing', async () => {
    const gate = createReadGate(1);
    const leave = await gate.enter(new AbortController().signal);
    const gone = new AbortController();
    const waiting = gate.enter(gone.signal);
    gone.abort();
    await assert.rejects(waiting, /aborted/);
    assert.deepEqual(gate.stats(), { active: 1, waiting: 0 });
    leave();
    assert.deepEqual(gate.stats(), { active: 0, waiting: 0 });
  });
});
