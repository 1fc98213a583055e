import assert from 'node:assert/strict';
import { it } from 'node:test';
import { distribution } from './percentiles.js';

it('p50, p90 and max by nearest rank, in seconds: always one of the values, whatever the order given', () => {
  const tens = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5].map((s) => s * 1000);
  assert.deepEqual(distribution(tens), { count: 10, p50: 5, p90: 9, max: 10 });
  assert.deepEqual(distribution([1, 2, 3, 4].map((s) => s * 1000)), { count: 4, p50: 2, p90: 4, max: 4 }, 'not 2.5: no interpolation');
  assert.deepEqual(distribution([42_123]), { count: 1, p50: 42.123, p90: 42.123, max: 42.123 });
  assert.deepEqual(distribution([]), { count: 0, p50: null, p90: null, max: null });
  // A long tail: the mean (≈ 1,000 s) would say every ack is slow; the distribution says nine in ten are fast.
  const tail = [...Array<number>(90).fill(30_000), ...Array<number>(10).fill(9_700_000)];
  assert.deepEqual(distribution(tail), { count: 100, p50: 30, p90: 30, max: 9700 });
  assert.equal(distribution([...Array<number>(89).fill(30_000), ...Array<number>(11).fill(9_700_000)]).p90, 9700);
});
