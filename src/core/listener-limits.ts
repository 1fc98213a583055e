/**
 * What every listener of the daemon holds to (contract §11.2), so a flood on one of them never takes
 * the others, the store or the log files down: a connection whose request headers have not arrived
 * within 10 s is closed (checked every second), a whole request gets 30 s, and a listener holds at
 * most `maxConnections` at once — past that, Node closes new connections as they arrive.
 */
import type { Server, ServerOptions } from 'node:http';

export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1_000;

/**
 * Options for `http.createServer` / `https.createServer`. `headersTimeoutMs` is the contract's 10 s
 * unless a test asks for less (it waits out the timeout for real: Node's own timers enforce it); the
 * check interval shrinks with it so a short timeout is not rounded up to a whole second.
 */
export function listenerOptions(headersTimeoutMs: number = HEADERS_TIMEOUT_MS): ServerOptions {
  return { headersTimeout: headersTimeoutMs, requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs),
    connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, Math.max(10, Math.floor(headersTimeoutMs / 4))) };
}

export function capConnections(server: Pick<Server, 'maxConnections'>, maxConnections: number): void {
  server.maxConnections = maxConnections;
}
