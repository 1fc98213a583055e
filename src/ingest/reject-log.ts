/**
 * Sampling of the log lines of refused webhook requests (contract §11.3): a flood of bad signatures
 * must not become a flood of log writes. At most one line per source and reason every `windowMs`
 * (10 s); the next line says how many were left out since (`suppressed`). Every refusal is still
 * counted in svc_webhook_rejected_total by the caller.
 */
import type { Clock } from '../core/clock.js';

export const REJECT_LOG_WINDOW_MS = 10_000;

export interface RejectLog {
  /**
   * Whether this refusal gets a log line; when it does, `suppressed` is how many of the same source
   * and reason were left out since the previous line.
   */
  admit(sourceId: string, reason: string): { log: true; suppressed: number } | { log: false };
}

export function createRejectLog(clock: Clock, windowMs = REJECT_LOG_WINDOW_MS): RejectLog {
  const last = new Map<string, { atMs: number; suppressed: number }>();
  return {
    admit(sourceId, reason) {
      const key = `${sourceId}\u0000${reason}`;
      const now = clock.monotonic();
      const seen = last.get(key);
      if (seen !== undefined && now - seen.atMs < windowMs) {
        seen.suppressed += 1;
        return { log: false };
      }
      const suppressed = seen?.suppressed ?? 0;
      last.set(key, { atMs: now, suppressed: 0 });
      return { log: true, suppressed };
    },
  };
}
