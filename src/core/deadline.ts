/**
 * Deadlines built on the injected clock, so every wait is bounded, says why it ended and leaves no
 * timer behind. The only place that turns "at most N ms" into an AbortSignal.
 */
import type { Clock } from './clock.js';
import { abortReason } from './clock.js';

export type DeadlineEnd = 'timeout' | 'aborted';

export interface Deadline {
  /** Aborts when the time is up or the outer signal aborts. */
  readonly signal: AbortSignal;
  /** Why the signal aborted; null while it has not. */
  why(): DeadlineEnd | null;
  /** Releases the timer and the listener on the outer signal. Call it once the work is over. */
  dispose(): void;
}

export function startDeadline(ms: number, clock: Clock, outer?: AbortSignal): Deadline {
  const controller = new AbortController();
  let timer: ReturnType<Clock['setTimer']> | null = null;
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
    timer = clock.setTimer(() => end('timeout'), ms);
  }
  return {
    signal: controller.signal,
    why: () => why,
    dispose() {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
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
export async function withDeadline<T>(ms: number, clock: Clock, outer: AbortSignal | undefined,
  op: (signal: AbortSignal) => Promise<T>): Promise<DeadlineResult<T>> {
  const deadline = startDeadline(ms, clock, outer);
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
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(abortReason(signal));
    else signal.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
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

export interface SignalScope {
  /** A signal of the task's own, aborted with `outer`; `dispose` forgets it when the task is over. */
  signal(): { signal: AbortSignal; dispose(): void };
  /** Removes the one listener from `outer`. */
  dispose(): void;
}

/**
 * Signals for tasks that run at once under one outer signal: each task gets a signal of its own, and
 * one listener on `outer` aborts them all. Handing `outer` itself to each task puts a listener per
 * task on it (startDeadline adds one), and Node warns past 10 on one signal
 * (MaxListenersExceededWarning) — a warning that would hide a real leak.
 */
export function signalScope(outer: AbortSignal): SignalScope {
  const live = new Set<AbortController>();
  const onAbort = (): void => { for (const c of live) c.abort(outer.reason); };
  outer.addEventListener('abort', onAbort, { once: true });
  return {
    signal() {
      const c = new AbortController();
      if (outer.aborted) c.abort(outer.reason);
      else live.add(c);
      return { signal: c.signal, dispose: () => { live.delete(c); } };
    },
    dispose: () => outer.removeEventListener('abort', onAbort),
  };
}

/**
 * Waits for `promise` at most `ms`, for work that takes no signal (a store write): the same answer as
 * withDeadline without an AbortController, a signal and its listeners per call — on a hot path (every
 * webhook) those were garbage enough to show in the daemon's RSS under a 40,000-alert burst.
 */
export function raceDeadline<T>(ms: number, clock: Clock, promise: Promise<T>): Promise<DeadlineResult<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const timer = clock.setTimer(() => {
      if (settled) return;
      settled = true;
      resolve({ ok: false, why: 'timeout', error: new Error(`deadline of ${ms} ms passed`) });
    }, ms);
    promise.then(
      (value) => { if (!settled) { settled = true; clock.clearTimer(timer); resolve({ ok: true, value }); } },
      (error: unknown) => { if (!settled) { settled = true; clock.clearTimer(timer); resolve({ ok: false, why: 'error', error }); } },
    );
  });
}
