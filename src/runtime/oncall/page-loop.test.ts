import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { PageRecord } from '../../oncall/page.js';
import type { DueClaim, Quarantined } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import type { PageEngine } from './page-engine.js';
import { createPageLoop } from './page-loop.js';

/** A store of due pages alone: no heartbeat, handoff or open page for the watches to find. */
const storeOf = (claimDuePages: (owner: string, nowMs: number) => Promise<PageRecord[] | DueClaim>): Store => ({ oncall: {
  claimDuePages: async (owner: string, nowMs: number) => {
    const due = await claimDuePages(owner, nowMs);
    return Array.isArray(due) ? { pages: due, quarantined: [] } : due;
  }, listHeartbeats: () => Promise.resolve([]), listHandoffs: () => Promise.resolve([]), openPageCounts: () => Promise.resolve([]),
} }) as unknown as Store;

describe('page loop', () => {
  it('fires a claimed batch of due pages together, so their plans can share a commit', async () => {
    const clock = fakeClock(1_000_000);
    const due = ['p000000000001', 'p000000000002', 'p000000000003'].map((id) => ({ id, agentId: 'a',
      nextEscalationAtMs: 999_000, ackTimeoutAtMs: null, joinNoticeAtMs: null }) as unknown as PageRecord);
    let claims = 0;
    const store = storeOf(() => Promise.resolve(claims++ === 0 ? due : []));
    // Each fire waits until every claimed page is being fired: one after another, the first never returns.
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const all = new Promise<void>((resolve) => { release = resolve; });
    const fired: string[] = [];
    const engine = { fire: async (page: PageRecord) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      if (inFlight === due.length) release();
      await Promise.race([all, new Promise((resolve) => { setTimeout(resolve, 500); })]);
      fired.push(page.id);
      inFlight -= 1;
    } } as unknown as PageEngine;
    const lags: number[] = [];
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, configs: new Map(),
      onError: (err) => { throw err; }, timerLag: (s) => lags.push(s) });
    loop.start();
    await clock.advanceAsync(0);
    for (let i = 0; i < 50 && fired.length < due.length; i++) await new Promise((resolve) => { setTimeout(resolve, 20); });
    await loop.close();
    assert.equal(most, 3, 'all three fired at once');
    assert.deepEqual([...fired].sort(), due.map((p) => p.id));
    assert.deepEqual(lags, [1, 1, 1], 'each lag is due → claimed, in seconds');
  });

  it('a timer due every 10 ms: one round per 200 ms poll fires the ones due since the last, together', async () => {
    const T = 1_000_000;
    const clock = fakeClock(T);
    let rounds = 0;
    let handedOut = 0;
    const store = storeOf((_owner: string, nowMs: number) => {
      // Page i falls due at T + 10·i; each round is handed those due by then.
      rounds += 1;
      const due: PageRecord[] = [];
      for (; T + handedOut * 10 <= nowMs; handedOut++) {
        due.push({ id: `p${String(handedOut).padStart(12, '0')}`, agentId: 'a', nextEscalationAtMs: T + handedOut * 10, ackTimeoutAtMs: null,
          joinNoticeAtMs: null } as unknown as PageRecord);
      }
      return Promise.resolve(due);
    });
    let fired = 0;
    const engine = { fire: () => { fired += 1; return Promise.resolve(); } } as unknown as PageEngine;
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, configs: new Map(), pollMs: 200, onError: (err) => { throw err; } });
    loop.start();
    for (let ms = 0; ms < 1000; ms += 10) await clock.advanceAsync(10);
    await loop.close();
    assert.equal(fired, 101, 'every timer due in the second fired (at 0, 10, …, 1000 ms)');
    assert.equal(rounds, 6, 'one round at the start and one per poll');
  });

  it('rounds keep the poll\'s pace from start to start: a round of 150 ms does not push the next one to 350 ms', async () => {
    const clock = fakeClock(1_000_000);
    const starts: number[] = [];
    const store = storeOf(() => {
      starts.push(clock.monotonic());
      return Promise.resolve([{ id: `p${String(starts.length).padStart(12, '0')}`, agentId: 'a', nextEscalationAtMs: clock.now(),
        ackTimeoutAtMs: null, joinNoticeAtMs: null } as unknown as PageRecord]);
    });
    const engine = { fire: () => clock.sleep(150) } as unknown as PageEngine;
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, configs: new Map(),
      pollMs: 200, onError: (err) => { throw err; } });
    loop.start();
    for (let ms = 0; ms < 1000; ms += 10) await clock.advanceAsync(10);
    const closing = loop.close();
    await clock.advanceAsync(150); // the round started at 1000 ms ends
    await closing;
    assert.deepEqual(starts, [0, 200, 400, 600, 800, 1000]);
  });
});

describe('page loop: one unreadable page stops nothing (docs/faults.md)', () => {
  it('a due page the store set aside is reported, and the rest of its batch fires in the same round', async () => {
    const clock = fakeClock(1_000_000);
    const good = ['p000000000001', 'p000000000002'].map((id) => ({ id, agentId: 'a', nextEscalationAtMs: 1_000_000, ackTimeoutAtMs: null,
      joinNoticeAtMs: null }) as unknown as PageRecord);
    const bad: Quarantined = { kind: 'page', id: 'p000000000003', agentId: 'b', pageId: 'p000000000003', reason: 'body is not JSON (40 characters)' };
    let claims = 0;
    const store = storeOf(() => Promise.resolve(claims++ === 0 ? { pages: good, quarantined: [bad] } : []));
    const fired: string[] = [];
    const set: Quarantined[] = [];
    const errors: unknown[] = [];
    const loop = createPageLoop({ store, clock, owner: 'r1', configs: new Map(), onError: (err) => errors.push(err), onQuarantined: (q) => set.push(q),
      engine: { fire: (page: PageRecord) => { fired.push(page.id); return Promise.resolve(); } } as unknown as PageEngine });
    loop.start();
    await clock.advanceAsync(0);
    await loop.close();
    assert.deepEqual(fired, good.map((p) => p.id), 'the readable pages fired');
    assert.deepEqual(set, [bad], 'the unreadable one was reported once');
    assert.deepEqual(errors, [], 'and nothing failed');
    assert.equal(loop.problem(), null);
  });

  it('a loop whose passes keep failing, or that completes none for a minute, says so (readiness)', async () => {
    const clock = fakeClock(1_000_000);
    let failing = true;
    const store = storeOf(() => (failing ? Promise.reject(new Error('SQLITE_CORRUPT: database disk image is malformed')) : Promise.resolve([])));
    const errors: unknown[] = [];
    const loop = createPageLoop({ store, clock, owner: 'r1', configs: new Map(), pollMs: 200, onError: (err) => errors.push(err),
      engine: { fire: () => Promise.resolve() } as unknown as PageEngine });
    assert.equal(loop.problem(), null, 'not started: nothing to say');
    loop.start();
    await clock.advanceAsync(0);
    for (let i = 0; i < 3; i++) await clock.advanceAsync(200);
    assert.equal(loop.problem(), null, 'four failed passes: not yet');
    await clock.advanceAsync(200);
    assert.equal(loop.problem(), 'page timers: 5 passes failed in a row (last: SQLITE_CORRUPT: database disk image is malformed)');
    failing = false;
    await clock.advanceAsync(200);
    assert.equal(loop.problem(), null, 'one pass through: healthy again');
    await loop.close();
    assert.equal(errors.length, 5, 'each failure reported');

    // A pass that never ends (a store that never answers): stalled after a minute.
    const hung = createPageLoop({ store: storeOf(() => new Promise<PageRecord[]>(() => undefined)), clock, owner: 'r1', configs: new Map(),
      onError: (err) => errors.push(err), engine: { fire: () => Promise.resolve() } as unknown as PageEngine });
    hung.start();
    await clock.advanceAsync(60_000);
    assert.equal(hung.problem(), null, 'a minute: not yet');
    await clock.advanceAsync(1_000);
    assert.equal(hung.problem(), 'page timers: no pass completed for 61 s');
  });
});
