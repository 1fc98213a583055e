/**
 * The one time module: wall-clock time, monotonic time, one-shot timers and abortable sleeps all come
 * from an injected `Clock`. `systemClock` is the real one; `fakeClock` moves only when a test moves
 * it, firing due timers in order, so the 15 s heartbeat, the 15 min window, leases and back-off are
 * tested without sleeping. Deadlines and timeouts built on a Clock live in deadline.ts.
 */
import { performance } from 'node:perf_hooks';

/** An armed timer; only the clock that made it can clear it. */
export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Milliseconds from an arbitrary origin that never steps back: for measuring durations. */
  monotonic(): number;
  /**
   * Calls `fn` once after `ms`. Real timers are unref'd: a timer alone never keeps the process
   * alive; sockets, watchers and pending work do.
   */
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
  /** Resolves after `ms`; rejects (with the signal's reason) as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout caps delays at 2^31-1 ms (~24.8 days); longer ones would fire at once, so callers re-arm. */
export const MAX_TIMER_MS = 2_147_483_647;

const clampDelay = (ms: number): number => Math.min(Math.max(0, Number.isFinite(ms) ? ms : 0), MAX_TIMER_MS);

/** The reason a signal aborted with, as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('aborted');
  err.name = 'AbortError';
  return err;
}

/** A sleep built on a clock's timers, so a fake clock's sleeps move with its timers. */
function sleepOn(clock: Pick<Clock, 'setTimer' | 'clearTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clock.clearTimer(handle);
      reject(abortReason(signal as AbortSignal));
    };
    const handle = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, clampDelay(ms));
    t.unref();
    return t;
  },
  clearTimer(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
  sleep(ms, signal) {
    // Ref'd while it waits, unlike a bare timer: someone is awaiting it.
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(t);
        reject(abortReason(signal as AbortSignal));
      };
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, clampDelay(ms));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
};

let lastMs = Number.NaN;
let lastIso = '';

/**
 * ISO-8601 UTC with milliseconds, the timestamp format of every record svc writes. The last answer is
 * kept: under a burst the event row, its audit row and its log line are stamped in the same
 * millisecond as their neighbours, and a `Date` with its formatting per call showed in the profiles.
 */
export function isoTs(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

export interface FakeClock extends Clock {
  /** Moves time forward by `ms`, firing every timer that falls due, in order, synchronously. */
  advance(ms: number): void;
  /**
   * Moves time forward by `ms` like `advance`, but lets promise callbacks and I/O callbacks run
   * after each timer fires: what a chain of sleeps (back-off, retries) needs to make progress.
   */
  advanceAsync(ms: number): Promise<void>;
  /** Sets the wall clock; timers are not fired (a wall-clock step does not move monotonic time). */
  set(ms: number): void;
  /** Timers armed and not yet fired or cleared. */
  pendingTimers(): number;
}

interface FakeTimer { at: number; order: number; fn: () => void }

/** A clock tests move by hand. Monotonic time starts at 0 and moves only with advance. */
export function fakeClock(startMs = 0): FakeClock {
  let wall = startMs;
  let mono = 0;
  let order = 0;
  const timers = new Set<FakeTimer>();

  const due = (until: number): FakeTimer | undefined => {
    let first: FakeTimer | undefined;
    for (const t of timers) {
      if (t.at <= until && (first === undefined || t.at < first.at || (t.at === first.at && t.order < first.order))) first = t;
    }
    return first;
  };
  const fire = (t: FakeTimer): void => {
    timers.delete(t);
    wall += t.at - mono;
    mono = t.at;
    t.fn();
  };
  const flush = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

  const clock: FakeClock = {
    now: () => wall,
    monotonic: () => mono,
    setTimer(fn, ms) {
      const t: FakeTimer = { at: mono + clampDelay(ms), order: order++, fn };
      timers.add(t);
      return t;
    },
    clearTimer(handle) {
      timers.delete(handle as FakeTimer);
    },
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
    advance(ms) {
      const until = mono + ms;
      for (let t = due(until); t !== undefined; t = due(until)) fire(t);
      wall += until - mono;
      mono = until;
    },
    async advanceAsync(ms) {
      const until = mono + ms;
      await flush();
      for (let t = due(until); t !== undefined; t = due(until)) {
        fire(t);
        await flush();
      }
      wall += until - mono;
      mono = until;
      await flush();
    },
    set(ms) {
      wall = ms;
    },
    pendingTimers: () => timers.size,
  };
  return clock;
}
