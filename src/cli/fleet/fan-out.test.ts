import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fanOut } from './fan-out.js';

describe('fan-out', () => {
  it('runs at most `limit` tasks at once, starts them in order, and every task runs', async () => {
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const release: Array<() => void> = [];
    const items = Array.from({ length: 40 }, (_, i) => i);
    const all = fanOut(items, 16, async (i) => {
      started.push(i);
      active += 1;
      peak = Math.max(peak, active);
      await new Promise<void>((resolve) => release.push(resolve));
      active -= 1;
      if (i === 7) throw new Error('host 7 failed');
      return i * 2;
    });
    // Release one task at a time until all have run; a new one starts only when a slot frees.
    for (let done = 0; done < items.length; done++) {
      await new Promise((r) => setImmediate(r));
      assert.ok(active <= 16);
      release.shift()?.();
    }
    const results = await all;
    assert.equal(peak, 16);
    assert.deepEqual(started, items);
    assert.deepEqual(results.map((r) => (r.ok ? r.value : 'failed')), items.map((i) => (i === 7 ? 'failed' : i * 2)));
  });
});
