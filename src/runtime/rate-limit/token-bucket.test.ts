import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { FakeClock } from '../../core/clock.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import { createMetrics } from '../../metrics/registry.js';
import { createAgentRateLimiters } from './rate-limiters.js';
import { createTokenBucket } from './token-bucket.js';

/** A fake clock whose sleeps move it at once instead of waiting, recording what they were asked. */
function fakeTime(start = 1_000_000) {
  const fake = fakeClock(start);
  const slept: number[] = [];
  const clock: FakeClock = {
    ...fake,
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      slept.push(ms);
      fake.advance(ms);
      return Promise.resolve();
    },
  };
  return { clock, slept };
}

describe('token bucket', () => {
  it('lets a burst through at once, then spaces callers by 1/perSecond', async () => {
    const t = fakeTime();
    const bucket = createTokenBucket({ perSecond: 2, burst: 3 }, t);
    const waits: number[] = [];
    for (let i = 0; i < 6; i += 1) waits.push((await bucket.take()).waitedMs);
    assert.deepEqual(waits, [0, 0, 0, 500, 500, 500]);
  });

  it('refills over time, never above burst', async () => {
    const t = fakeTime();
    const bucket = createTokenBucket({ perSecond: 10, burst: 2 }, t);
    await bucket.take();
    await bucket.take();
    t.clock.advance(60_000); // a minute idle: still only 2 tokens
    assert.equal((await bucket.take()).waitedMs, 0);
    assert.equal((await bucket.take()).waitedMs, 0);
    assert.equal((await bucket.take()).waitedMs, 100);
  });

  it('serves concurrent waiters in arrival order', async () => {
    const t = fakeTime();
    const bucket = createTokenBucket({ perSecond: 1, burst: 1 }, t);
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => bucket.take().then(() => { order.push(i); })));
    assert.deepEqual(order, [0, 1, 2, 3]);
    assert.equal(bucket.waiting(), 0);
  });

  it('rejects an aborted waiter without spending a token', async () => {
    const t = fakeTime();
    const bucket = createTokenBucket({ perSecond: 1, burst: 1 }, t);
    await bucket.take();
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await assert.rejects(bucket.take(ac.signal), /stop/);
    t.clock.advance(1000);
    assert.equal((await bucket.take()).waitedMs, 0);
  });

  it('a waiter queued behind others leaves at once when its signal aborts', async () => {
    const clock = fakeClock(0);
    // Time never moves: the queued waiter can leave only through its signal.
    const bucket = createTokenBucket({ perSecond: 1, burst: 1 }, { clock });
    await bucket.take();
    const first = new AbortController();
    const blocked = bucket.take(first.signal); // waits on the (never ending) sleep
    const second = new AbortController();
    const queued = bucket.take(second.signal); // waits behind the first
    second.abort(new Error('gone'));
    await assert.rejects(queued, /gone/);
    first.abort(new Error('done'));
    await assert.rejects(blocked, /done/);
    assert.equal(bucket.waiting(), 0);
  });

  it('refuses nonsense limits', () => {
    const t = fakeTime();
    assert.throws(() => createTokenBucket({ perSecond: 0, burst: 1 }, t), /perSecond/);
    assert.throws(() => createTokenBucket({ perSecond: 1, burst: 0 }, t), /burst/);
  });
});

describe('agent rate limiters', () => {
  it('count provider and tool waits in the metrics, by agent and tool', async () => {
    const t = fakeTime();
    const metrics = createMetrics({ stats: createSourceStats(), agents: [{ id: 'oncall', sources: [] }] });
    const limits = createAgentRateLimiters({ agentId: 'oncall', metrics: metrics.rateLimit, ...t,
      config: { provider: { perSecond: 4, burst: 1 }, tool: { perSecond: 1, burst: 1 }, tools: { lookup: { perSecond: 2, burst: 2 } } } });
    for (let i = 0; i < 3; i += 1) await limits.provider();
    for (let i = 0; i < 3; i += 1) await limits.tool('lookup');
    for (let i = 0; i < 2; i += 1) await limits.tool('other');
    const text = await metrics.registry.metrics();
    assert.match(text, /^svc_provider_rate_limit_waits\{agent="oncall"\} 2$/m);
    assert.match(text, /^svc_provider_rate_limit_wait_ms_count\{agent="oncall"\} 2$/m);
    assert.match(text, /^svc_provider_rate_limit_wait_ms_sum\{agent="oncall"\} 500$/m);
    assert.match(text, /^svc_tool_rate_limit_waits_total\{agent="oncall",tool="lookup"\} 1$/m);
    assert.match(text, /^svc_tool_rate_limit_waits_total\{agent="oncall",tool="other"\} 1$/m);
  });

  it('never waits when no limit is configured', async () => {
    const t = fakeTime();
    const metrics = createMetrics({ stats: createSourceStats(), agents: [{ id: 'a', sources: [] }] });
    const limits = createAgentRateLimiters({ agentId: 'a', metrics: metrics.rateLimit, ...t, config: { tools: {} } });
    for (let i = 0; i < 100; i += 1) {
      await limits.provider();
      await limits.tool('x');
    }
    assert.deepEqual(t.slept, []);
    assert.doesNotMatch(await metrics.registry.metrics(), /svc_tool_rate_limit_waits_total\{/);
  });
});
