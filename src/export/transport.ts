/** What the export pump (audit-export.ts) needs from a SIEM transport (create-transport.ts picks one). */
import type { Clock } from '../core/clock.js';
import type { AuditRow } from '../audit/audit-row.js';

/**
 * Outcome of one delivery attempt. A failure is expected (receiver down, slow, refusing) and is
 * retried by the pump with the same rows; `error` is a short text for logs and /status, never
 * carrying a token or a response body.
 */
export type SendResult = { ok: true } | { ok: false; error: string; retryAfterMs?: number };

export interface AuditTransport {
  /**
   * Delivers `rows` (in seq order) as one batch. Resolves `ok: true` only once the receiver has
   * acknowledged all of them; never rejects for a delivery problem. `signal` aborts the attempt.
   */
  send(rows: readonly AuditRow[], signal: AbortSignal): Promise<SendResult>;
  /** Releases connections and timers; later sends fail. Idempotent. */
  close(): Promise<void>;
}

/** What transports put in the records besides the rows: the daemon's host name and process id. */
export interface TransportDeps {
  hostname: string;
  pid: number;
  /** Times each attempt (`timeoutMs`). */
  clock: Clock;
}
