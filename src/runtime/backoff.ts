/** Exponential back-off between delivery attempts, and an abortable sleep. */
import { setTimeout as delay } from 'node:timers/promises';

export interface BackoffPolicy {
  initialBackoffMs: number;
  maxBackoffMs: number;
}

/**
 * Wait before attempt `attempt + 1` (attempt counts from 1). A server's own Retry-After wins when
 * it asks for longer, still capped at maxBackoffMs so one bad answer cannot park a worker for hours.
 */
export function backoffMs(policy: BackoffPolicy, attempt: number, retryAfterMs?: number): number {
  const exp = policy.initialBackoffMs * 2 ** Math.min(attempt - 1, 30);
  return Math.min(policy.maxBackoffMs, Math.max(exp, retryAfterMs ?? 0));
}

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts. */
export const timerSleep: Sleep = (ms, signal) => delay(ms, undefined, { signal });
