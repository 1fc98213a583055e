import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { PageRecord } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import type { PageEngine } from './page-engine.js';
import type { PageLoop } from './page-loop.js';
import { createPageLoop } from './page-loop.js';
import type { OutboxPass } from './page-notifier.js';

/** A store of due pages alone: no heartbeat, handoff or open page for the watches to find. */
const storeOf = (claimDuePages: (owner: string, nowMs: number) => Promise<PageRecord[]>): Store => ({ oncall: {
  claimDuePages, listHeartbeats: () => Promise.resolve([]), listHandoffs: () => Promise.resolve([]), openPageCounts: () => Promise.resolve([]),
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
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, notify: () => Promise.resolve({ claimed: 0, full: false }), configs: new Map(),
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
    const store = storeOf((_owner: string, nowMs: number) => {
      if (handedOut || nowMs < T + 500) return Promise.resolve([]);
      handedOut = true;
      return Promise.resolve([page]);
    });
    // A burst: every look at the outbox finds a full batch and sending it takes 100 ms, for 200 looks (20 s).
    let looks = 0;
    const notify = (): Promise<OutboxPass> => {
      if (looks === 200) return Promise.resolve({ claimed: 0, full: false });
      looks += 1;
      clock.set(clock.now() + 100);
      return Promise.resolve({ claimed: 64, full: true });
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

  it('the notices a round\'s own plans commit start no round of their own: a timer due every 10 ms, one round per 200 ms poll', async () => {
    const T = 1_000_000;
    const clock = fakeClock(T);
    let rounds = 0;
    let handedOut = 0;
    const store = { oncall: {
      // Page i falls due at T + 10·i; each round is handed those due by then.
      claimDuePages: (_owner: string, nowMs: number) => {
        rounds += 1;
        const due: PageRecord[] = [];
        for (; T + handedOut * 10 <= nowMs; handedOut++) {
          due.push({ id: `p${String(handedOut).padStart(12, '0')}`, agentId: 'a', nextEscalationAtMs: T + handedOut * 10, ackTimeoutAtMs: null,
            joinNoticeAtMs: null } as unknown as PageRecord);
        }
        return Promise.resolve(due);
      },
      listHeartbeats: () => Promise.resolve([]),
      listHandoffs: () => Promise.resolve([]),
      openPageCounts: () => Promise.resolve([]),
    } } as unknown as Store;
    let fired = 0;
    let looks = 0;
    // Each fire commits a notification and wakes the loop, as the engine's onCommitted does (daemon/start-pages.ts).
    const wake: { loop: PageLoop | null } = { loop: null };
    const engine = { fire: () => { fired += 1; wake.loop?.wake(); return Promise.resolve(); } } as unknown as PageEngine;
    const notify = (): Promise<OutboxPass> => { looks += 1; return Promise.resolve({ claimed: 1, full: false }); };
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, notify, configs: new Map(), pollMs: 200, onError: (err) => { throw err; } });
    wake.loop = loop;
    loop.start();
    for (let ms = 0; ms < 1000; ms += 10) await clock.advanceAsync(10);
    await loop.close();
    assert.equal(fired, 101, 'every timer due in the second fired (at 0, 10, …, 1000 ms)');
    assert.equal(rounds, 6, 'one round at the start and one per poll: the wakes of its own commits started none');
    assert.equal(looks, 6, 'and each round looked at the outbox once');
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
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, notify: () => Promise.resolve({ claimed: 0, full: false }), configs: new Map(),
      pollMs: 200, onError: (err) => { throw err; } });
    loop.start();
    for (let ms = 0; ms < 1000; ms += 10) await clock.advanceAsync(10);
    const closing = loop.close();
    await clock.advanceAsync(150); // the round started at 1000 ms ends
    await closing;
    assert.deepEqual(starts, [0, 200, 400, 600, 800, 1000]);
  });

  it('a notification committed after the round looked at the outbox starts the next round at once', async () => {
    const clock = fakeClock(1_000_000);
    let rounds = 0;
    const store = storeOf(() => { rounds += 1; return Promise.resolve([]); });
    const wake: { loop: PageLoop | null } = { loop: null };
    let looks = 0;
    // While the first round sends its batch, a triage decision commits a join notice (page-engine.ts onCommitted).
    const notify = (): Promise<OutboxPass> => {
      looks += 1;
      if (looks === 1) wake.loop?.wake();
      return Promise.resolve({ claimed: 1, full: false });
    };
    const loop = createPageLoop({ store, clock, owner: 'r1', engine: { fire: () => Promise.resolve() } as unknown as PageEngine, notify,
      configs: new Map(), pollMs: 200, onError: (err) => { throw err; } });
    wake.loop = loop;
    loop.start();
    await clock.advanceAsync(0);
    await clock.advanceAsync(0);
    await loop.close();
    assert.equal(looks, 2, 'the second round looked at once, not 200 ms later');
    assert.equal(rounds, 2);
  });
});
