import type { FakeClock } from '../../src/core/clock.js';

/**
 * The one poll of the test suites: waits until `check` returns something other than undefined, null
 * or false, and returns it. Used only for conditions that real processes, sockets and files make
 * true; logic under test that merely waits on time runs on `fakeClock` instead.
 */
export async function waitFor<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `promise`, or a failure naming `what` after `ms`: an awaited event that never comes fails the test. */
export async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Moves a fake clock forward in `stepMs` steps, letting real I/O answer between steps, until `done`
 * holds: for logic that waits on time AND on real processes or sockets (back-off before a respawn,
 * a drain while a child exits). A check that needs an exact instant advances the clock itself.
 */
export async function advanceUntil(clock: Pick<FakeClock, 'advanceAsync'>, what: string, done: () => boolean | Promise<boolean>,
  stepMs = 100, timeoutMs = 20_000): Promise<void> {
  await waitFor(what, async () => {
    if (await done()) return true;
    await clock.advanceAsync(stepMs);
    return false;
  }, timeoutMs);
}

/** A store (any object of async methods) that counts its calls still under way. */
export function trackedIo<T extends object>(target: T): { io: T; busy: () => boolean } {
  let inFlight = 0;
  const io = Object.fromEntries(Object.entries(target).map(([name, value]) => [name, typeof value !== 'function' ? value
    : (...args: unknown[]): unknown => {
      const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
      if (!(result instanceof Promise)) return result;
      inFlight += 1;
      return result.finally(() => { inFlight -= 1; });
    }])) as T;
  return { io, busy: () => inFlight > 0 };
}

/**
 * `advanceUntil` for logic whose only real I/O is `busy` (a `trackedIo` store): the clock moves only
 * once that I/O has answered, so no lease or deadline runs out in fake time while a write is merely
 * slow in real time — on any host, and without a fixed real pause between steps.
 */
export async function advanceWhenSettled(clock: Pick<FakeClock, 'advanceAsync'>, busy: () => boolean, what: string,
  done: () => boolean | Promise<boolean>, stepMs = 100, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // A macrotask turn lets every continuation of the I/O that just answered issue its next call.
    do await new Promise((r) => setImmediate(r)); while (busy() && Date.now() <= deadline);
    if (!busy() && await done()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await clock.advanceAsync(stepMs);
  }
}
