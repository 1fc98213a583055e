/**
 * The page engine's timer loop (contract §17.4): the timer queue lives in the store, this only polls
 * it. Each pass claims a batch of due pages (the store leases each to this replica, `FOR UPDATE SKIP
 * LOCKED` on PostgreSQL), fires them through the engine (whose plan is fenced by the page version,
 * so a step fires once however many replicas claimed it over time), and watches heartbeats and the
 * schedules' handoff timers (handoff-watch.ts). It never sends: what its plans commit goes to the
 * outbox, which the page notifier drains on a loop of its own — a channel that never answers cannot
 * hold a timer. A due page the store cannot decode is set aside by the claim (`onQuarantined`), never
 * thrown on the batch. Nothing is kept in memory that a crash would forget: a restart finds the same
 * due rows and the same outbox.
 */
import type { Clock } from '../../core/clock.js';
import { timerSlot } from '../../core/timer-slot.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import { dueAtMs } from '../../oncall/page.js';
import type { HeartbeatSeen, OpenPageCount, Quarantined } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import { watchHandoffs } from './handoff-watch.js';
import type { LoopHealth } from './loop-health.js';
import { createLoopHealth } from './loop-health.js';
import { watchHeartbeats } from './heartbeat-watch.js';
import type { PageEngine } from './page-engine.js';

export interface PageLoopDeps {
  store: Store;
  clock: Clock;
  owner: string;
  engine: PageEngine;
  configs: ReadonlyMap<string, OncallConfig>;
  /** due → fired, seconds (svc_page_timer_lag_seconds). */
  timerLag?: (seconds: number) => void;
  /** Seconds since each heartbeat was last seen (svc_heartbeat_age_seconds). */
  heartbeatAge?: (agentId: string, heartbeatId: string, seconds: number) => void;
  /** What the watch read of the heartbeats, for /status. */
  heartbeatsSeen?: (seen: HeartbeatSeen[]) => void;
  /** Open pages by agent and state, counted about once a second (svc_pages_open). */
  openPages?: (counts: OpenPageCount[]) => void;
  /** A due page the store set aside because it cannot be decoded (the store audited it). */
  onQuarantined?: (q: Quarantined) => void;
  onError: (err: unknown) => void;
  /** How often the store is asked for due timers (default 200 ms). */
  pollMs?: number;
  /** How long a claimed timer stays with this replica (default 30 s). */
  timerLeaseMs?: number;
}

export interface PageLoop {
  start(): void;
  /** Null while the loop does its work; else why not (readiness: failing passes, or none completed for too long). */
  problem(): string | null;
  close(): Promise<void>;
}

/** Heartbeats are watched, and open pages counted, at most this often. */
const WATCH_EVERY_MS = 1000;

export function createPageLoop(deps: PageLoopDeps): PageLoop {
  const { store, clock, engine } = deps;
  const pollMs = deps.pollMs ?? 200;
  const stop = new AbortController();
  let running: Promise<void> | null = null;
  let watchedAt = -Infinity;
  let started = false;
  const health: LoopHealth = createLoopHealth('page timers', clock);

  async function fireDue(): Promise<void> {
    for (;;) {
      const { pages: due, quarantined } = await store.oncall.claimDuePages(deps.owner, clock.now(), deps.timerLeaseMs ?? 30_000, 100);
      for (const q of quarantined) deps.onQuarantined?.(q);
      // A claimed batch fires together: each page's plan is a transaction of its own, and the store
      // commits those waiting at once in one group. One after another, each waited for its own
      // fsync, and 100 timers due a second fell tens of seconds behind (bench/oncall-timers.ts).
      await Promise.all(due.map(async (page) => {
        const at = dueAtMs(page);
        if (at !== null) deps.timerLag?.(Math.max(0, clock.now() - at) / 1000);
        await engine.fire(page).catch(deps.onError);
      }));
      if (due.length + quarantined.length < 100 || stop.signal.aborted) return;
    }
  }

  /**
   * One round: due timers, then the watches when their time has come. The timers due since the last
   * round fire together, so their plans share commits: 100 due a second cost 5 rounds a second, not
   * one round (and two fsyncs) per few pages (bench/oncall-timers.ts).
   */
  async function pass(): Promise<void> {
    await fireDue();
    if (clock.monotonic() - watchedAt >= WATCH_EVERY_MS) {
      watchedAt = clock.monotonic();
      await watchHeartbeats(deps, clock.now());
      await watchHandoffs(store, deps.configs, clock.now());
      if (deps.openPages) deps.openPages(await store.oncall.openPageCounts());
    }
  }

  const next = timerSlot(clock, stop.signal, run);
  const schedule = (ms: number): void => next.set(ms);

  function run(): void {
    if (running !== null) return;
    const startedAt = clock.monotonic();
    running = pass().then(() => health.passed(), (err: unknown) => {
      health.failed(err);
      deps.onError(err);
    }).finally(() => {
      running = null;
      // Polls keep their pace from round start to round start: a due timer waits at most a poll, or a round when rounds run long.
      schedule(Math.max(0, pollMs - (clock.monotonic() - startedAt)));
    });
  }

  return {
    start: () => {
      started = true;
      schedule(0);
    },
    problem: () => (started ? health.problem() : null),
    async close() {
      stop.abort();
      await running;
    },
  };
}
