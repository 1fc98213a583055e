import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { PageRecord } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import type { PageEngine } from './page-engine.js';
import { createPageLoop } from './page-loop.js';

describe('page loop', () => {
  it('fires a claimed batch of due pages together, so their plans can share a commit', async () => {
    const clock = fakeClock(1_000_000);
    const due = ['p000000000001', 'p000000000002', 'p000000000003'].map((id) => ({ id, agentId: 'a',
      nextEscalationAtMs: 999_000, ackTimeoutAtMs: null, joinNoticeAtMs: null }) as unknown as PageRecord);
    let claims = 0;
    const store = { oncall: {
      claimDuePages: () => Promise.resolve(claims++ === 0 ? due : []),
      listHeartbeats: () => Promise.resolve([]),
      listHandoffs: () => Promise.resolve([]),
      openPageCounts: () => Promise.resolve([]),
    } } as unknown as Store;
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
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, notify: () => Promise.resolve(0), configs: new Map(),
      onError: (err) => { throw err; }, timerLag: (s) => lags.push(s) });
    loop.start();
    await clock.advanceAsync(0);
    for (let i = 0; i < 50 && fired.length < due.length; i++) await new Promise((resolve) => { setTimeout(resolve, 20); });
    await loop.close();
    assert.equal(most, 3, 'all three fired at once');
    assert.deepEqual([...fired].sort(), due.map((p) => p.id));
    assert.deepEqual(lags, [1, 1, 1], 'each lag is due → claimed, in seconds');
  });

  it('a timer falls due while the outbox keeps filling: it fires at the next pass, not once the outbox is empty', async () => {
    const T = 1_000_000;
    const clock = fakeClock(T);
    const page = { id: 'p000000000009', agentId: 'a', nextEscalationAtMs: T + 500, ackTimeoutAtMs: null, joinNoticeAtMs: null } as unknown as PageRecord;
    let handedOut = false;
    const store = { oncall: {
      claimDuePages: (_owner: string, nowMs: number) => {
        if (handedOut || nowMs < T + 500) return Promise.resolve([]);
        handedOut = true;
        return Promise.resolve([page]);
      },
      listHeartbeats: () => Promise.resolve([]),
      listHandoffs: () => Promise.resolve([]),
      openPageCounts: () => Promise.resolve([]),
    } } as unknown as Store;
    // A burst: every look at the outbox finds a notice and sending it takes 100 ms, for 200 looks (20 s).
    let looks = 0;
    const notify = (): Promise<number> => {
      if (looks === 200) return Promise.resolve(0);
      looks += 1;
      clock.set(clock.now() + 100);
      return Promise.resolve(1);
    };
    let firedAtLook: number | null = null;
    const engine = { fire: () => { firedAtLook = looks; return Promise.resolve(); } } as unknown as PageEngine;
    const lags: number[] = [];
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, notify, configs: new Map(),
      onError: (err) => { throw err; }, timerLag: (sec) => lags.push(sec) });
    loop.start();
    for (let i = 0; i < 50 && looks < 200; i++) await clock.advanceAsync(0);
    await loop.close();
    assert.equal(looks, 200, 'the burst was sent');
    assert.equal(firedAtLook, 5, 'fired in the pass after the fifth notice, the first to see it due');
    assert.deepEqual(lags, [0], 'on time, not 20 s late behind the burst');
  });
});
