/**
 * A page notification's patience (decideNoticeRetry, contract §17.4), on fake time: every try fails
 * at the clock's now and the next one is made when the decision says — the quick back-off first, then
 * rounds doubling up to RETRY_CEILING_MS, the last on the end of the window that began when it was queued.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { NoticeTry } from './delivery-state.js';
import { RETRY_CEILING_MS, decideNoticeRetry } from './delivery-state.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const policy = { initialBackoffMs: 500, maxBackoffMs: 30_000 };

/** Fails every try until the decision gives up: the waits between tries, and when it gave up (ms after queueing). */
function outage(windowMs: number, retryAfterMs?: number, maxAttempts = 5): { waits: number[]; gaveUpAtMs: number; attempts: number } {
  const clock = fakeClock(T0);
  const waits: number[] = [];
  for (let attempt = 1; attempt < 1000; attempt++) {
    const t: NoticeTry = { attempt, maxAttempts, queuedAtMs: T0, nowMs: clock.now(), windowMs, policy,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    const next = decideNoticeRetry(t);
    if (!('retryAtMs' in next)) return { waits, gaveUpAtMs: clock.now() - T0, attempts: attempt };
    waits.push(next.retryAtMs - clock.now());
    clock.advance(next.retryAtMs - clock.now());
  }
  throw new Error('never gave up');
}

describe('decideNoticeRetry: a page notice waits out an outage until store.deliveryWindow', () => {
  it('quick tries as before, then rounds from the back-off ceiling doubling to 5 minutes; the last try on the window\'s end, then it gives up', () => {
    const r = outage(30 * MIN);
    assert.equal(RETRY_CEILING_MS, 5 * MIN);
    assert.deepEqual(r.waits, [500, 1_000, 2_000, 4_000, 30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000, 300_000, 142_500]);
    assert.equal(r.waits.reduce((a, b) => a + b, 0), 30 * MIN, 'the last try falls on the window\'s end');
    assert.deepEqual([r.gaveUpAtMs, r.attempts], [30 * MIN, 14], 'given up when that try failed too');
  });

  it('a try at or past the window\'s end gives up; one before it waits at most until the end', () => {
    const at = (nowMs: number) => decideNoticeRetry({ attempt: 7, maxAttempts: 5, queuedAtMs: T0, nowMs, windowMs: 30 * MIN, policy });
    assert.deepEqual(at(T0 + 30 * MIN), { giveUp: true });
    assert.deepEqual(at(T0 + 31 * MIN), { giveUp: true });
    assert.deepEqual(at(T0 + 30 * MIN - 1), { retryAtMs: T0 + 30 * MIN });
    assert.deepEqual(at(T0 + 10 * MIN), { retryAtMs: T0 + 12 * MIN }, 'the third round waits 2 minutes');
  });

  it('window 0: gives up after the quick tries, as `deliveryWindow: 0s` does for events', () => {
    const r = outage(0);
    assert.deepEqual(r.waits, [500, 1_000, 2_000, 4_000]);
    assert.deepEqual([r.gaveUpAtMs, r.attempts], [7_500, 5]);
  });

  it('a Retry-After longer than the wait wins (capped by the back-off ceiling in quick tries, by the window in rounds)', () => {
    const r = outage(10 * MIN, 90_000, 2);
    assert.deepEqual(r.waits, [30_000, 90_000, 90_000, 120_000, 240_000, 30_000]);
    assert.deepEqual([r.gaveUpAtMs, r.attempts], [10 * MIN, 7]);
    const shorter = decideNoticeRetry({ attempt: 5, maxAttempts: 5, queuedAtMs: T0, nowMs: T0, windowMs: 30 * MIN, policy, retryAfterMs: 1_000 });
    assert.deepEqual(shorter, { retryAtMs: T0 + 30_000 }, 'a shorter Retry-After does not hasten a round');
  });
});
