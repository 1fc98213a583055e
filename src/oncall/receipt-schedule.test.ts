import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RECEIPT_POLL, createReceiptSchedule, pollIntervalMs } from './receipt-schedule.js';

/**
 * Runs a schedule of `n` receipts for `forMs` of fake time, waking when it says to, each ask taking
 * `latencyMs` with at most `inFlight` at once; returns every ask's start per receipt.
 */
function simulate(n: number, forMs: number, opts: { latencyMs?: number; inFlight?: number; startMs?: number } = {}): Map<string, number[]> {
  const schedule = createReceiptSchedule();
  const ids = Array.from({ length: n }, (_, i) => `r${i}`);
  const asks = new Map(ids.map((id) => [id, [] as number[]]));
  const startMs = opts.startMs ?? 0;
  schedule.sync(ids, startMs);
  const running: Array<{ id: string; endsAt: number; startedAt: number }> = [];
  let now = startMs;
  while (now < startMs + forMs) {
    for (let i = running.length - 1; i >= 0; i -= 1) {
      const r = running[i] as { id: string; endsAt: number; startedAt: number };
      if (r.endsAt <= now) {
        schedule.done(r.id, r.startedAt);
        running.splice(i, 1);
      }
    }
    while (running.length < (opts.inFlight ?? 2)) {
      const id = schedule.take(now);
      if (id === null) break;
      asks.get(id)?.push(now);
      running.push({ id, startedAt: now, endsAt: now + (opts.latencyMs ?? 1) });
    }
    const wakes = [schedule.wakeAtMs() ?? Infinity, ...running.map((r) => r.endsAt)];
    // A real timer fires late by up to a millisecond.
    now = Math.max(now + 0.25, Math.min(...wakes)) + 0.5;
  }
  return asks;
}

const gaps = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - (times[i] as number));

describe('receipt polling schedule (§21.3)', () => {
  it('every 5 s while few are watched, spreading as they grow to every 29 s — a second under the 30 s bound — never slower', () => {
    assert.equal(pollIntervalMs(1), 5_000);
    assert.equal(pollIntervalMs(50), 5_000);
    assert.equal(pollIntervalMs(120), 12_000);
    assert.equal(pollIntervalMs(290), 29_000);
    assert.equal(pollIntervalMs(1000), 29_000);
  });

  it('a few receipts: each asked every 5 s — never sooner — the first ask 5 s after it is first seen', () => {
    const asks = simulate(3, 60_000, { startMs: 1_000_000 });
    for (const times of asks.values()) {
      assert.ok((times[0] as number) >= 1_005_000);
      assert.ok(gaps(times).every((g) => g >= RECEIPT_POLL.minIntervalMs && g <= 5_100), JSON.stringify(gaps(times)));
      assert.ok(times.length >= 11);
    }
  });

  it('1,000 receipts: each asked every 30 s at most and 5 s at least, evenly spread (≈34 asks a second), with 2 in flight at 10 ms each', () => {
    const asks = simulate(1000, 125_000, { latencyMs: 10, inFlight: 2 });
    const all = [...asks.values()];
    const every = all.flatMap(gaps);
    assert.ok(every.length >= 3000);
    assert.ok(Math.min(...every) >= RECEIPT_POLL.minIntervalMs);
    assert.ok(Math.max(...every) <= 30_000, `slowest gap ${Math.max(...every)} ms`);
    // Spread: no second holds more than 40 asks (34 on average).
    const perSecond = new Map<number, number>();
    for (const t of all.flat()) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    const busy = [...perSecond.entries()].filter(([s]) => s >= 6 && s < 120).map(([, c]) => c);
    assert.ok(Math.max(...busy) <= 40 && Math.min(...busy) >= 28, `asks per second ${Math.min(...busy)}..${Math.max(...busy)}`);
  });

  it('a receipt dropped from the watch is never asked again; one added later waits its 5 s', () => {
    const s = createReceiptSchedule();
    s.sync(['a', 'b'], 0);
    assert.equal(s.take(4_999), null);
    assert.equal(s.take(5_000), 'a');
    s.sync(['b', 'c'], 5_000); // a dropped while asked about; c new
    s.done('a', 5_000);
    assert.equal(s.take(5_500), 'b');
    s.done('b', 5_500);
    assert.equal(s.take(9_999), null);
    assert.equal(s.take(10_000), 'c');
    s.done('c', 10_000);
    const later: string[] = [];
    for (let t = 10_001; t < 60_000; t += 100) for (let id = s.take(t); id !== null; id = s.take(t)) { later.push(id); s.done(id, t); }
    assert.deepEqual([...new Set(later)].sort(), ['b', 'c']);
    assert.equal(s.size(), 2);
  });

  it('a vendor\'s Retry-After pauses every ask until then; a cancel spends a slot', () => {
    const s = createReceiptSchedule();
    s.sync(['a', 'b'], 0);
    s.pause(20_000);
    assert.equal(s.take(10_000), null);
    assert.equal(s.wakeAtMs(), 20_000);
    assert.equal(s.spend(20_000), true);
    assert.equal(s.take(20_000), null, 'the slot went to the cancel');
    assert.equal(s.take(s.slotAtMs()), 'a');
  });

  it('does not burst after an idle spell: at most two asks start together, then one spacing apart', () => {
    const s = createReceiptSchedule();
    s.sync(Array.from({ length: 100 }, (_, i) => `r${i}`), 0);
    const starts: number[] = [];
    for (let t = 1_000_000; starts.length < 5; t += 1) while (starts.length < 5 && s.take(t) !== null) starts.push(t);
    assert.deepEqual(gaps(starts), [0, 100, 100, 100]);
  });
});
