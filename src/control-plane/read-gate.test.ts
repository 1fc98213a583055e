import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReadGate, takeTurn } from './read-gate.js';

describe('takeTurn', () => {
  it('gives the turn when a slot is free, and the slot back on release', async () => {
    const gate = createReadGate(1);
    const leave = await takeTurn(gate, new AbortController().signal);
    assert.notEqual(leave, null);
    assert.deepEqual(gate.stats(), { limit: 1, active: 1, waiting: 0 });
    leave?.();
    assert.deepEqual(gate.stats(), { limit: 1, active: 0, waiting: 0 });
  });

  it('is null for a client that leaves while waiting, which holds nothing; the next in line gets the turn', async () => {
    const gate = createReadGate(1);
    const holder = await takeTurn(gate, new AbortController().signal);
    const gone = new AbortController();
    const waiting = takeTurn(gate, gone.signal);
    const next = takeTurn(gate, new AbortController().signal);
    assert.deepEqual(gate.stats(), { limit: 1, active: 1, waiting: 2 });
    gone.abort();
    assert.equal(await waiting, null);
    assert.deepEqual(gate.stats(), { limit: 1, active: 1, waiting: 1 });
    holder?.();
    const turn = await next;
    assert.notEqual(turn, null);
    assert.deepEqual(gate.stats(), { limit: 1, active: 1, waiting: 0 });
  });

  it('is null at once for a client already gone', async () => {
    const gate = createReadGate(1);
    const gone = new AbortController();
    gone.abort();
    assert.equal(await takeTurn(gate, gone.signal), null);
    assert.deepEqual(gate.stats(), { limit: 1, active: 0, waiting: 0 });
  });
});
