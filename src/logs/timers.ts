/**
 * One-shot timers behind an interface, so the owners of the 15 s heartbeat, the 1 s tail poll and the
 * token-expiry timer can be driven by a fake in tests. The real ones are unref'd: a timer alone never
 * keeps the process alive; sockets and watchers do.
 */
export type TimerHandle = object;

export interface Timers {
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** setTimeout caps delays at 2^31-1 ms (~24.8 days); longer ones fire at once, so callers re-arm. */
export const MAX_TIMER_MS = 2_147_483_647;

export const realTimers: Timers = {
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    t.unref();
    return t;
  },
  clearTimer(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
