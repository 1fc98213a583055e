/**
 * Deadlines built on the injected Sleep, so every wait of the supervisor is bounded, says why it ended
 * and leaves no timer behind.
 */
import type { Sleep } from '../backoff.js';

export type DeadlineEnd = 'timeout' | 'aborted';

export interface Deadline {
  /** Aborts when the time is up or the outer signal aborts. */
  readonly signal: AbortSignal;
  /** Why the signal aborted; null while it has not. */
  why(): DeadlineEnd | null;
  /** Releases the timer and the listener on the outer signal. Call it once the work is over. */
  dispose(): void;
}

export function startDeadline(ms: number, sleep: Sleep, outer?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = new AbortController();
  let why: DeadlineEnd | null = null;
  const end = (reason: DeadlineEnd): void => {
    if (why) return;
    why = reason;
    controller.abort(new Error(reason === 'timeout' ? `deadline of ${ms} ms passed` : 'aborted'));
  };
  const onOuter = (): void => end('aborted');
  if (outer?.aborted) end('aborted');
  else {
    outer?.addEventListener('abort', onOuter, { once: true });
    sleep(Math.max(0, ms), timer.signal).then(() => end('timeout'), () => { /* disposed */ });
  }
  return {
    signal: controller.signal,
    why: () => why,
    dispose() {
      timer.abort();
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

export type DeadlineResult<T> =
  | { ok: true; value: T }
  | { ok: false; why: DeadlineEnd | 'error'; error: unknown };

/**
 * Runs `op` with a signal that aborts after `ms` or when `outer` aborts, and returns as soon as either
 * happens even if `op` ignores its signal (its late result is dropped).
 */
export async function withDeadline<T>(ms: number, sleep: Sleep, outer: AbortSignal | undefined,
  op: (signal: AbortSignal) => Promise<T>): Promise<DeadlineResult<T>> {
  const deadline = startDeadline(ms, sleep, outer);
  try {
    const value = await Promise.race([op(deadline.signal), rejectOnAbort(deadline.signal)]);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, why: deadline.why() ?? 'error', error };
  } finally {
    deadline.dispose();
  }
}

/** A promise that rejects with the signal's reason when it aborts (never settles otherwise). */
export function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const reason = (): Error => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(reason());
    else signal.addEventListener('abort', () => reject(reason()), { once: true });
  });
}

/**
 * A signal that aborts when any of `signals` does. Hand-written instead of AbortSignal.any, which on
 * Node 20 keeps a reference per composed signal on long-lived sources (the supervisor's life signal).
 */
export function linkSignals(...signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const sources = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = (): void => controller.abort();
  for (const s of sources) {
    if (s.aborted) controller.abort();
    else s.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => { for (const s of sources) s.removeEventListener('abort', onAbort); },
  };
}
