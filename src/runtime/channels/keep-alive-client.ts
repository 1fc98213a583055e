/**
 * Requests over a few kept-alive connections, for a channel that asks one vendor the same small
 * question many times a second (Pushover's receipts, §21.3: 1,000 receipts are 33 asks a second).
 * A new connection per ask costs well over twice the CPU of a kept-alive one here (docs/performance.md,
 * 2026-11-29), and `maxSockets` holds the vendor's connection limit (Pushover: no more than two).
 * The requests are http-client.ts's, the one client of the channels, with its kept-alive agents.
 */
import type { Clock } from '../../core/clock.js';
import type { HttpAttempt } from './http-client.js';
import { httpRequest, keptAliveAgents } from './http-client.js';

export interface KeepAliveClient {
  request(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, signal: AbortSignal): Promise<HttpAttempt>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createKeepAliveClient(opts: { maxSockets: number; timeoutMs: number; maxBodyBytes: number; clock: Clock }): KeepAliveClient {
  const agents = keptAliveAgents(opts.maxSockets);
  return {
    request: (url, init, signal) => httpRequest(url, { method: init.method, ...(init.body === undefined ? {} : { body: init.body }) },
      { headers: init.headers ?? {}, timeoutMs: opts.timeoutMs, signal, maxBodyBytes: opts.maxBodyBytes, clock: opts.clock, agents }),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
