/**
 * When to look at a log file again, and never twice at once. `fs.watch` on the file's directory
 * (it sees appends, renames, and the file appearing; it survives rotation) plus a safety poll every
 * `pollMs` (a `full` check: the owner also looks for a replaced file). Kicks while a check runs
 * are folded into one more check after it, so a write is never left behind (the flaw of throttling
 * watchers that drop trailing events). After a check that delivered lines, the next waits until
 * `lingerMs()` has passed since that delivery.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import type { Clock, TimerHandle } from '../core/clock.js';

export interface ChangePumpOptions {
  dir: string;
  /** File name inside `dir` whose events count. */
  name: string;
  clock: Clock;
  pollMs: number;
  lingerMs: () => number;
  /** One look at the file; `full` on polls and rename events. Runs one at a time. */
  check(full: boolean): Promise<void>;
  onCheckError(err: unknown): void;
  /** After close(), once no check is running any more: release what checks use. */
  onStopped(): void;
}

export interface ChangePump {
  /** Starts watching and runs the first check. */
  start(): void;
  kick(full: boolean): void;
  /**
   * Kicks a check and resolves once a check that started after this call has completed (so it saw
   * the file as it is now or later), or on close.
   */
  nextCheck(): Promise<void>;
  /** Resolves after the first check (or on close). */
  readonly ready: Promise<void>;
  /** Tells the pump that a check delivered lines just now (starts the linger window). */
  delivered(): void;
  close(): void;
}

export function createChangePump(o: ChangePumpOptions): ChangePump {
  let closed = false;
  let running = false;
  let pending = false;
  let pendingFull = false;
  let watcher: FSWatcher | null = null;
  let pollTimer: TimerHandle | null = null;
  let lingerTimer: TimerHandle | null = null;
  let endLinger: (() => void) | null = null;
  /** o.clock.monotonic() of the last delivery: monotonic, only ever compared with itself. */
  let lastDelivery = Number.NEGATIVE_INFINITY;
  /** Checks started and completed so far; a waiter waits for check number `after + 1` to complete. */
  let checksStarted = 0;
  let checksDone = 0;
  let checkWaiters: { after: number; resolve: () => void }[] = [];
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => { markReady = resolve; });

  function linger(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      endLinger = () => {
        endLinger = null;
        if (lingerTimer !== null) o.clock.clearTimer(lingerTimer);
        lingerTimer = null;
        resolve();
      };
      lingerTimer = o.clock.setTimer(() => { lingerTimer = null; endLinger?.(); }, ms);
    });
  }

  async function pump(): Promise<void> {
    running = true;
    while (pending && !closed) {
      const pause = o.lingerMs() - (o.clock.monotonic() - lastDelivery);
      if (pause >= 1) await linger(Math.ceil(pause));
      if (closed) break;
      const full = pendingFull;
      pending = false;
      pendingFull = false;
      checksStarted += 1;
      try {
        await o.check(full);
      } catch (err) {
        if (!closed) o.onCheckError(err);
      }
      checksDone += 1;
      markReady();
      const due = checkWaiters.filter((w) => w.after < checksDone);
      checkWaiters = checkWaiters.filter((w) => w.after >= checksDone);
      for (const w of due) w.resolve();
    }
    running = false;
    if (closed) o.onStopped();
  }

  function kick(full: boolean): void {
    if (closed) return;
    pending = true;
    if (full) pendingFull = true;
    if (!running) void pump();
  }

  function ensureWatcher(): void {
    if (watcher !== null || closed) return;
    try {
      const w = watch(o.dir, { persistent: true }, (event, filename) => {
        if (filename === null || filename === o.name) kick(event === 'rename');
      });
      w.on('error', () => {
        w.close();
        if (watcher === w) watcher = null; // the poll goes on and re-creates it
      });
      watcher = w;
    } catch {
      watcher = null; // directory missing (yet): the poll retries
    }
  }

  function poll(): void {
    pollTimer = null;
    if (closed) return;
    ensureWatcher();
    kick(true);
    pollTimer = o.clock.setTimer(poll, o.pollMs);
  }

  return {
    start() {
      if (closed || pollTimer !== null) return;
      ensureWatcher();
      kick(true);
      pollTimer = o.clock.setTimer(poll, o.pollMs);
    },
    kick,
    nextCheck() {
      return new Promise<void>((resolve) => {
        if (closed) { resolve(); return; }
        checkWaiters.push({ after: checksStarted, resolve });
        kick(false);
      });
    },
    ready,
    delivered() { lastDelivery = o.clock.monotonic(); },
    close() {
      if (closed) return;
      closed = true;
      watcher?.close();
      watcher = null;
      if (pollTimer !== null) o.clock.clearTimer(pollTimer);
      pollTimer = null;
      endLinger?.();
      markReady();
      for (const w of checkWaiters.splice(0)) w.resolve();
      if (!running) o.onStopped();
    },
  };
}
