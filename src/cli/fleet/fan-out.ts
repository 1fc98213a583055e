/**
 * Asking many hosts at once, at most `limit` at a time (contract §15: 16). A failed host is a result,
 * not an exception: the others go on, and the caller reports which hosts answered.
 */

export const FLEET_CONCURRENCY = 16;

/** Runs at most `limit` of the functions handed to it at once, in the order they were handed in. */
export interface Limiter {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createLimiter(limit: number): Limiter {
  let active = 0;
  const queue: Array<() => void> = [];
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      // A waiter is woken with the slot of the task that ended, so `active` never passes `limit`.
      if (active >= limit) await new Promise<void>((resolve) => { queue.push(resolve); });
      else active += 1;
      try {
        return await fn();
      } finally {
        const waiter = queue.shift();
        if (waiter !== undefined) waiter();
        else active -= 1;
      }
    },
  };
}

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** `fn` for every item, at most `limit` at once; results in the order of `items`. */
export async function fanOut<I, T>(items: readonly I[], limit: number, fn: (item: I) => Promise<T>): Promise<Array<Settled<T>>> {
  const limiter = createLimiter(limit);
  return Promise.all(items.map((item) => limiter.run(async (): Promise<Settled<T>> => {
    try {
      return { ok: true, value: await fn(item) };
    } catch (error) {
      return { ok: false, error };
    }
  })));
}
