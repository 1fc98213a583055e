/** Exponential back-off between delivery attempts. */

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
