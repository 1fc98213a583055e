/**
 * Asking many hosts at once, at most `limit` at a time (contract §15: 16). A failed host is a result,
 * not an exception: the others go on, and the caller reports which hosts answered.
 */
import { createSemaphore } from '../../core/semaphore.js';

export const FLEET_CONCURRENCY = 16;

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** `fn` for every item, at most `limit` at once; results in the order of `items`. */
export async function fanOut<I, T>(items: readonly I[], limit: number, fn: (item: I) => Promise<T>): Promise<Array<Settled<T>>> {
  const slots = createSemaphore(limit);
  return Promise.all(items.map((item) => slots.run(async (): Promise<Settled<T>> => {
    try {
      return { ok: true, value: await fn(item) };
    } catch (error) {
      return { ok: false, error };
    }
  })));
}
