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

/** Options for `http.createServer` / `https.createServer`. */
export function listenerOptions(): ServerOptions {
  return { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS };
}

export function capConnections(server: Pick<Server, 'maxConnections'>, maxConnections: number): void {
  server.maxConnections = maxConnections;
}
