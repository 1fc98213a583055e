import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { createMetrics } from '../metrics/registry.js';
import { createSourceStats } from '../metrics/source-stats.js';
import type { BacklogCount, Store } from '../store/store.js';
import { COST_FACTOR, startBacklogGauge } from './backlog-gauge.js';

describe('backlog gauge', () => {
  it('counts every interval, and after a slow count pauses COST_FACTOR times as long as it took', async () => {
    const clock = fakeClock();
    let costMs = 0;
    let counts = 0;
    let waiting = 7;
    // A count that takes `costMs` of (fake) time, as a walk over a deep index does.
    const store = {
      backlog: () => {
        counts += 1;
        const answer: BacklogCount[] = [{ agentId: 'oncall', sourceId: 'am', count: waiting }];
        return costMs === 0 ? Promise.resolve(answer) : new Promise<BacklogCount[]>((resolve) => { clock.setTimer(() => resolve(answer), costMs); });
      },
    } as unknown as Store;
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, agents: [{ id: 'oncall', sources: ['am'] }] });
    const gauge = startBacklogGauge({ store, clock, metrics: metrics.dispatch, stats, agents: ['oncall'], intervalMs: 2_000,
      onError: (err) => assert.fail(String(err)) });
    try {
      await clock.advanceAsync(2_000);
      assert.equal(counts, 1);
      assert.equal(stats.get('oncall', 'am').inflight, 7);

      costMs = 100; // the next count is slow
      waiting = 1_000_000;
      await clock.advanceAsync(2_100);
      assert.equal(counts, 2);
      assert.equal(stats.get('oncall', 'am').inflight, 1_000_000);
      assert.match(await metrics.registry.metrics(), /^svc_dispatch_backlog\{agent="oncall"\} 1000000$/m);

      costMs = 0;
      const pauseMs = 100 * COST_FACTOR;
      await clock.advanceAsync(pauseMs - 1);
      assert.equal(counts, 2, `no count within ${pauseMs} ms of a 100 ms one`);
      await clock.advanceAsync(1);
      assert.equal(counts, 3, 'the count after the pause');
      await clock.advanceAsync(2_000);
      assert.equal(counts, 4, 'a fast count brings the interval back');
    } finally {
      await gauge.close();
    }
  });
});
