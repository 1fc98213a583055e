/**
 * A periodic loop on the injected clock: run, then wait `intervalMs` (measured from the end of the
 * run, so a slow run never overlaps the next), then run again. The one home of "run, then re-arm the
 * timer": retention, the backlog gauge, leases and heartbeats, the dispatcher's poll. `close()` stops
 * the loop, aborts the run in flight through its signal and resolves once that run has ended, so a
 * store closed after it is never used by a late run. A run that throws is reported and the loop goes on.
 */
import type { Clock, TimerHandle } from './clock.js';

export interface EveryOptions {
  clock: Clock;
  /** The pause after each run; a function when the pause depends on the last run (a back-off, a measured cost). */
  intervalMs: number | (() => number);
  /** The first run: after this long (default: one interval). 0 runs at once. */
  firstDelayMs?: number;
  run(signal: AbortSignal): Promise<void>;
  onError(err: unknown): void;
}

export interface Every {
  /** Runs now unless a run is in flight (then waits for it); the next pause starts after it. */
  runNow(): Promise<void>;
  /** Stops the loop; resolves once the run in flight, if any, has ended. */
  close(): Promise<void>;
}

export function every(opts: EveryOptions): Every {
  const stop = new AbortController();
  let timer: TimerHandle | null = null;
  let inFlight: Promise<void> | null = null;
  const pause = (): number => (typeof opts.intervalMs === 'function' ? opts.intervalMs() : opts.intervalMs);

  const arm = (ms: number): void => {
    if (stop.signal.aborted) return;
    timer = opts.clock.setTimer(() => { timer = null; void tick(); }, ms);
  };

  const tick = (): Promise<void> => {
    if (inFlight !== null) return inFlight;
    if (timer !== null) {
      opts.clock.clearTimer(timer);
      timer = null;
    }
    inFlight = (async () => {
      try {
        await opts.run(stop.signal);
      } catch (err) {
        if (!stop.signal.aborted) opts.onError(err);
      } finally {
        inFlight = null;
        arm(pause());
      }
    })();
    return inFlight;
  };

  arm(opts.firstDelayMs ?? pause());
  return {
    runNow: () => (stop.signal.aborted ? Promise.resolve() : tick()),
    async close() {
      stop.abort();
      if (timer !== null) opts.clock.clearTimer(timer);
      timer = null;
      if (inFlight !== null) await inFlight;
    },
  };
}
