/**
 * The page engine's loop (contract §17.4): the timer queue lives in the store, this only polls it.
 * Each pass claims a batch of due pages (the store leases each to this replica, `FOR UPDATE SKIP
 * LOCKED` on PostgreSQL), fires them through the engine (whose plan is fenced by the page version,
 * so a step fires once however many replicas claimed it over time), watches heartbeats and the
 * schedules' handoff timers (handoff-watch.ts), and drains
 * the notification outbox. Nothing is kept in memory that a crash would forget: a restart finds the
 * same due rows and the same outbox.
 */
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import { dueAtMs } from '../../oncall/page.js';
import type { HeartbeatSeen, OpenPageCount } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import { watchHandoffs } from './handoff-watch.js';
import { watchHeartbeats } from './heartbeat-watch.js';
import type { PageEngine } from './page-engine.js';
import type { NotifyPass } from './page-notifier.js';

export interface PageLoopDeps {
  store: Store;
  clock: Clock;
  owner: string;
  engine: PageEngine;
  notify: NotifyPass;
  configs: ReadonlyMap<string, OncallConfig>;
  /** due → fired, seconds (svc_page_timer_lag_seconds). */
  timerLag?: (seconds: number) => void;
  /** Seconds since each heartbeat was last seen (svc_heartbeat_age_seconds). */
  heartbeatAge?: (agentId: string, heartbeatId: string, seconds: number) => void;
  /** What the watch read of the heartbeats, for /status. */
  heartbeatsSeen?: (seen: HeartbeatSeen[]) => void;
  /** Open pages by agent and state, counted about once a second (svc_pages_open). */
  openPages?: (counts: OpenPageCount[]) => void;
  onError: (err: unknown) => void;
  /** How often the store is asked for due timers (default 200 ms). */
  pollMs?: number;
  /** How long a claimed timer stays with this replica (default 30 s). */
  timerLeaseMs?: number;
}

export interface PageLoop {
  start(): void;
  /** Notifications were committed: send them now rather than at the next poll (a round under way that has yet to look at the outbox sends them). */
  wake(): void;
  close(): Promise<void>;
}

/** Heartbeats are watched, and open pages counted, at most this often. */
const WATCH_EVERY_MS = 1000;

export function createPageLoop(deps: PageLoopDeps): PageLoop {
  const { store, clock, engine } = deps;
  const pollMs = deps.pollMs ?? 200;
  const stop = new AbortController();
  let timer: TimerHandle | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let watchedAt = -Infinity;
  /** The pass under way has yet to look at the outbox: what commits now, it sends. */
  let outboxAhead = false;

  async function fireDue(): Promise<void> {
    for (;;) {
      const due = await store.oncall.claimDuePages(deps.owner, clock.now(), deps.timerLeaseMs ?? 30_000, 100);
      // A claimed batch fires together: each page's plan is a transaction of its own, and the store
      // commits those waiting at once in one group. One after another, each waited for its own
      // fsync, and 100 timers due a second fell tens of seconds behind (bench/oncall-timers.ts).
      await Promise.all(due.map(async (page) => {
        const at = dueAtMs(page);
        if (at !== null) deps.timerLag?.(Math.max(0, clock.now() - at) / 1000);
        await engine.fire(page).catch(deps.onError);
      }));
      if (due.length < 100 || stop.signal.aborted) return;
    }
  }

  /**
   * One round: due timers, the watches when their time has come, one batch of the outbox; true when
   * that batch was full (look again at once). The notifications the round's own plans commit are in
   * the outbox before it looks, so they start no round of their own: one round per poll carries the
   * timers due since the last, their plans share commits, and 100 due a second cost 5 rounds a second,
   * not one round (and two fsyncs) per few pages (bench/oncall-timers.ts).
   */
  async function pass(): Promise<boolean> {
    outboxAhead = true;
    await fireDue();
    if (clock.monotonic() - watchedAt >= WATCH_EVERY_MS) {
      watchedAt = clock.monotonic();
      await watchHeartbeats(deps, clock.now());
      await watchHandoffs(store, deps.configs, clock.now());
      if (deps.openPages) deps.openPages(await store.oncall.openPageCounts());
    }
    // One batch, not a drain: while the outbox kept filling (a burst of new pages), draining it starved
    // the timers, and a step fell due 15 s late behind the 15 s of the burst (bench/oncall-timers.ts).
    // The next pass starts at once instead, due timers first.
    outboxAhead = false;
    return !stop.signal.aborted && (await deps.notify(stop.signal)).full;
  }

  function schedule(ms: number): void {
    if (stop.signal.aborted) return;
    if (timer !== null) clock.clearTimer(timer);
    timer = clock.setTimer(run, ms);
  }

  function run(): void {
    timer = null;
    if (running !== null) {
      again = true;
      return;
    }
    const startedAt = clock.monotonic();
    running = pass().then((more) => { again ||= more; }, deps.onError).finally(() => {
      running = null;
      // Polls keep their pace from round start to round start: a due timer waits at most a poll, or a round when rounds run long.
      const wait = again ? 0 : Math.max(0, pollMs - (clock.monotonic() - startedAt));
      again = false;
      schedule(wait);
    });
  }

  return {
    start: () => schedule(0),
    wake: () => {
      // While a round runs, a timer armed now would be re-armed for the next poll as the round ends.
      if (running === null) schedule(0);
      else if (!outboxAhead) again = true;
    },
    async close() {
      stop.abort();
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
      await running;
    },
  };
}
