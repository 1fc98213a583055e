/**
 * Whether a polling loop of the pager is doing its work (contract §13 readiness, §17.4): the timer
 * loop and the sender each keep one. A loop is unhealthy when its last passes all failed, or when no
 * pass has completed for too long (one hangs, or none starts) — a daemon whose pages cannot escalate
 * is not ready, whatever its store and listeners say.
 */
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';

/** Failed passes in a row that make a loop unhealthy (passes come every 200 ms: about a second of failing). */
export const MAX_FAILED_PASSES = 5;
/** A loop with no pass completed for this long is stalled (a pass normally takes milliseconds). */
export const STALL_MS = 60_000;

export interface LoopHealth {
  /** A pass completed. */
  passed(): void;
  /** A pass failed. */
  failed(err: unknown): void;
  /** Null while healthy; else why not, for the daemon's log (it may quote a store's error). */
  problem(): string | null;
}

export function createLoopHealth(name: string, clock: Clock, opts: { maxFailures?: number; stallMs?: number } = {}): LoopHealth {
  const maxFailures = opts.maxFailures ?? MAX_FAILED_PASSES;
  const stallMs = opts.stallMs ?? STALL_MS;
  // A loop that never completes a pass after it starts is stalled too: counted from its creation.
  let lastPassAt = clock.monotonic();
  let failures = 0;
  let lastError = '';
  return {
    passed() {
      lastPassAt = clock.monotonic();
      failures = 0;
    },
    failed(err) {
      failures += 1;
      lastError = errorText(err);
    },
    problem() {
      if (failures >= maxFailures) return `${name}: ${failures} passes failed in a row (last: ${lastError})`;
      const since = clock.monotonic() - lastPassAt;
      if (since > stallMs) return `${name}: no pass completed for ${Math.round(since / 1000)} s`;
      return null;
    },
  };
}
