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
