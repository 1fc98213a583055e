/**
 * One keep-alive timer for every event stream of a route (specification, GET /logs, framing rule 3:
 * `: keep-alive` every 15 s). A timer per client costs a timer-heap entry, its re-arming and its
 * closure per client; with thousands of clients that is thousands of timers doing the same thing at
 * scattered moments. Here one timer beats every stream at once, and is armed only while at least one
 * stream is open, so an idle route holds no timer.
 *
 * A stream that joins between two beats gets its first keep-alive at the next beat, sooner than one
 * interval after it joined: the rule bounds the silence on a connection, and that bound still holds.
 */
import type { Clock, TimerHandle } from '../../core/clock.js';

export interface KeepAliveTick {
  /** Calls `beat` at every tick until the returned function is called. */
  add(beat: () => void): () => void;
  /** Streams beaten at the next tick. */
  size(): number;
}

export interface KeepAliveTickOptions {
  clock: Clock;
  /** Default 15 000 (specification, Limits). */
  intervalMs?: number;
}

export const DEFAULT_KEEP_ALIVE_MS = 15_000;

export function createKeepAliveTick(o: KeepAliveTickOptions): KeepAliveTick {
  const intervalMs = o.intervalMs ?? DEFAULT_KEEP_ALIVE_MS;
  const beats = new Set<() => void>();
  let timer: TimerHandle | null = null;

  function tick(): void {
    timer = null;
    // A snapshot: a beat may close its stream (and remove it) while this runs.
    for (const beat of Array.from(beats)) beat();
    if (beats.size > 0) timer = o.clock.setTimer(tick, intervalMs);
  }

  return {
    add(beat) {
      const own = (): void => beat(); // its own identity: adding the same function twice is two members
      beats.add(own);
      timer ??= o.clock.setTimer(tick, intervalMs);
      return () => {
        if (!beats.delete(own) || beats.size > 0 || timer === null) return;
        o.clock.clearTimer(timer);
        timer = null;
      };
    },
    size: () => beats.size,
  };
}
