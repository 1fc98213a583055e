import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_DELIVERY_WINDOW_MS, DEFAULT_LEASE_MS, resolveStore, storeBlockSchema } from './store.js';

const problems = (block: unknown): string[] => {
  const r = storeBlockSchema.safeParse(block);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the store block', () => {
  it('defaults to a 10 s lease and a 30-minute delivery window, with or without a block', () => {
    assert.deepEqual([DEFAULT_LEASE_MS, DEFAULT_DELIVERY_WINDOW_MS], [10_000, 1_800_000]);
    const none = resolveStore(undefined, '/h/svc.db');
    const empty = resolveStore(storeBlockSchema.parse({}), '/h/svc.db');
    for (const s of [none, empty]) assert.deepEqual([s.leaseMs, s.deliveryWindowMs], [10_000, 1_800_000]);
  });

  it('takes deliveryWindow as a duration: 0s for no waiting rounds, up to 7d', () => {
    assert.equal(resolveStore(storeBlockSchema.parse({ deliveryWindow: '0s' }), '/h/svc.db').deliveryWindowMs, 0);
    assert.equal(resolveStore(storeBlockSchema.parse({ deliveryWindow: '2h' }), '/h/svc.db').deliveryWindowMs, 7_200_000);
    assert.equal(resolveStore(storeBlockSchema.parse({ deliveryWindow: '7d' }), '/h/svc.db').deliveryWindowMs, 604_800_000);
  });

  it('refuses a window that is not a duration or is longer than 7d, saying what it must be', () => {
    for (const bad of ['8d', 'soon', '30', '-5m', 1800]) {
      assert.deepEqual(problems({ deliveryWindow: bad }), [bad === 1800
        ? 'deliveryWindow: Invalid input: expected string, received number'
        : 'deliveryWindow: must be a duration of at most 7d, like 30m, 2h or 0s'], String(bad));
    }
  });
});
