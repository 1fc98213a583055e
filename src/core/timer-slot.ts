/**
 * One pending timer that a loop sets again and again: the next round of a poll, brought forward when
 * there is work. `set` replaces the timer pending, if any; once `signal` is aborted the slot clears
 * it and sets none again, so a loop that is closing schedules nothing more.
 */
import type { Clock, TimerHandle } from './clock.js';

export interface TimerSlot {
  /** `fire` runs in `ms` (in place of any earlier time set); nothing once the signal is aborted. */
  set(ms: number): void;
}

export function timerSlot(clock: Pick<Clock, 'setTimer' | 'clearTimer'>, signal: AbortSignal, fire: () => void): TimerSlot {
  let timer: TimerHandle | null = null;
  const clear = (): void => {
    if (timer !== null) clock.clearTimer(timer);
    timer = null;
  };
  signal.addEventListener('abort', clear, { once: true });
  return {
    set(ms) {
      if (signal.aborted) return;
      clear();
      timer = clock.setTimer(() => {
        timer = null;
        fire();
      }, ms);
    },
  };
}
