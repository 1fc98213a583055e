/**
 * The listen/close shell of the sources that answer people rather than alert senders — ack links
 * (§18.6), Slack interactivity (§18.2) and Twilio's callbacks (§21.4): one HTTP server with the webhook listener's limits
 * (core/listener-limits.ts), its connections capped, bound where the source says. A handler that
 * throws is reported and, when nothing was answered yet, answered by `unavailable`; else the
 * connection is cut. Closing never waits on a peer: a browser that stopped reading its answer, or one
 * still trickling its request, is cut after CLOSE_GRACE_MS, so the daemon's shutdown stays bounded.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { capConnections, listenerOptions } from '../core/listener-limits.js';

/** How long close() lets answers under way finish before it cuts their connections. */
export const CLOSE_GRACE_MS = 2_000;

export interface SourceListener {
  start(): Promise<void>;
  /** The bound port: the source's, or the one the system chose for port 0. */
  port(): number;
  /** Stops listening; idle connections close at once, busy ones after their answer or CLOSE_GRACE_MS, whichever comes first. */
  close(): Promise<void>;
}

export interface SourceListenerSpec {
  source: { id: string; type: string; port: number; bind: string; maxConnections: number };
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A handler failed: tell the operator. */
  onError(err: unknown): void;
  /** The answer to a request whose handler failed before answering. */
  unavailable(res: ServerResponse): void;
  /** Times the close grace (default: the system clock). */
  clock?: Clock;
}

export function createSourceListener(spec: SourceListenerSpec): SourceListener {
  const { source } = spec;
  const clock = spec.clock ?? systemClock;
  let server: Server | null = null;
  let boundPort = source.port;
  return {
    async start() {
      const s = createServer(listenerOptions(), (req, res) => {
        spec.handle(req, res).catch((err: unknown) => {
          spec.onError(err);
          if (!res.headersSent) spec.unavailable(res);
          else res.destroy();
        });
      });
      capConnections(s, source.maxConnections);
      server = s;
      await new Promise<void>((resolve, reject) => {
        // Named like the webhook listeners' (the port and its owner, not the address: it may come from a reference).
        const onListenError = (err: NodeJS.ErrnoException): void => {
          reject(new RuntimeError('ELISTEN', `${source.type} source ${source.id} cannot listen on port ${source.port}: ${err.code ?? err.message}`));
        };
        s.once('error', onListenError);
        s.listen(source.port, source.bind, () => {
          s.off('error', onListenError);
          boundPort = (s.address() as AddressInfo).port;
          resolve();
        });
      });
    },
    port: () => boundPort,
    async close() {
      const s = server;
      server = null;
      if (s === null) return;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeIdleConnections();
      const grace = new AbortController();
      const graceOver = clock.sleep(CLOSE_GRACE_MS, grace.signal).then(() => true, () => false);
      if (await Promise.race([closed.then(() => false), graceOver])) s.closeAllConnections();
      grace.abort(); // releases the grace timer when every connection went in time
      await closed;
    },
  };
}
