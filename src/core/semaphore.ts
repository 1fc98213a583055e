/**
 * At most `limit` holders at once, the others waiting in arrival order, each wait abortable. The one
 * semaphore of the code base: the control plane's page reads (contract §11.4) and the fleet's fan-out
 * (§15: 16 hosts at once) are both this. A released slot goes straight to the next waiter, so the
 * count never passes `limit`, and a waiter whose signal aborts leaves the queue holding nothing.
 */
import { abortReason } from './clock.js';

export type Release = () => void;

export interface SemaphoreStats {
  limit: number;
  /** Holders now. */
  active: number;
  /** Callers waiting for a slot. */
  waiting: number;
}

export interface Semaphore {
  /** Resolves with this caller's release once it holds a slot; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<Release>;
  /** Runs `fn` holding a slot, releasing it however `fn` ends. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): SemaphoreStats;
}

export function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
  let active = 0;
  const queue: Array<() => void> = [];

  // Once per holder: a second call of the same release is a no-op, never a second slot.
  const releaseOnce = (): Release => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = queue.shift();
      if (next !== undefined) next();
      else active -= 1;
    };
  };

  const acquire = (signal?: AbortSignal): Promise<Release> => {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (active < limit) {
      active += 1;
      return Promise.resolve(releaseOnce());
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const i = queue.indexOf(go);
        if (i >= 0) queue.splice(i, 1);
        reject(abortReason(signal as AbortSignal));
      };
      // Woken with the slot of the holder that left: `active` is unchanged.
      const go = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(releaseOnce());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(go);
    });
  };

  return {
    acquire,
    async run(fn, signal) {
      const release = await acquire(signal);
      try {
        return await fn();
      } finally {
        release();
      }
    },
    stats: () => ({ limit, active, waiting: queue.length }),
  };
}
