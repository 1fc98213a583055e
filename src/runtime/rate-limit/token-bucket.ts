/**
 * A token bucket that makes callers wait, never fail (issue: rate limits "make callers wait").
 * `perSecond` tokens are added continuously up to `burst`; `take()` resolves at once while a token
 * is left, and otherwise after the time the next token needs. Waiters are served in arrival order, so
 * a burst of callers cannot starve an early one. Time comes from the injected clock and sleep.
 */
import type { Clock } from '../../core/clock.js';

export interface RateLimit {
  /** Tokens added per second (may be fractional: 0.5 = one call every two seconds). */
  perSecond: number;
  /** Most tokens held at once: how many calls may go through back to back. */
  burst: number;
}

export interface TakeResult {
  /** Milliseconds the caller waited for its token (0 when one was there). */
  waitedMs: number;
}

export interface TokenBucket {
  /** Waits for a token. Rejects with the signal's reason if it aborts while waiting (the token is not spent). */
  take(signal?: AbortSignal): Promise<TakeResult>;
  /** Callers waiting now. */
  waiting(): number;
}

export function createTokenBucket(limit: RateLimit, deps: { clock: Clock }): TokenBucket {
  if (!(limit.perSecond > 0) || !Number.isFinite(limit.perSecond)) throw new RangeError('perSecond must be a positive number');
  if (!Number.isInteger(limit.burst) || limit.burst < 1) throw new RangeError('burst must be a positive integer');
  const { clock } = deps;
  let tokens = limit.burst;
  let refilledAt = clock.now();
  /** Reservations of callers that wait: the tail is the latest, each one token after the previous. */
  let queue: Promise<void> = Promise.resolve();
  let waiters = 0;

  const refill = (): void => {
    const now = clock.now();
    if (now > refilledAt) {
      tokens = Math.min(limit.burst, tokens + ((now - refilledAt) * limit.perSecond) / 1000);
      refilledAt = now;
    }
  };

  const takeNow = (): boolean => {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  };

  return {
    async take(signal) {
      signal?.throwIfAborted();
      if (waiters === 0 && takeNow()) return { waitedMs: 0 };
      const started = clock.now();
      waiters += 1;
      const previous = queue;
      let release!: () => void;
      queue = new Promise<void>((r) => { release = r; });
      try {
        await untilOrAbort(previous, signal); // first come, first served
        for (;;) {
          signal?.throwIfAborted();
          if (takeNow()) break;
          const needMs = Math.max(1, Math.ceil(((1 - tokens) * 1000) / limit.perSecond));
          await clock.sleep(needMs, signal);
        }
        return { waitedMs: Math.max(0, clock.now() - started) };
      } finally {
        waiters -= 1;
        release();
      }
    },
    waiting: () => waiters,
  };
}

/** Waits for `p`, or rejects with the signal's reason as soon as it aborts. */
function untilOrAbort(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
