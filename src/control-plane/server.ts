/**
 * The read-only control-plane listener. Pipeline, in this order (contract §3.3): Host check → the
 * authentication seam → route lookup (404) → method (405 with Allow) → handler. Every JSON error is
 * `{"error": …}`; a handler that throws gets a bare 500 and the detail goes to `report`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Clock } from '../core/clock.js';
import { capConnections, listenerOptions } from '../core/listener-limits.js';
import { errorText } from '../core/errors.js';
import type { HostClass } from './host-guard.js';
import { classifyHost, hostValues } from './host-guard.js';
import { sendError } from './http-json.js';
import type { Principal, RouteContext, RouteHandler, Routes } from './route.js';

export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; status: number; body: { error: string; reason: string }; headers: Record<string, string> };

/** The seam authentication plugs into: runs after the Host check, before any route. */
export type AuthGuard = (req: IncomingMessage, host: HostClass) => Promise<AuthOutcome>;

export interface ControlPlaneOptions {
  bind: string;
  port: number;
  /** false: only loopback Host headers are served (spec "Remote Host header check"). */
  allowRemote: boolean;
  routes: Routes;
  guard: AuthGuard | null;
  /** Paths served without authentication (probes: /healthz, /readyz); the Host check still applies. */
  unauthenticated?: ReadonlySet<string>;
  /**
   * Requests that carry a credential of their own instead of a token (a calendar's subscription key,
   * §24.7): served without the token check, and the route checks the credential. `url` is the request
   * target, path and query.
   */
  keyed?: (path: string, url: string) => boolean;
  report: (line: string) => void;
  clock: Clock;
  /** Connections held at once (contract §11.2). */
  maxConnections: number;
  /**
   * Headers added to the listener's own error answers (Host check, auth, 404, 405) for a path: the
   * console's security headers under /ui/ (contract §19.2).
   */
  headersFor?: (path: string) => Readonly<Record<string, string>> | undefined;
}

export interface ControlPlane {
  start(): Promise<void>;
  /** The bound port (differs from the configured one when that was 0 in tests). */
  port(): number;
  close(): Promise<void>;
}

const ALLOW = 'GET, HEAD';
const NO_AUTH: Principal = { expiresAtMs: null };
/** Open streams get this long to finish after close() before their sockets are destroyed. */
const CLOSE_GRACE_MS = 2_000;

export function createControlPlane(opts: ControlPlaneOptions): ControlPlane {
  const live = new Set<AbortController>();
  const sockets = new Set<Socket>();
  const server: Server = createServer(listenerOptions(), (req, res) => {
    handle(req, res).catch((err: unknown) => fail(res, req, err));
  });
  capConnections(server, opts.maxConnections);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket: Socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });

  // Clients send the same Host on every request: the last answer is kept (classifying is pure).
  let lastHost: string | null = null;
  let lastClass: HostClass = 'remote';
  function hostClass(values: string[]): HostClass {
    if (values.length !== 1) return classifyHost(values);
    const value = values[0] as string;
    if (value !== lastHost) {
      lastClass = classifyHost(values);
      lastHost = value;
    }
    return lastClass;
  }

  function fail(res: ServerResponse, req: IncomingMessage, err: unknown): void {
    opts.report(`control plane: ${req.method ?? '?'} ${pathOf(req)} failed: ${errorText(err)}`);
    if (!res.headersSent) sendError(req, res, 500, 'internal error');
    else res.destroy();
  }

  // Routes whose path ends with `/` serve everything under it (the console's /ui/, /events/<id>/story);
  // exact keys win, and such a route answers 404 itself for what it does not know.
  const prefixes = [...opts.routes.keys()].filter((p) => p.length > 1 && p.endsWith('/'));
  const routeOf = (path: string): RouteHandler | undefined =>
    opts.routes.get(path) ?? opts.routes.get(prefixes.find((p) => path.startsWith(p)) ?? '');

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    const extra = opts.headersFor?.(path);
    const host = hostClass(hostValues(req.rawHeaders));
    if (host === 'ambiguous') return sendError(req, res, 400, 'multiple Host headers', {}, extra);
    if (host === 'remote' && !opts.allowRemote) return sendError(req, res, 403, 'remote control-plane disabled', {}, extra);

    let principal = NO_AUTH;
    if (opts.guard && !opts.unauthenticated?.has(path) && opts.keyed?.(path, req.url ?? '') !== true) {
      const outcome = await opts.guard(req, host);
      if (!outcome.ok) return sendError(req, res, outcome.status, outcome.body.error, { reason: outcome.body.reason }, { ...extra, ...outcome.headers });
      principal = outcome.principal;
    }

    const route = routeOf(path);
    if (!route) return sendError(req, res, 404, 'not found', {}, extra);
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(req, res, 405, 'method not allowed', {}, { ...extra, allow: ALLOW });

    const ctx = new RequestContext(req, res, principal, live);
    try {
      await route(ctx);
    } finally {
      ctx.release();
    }
  }

  let closing: Promise<void> | null = null;
  // Read once when listening: /status shows it on every request, and address() is a syscall.
  let boundPort: number | null = null;
  return {
    start: () =>
      new Promise((resolve, reject) => {
        server.once('error', (err) => reject(new Error(`control plane cannot listen on ${opts.bind}:${opts.port}: ${errorText(err)}`)));
        server.listen(opts.port, opts.bind, () => {
          boundPort = (server.address() as AddressInfo | null)?.port ?? null;
          resolve();
        });
      }),
    port: () => boundPort ?? opts.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        for (const c of live) c.abort(); // streams end themselves on abort
        server.closeIdleConnections();
        opts.clock.setTimer(() => { for (const s of sockets) s.destroy(); }, CLOSE_GRACE_MS);
      });
      return closing;
    },
  };
}

/**
 * One request's context. The URL and the abort signal are built only for routes that read them:
 * /status and /metrics answer at once and need neither, and they are the hot paths of scrapes and
 * `svc ps` (a class, so a request allocates no getters or closures it does not use).
 */
class RequestContext implements RouteContext {
  private parsed: URL | null = null;
  private controller: AbortController | null = null;
  private abort: (() => void) | null = null;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse, readonly principal: Principal,
    private readonly live: Set<AbortController>) {}

  get url(): URL {
    this.parsed ??= new URL(this.req.url ?? '/', 'http://control-plane.invalid');
    return this.parsed;
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      const controller = new AbortController();
      this.controller = controller;
      this.abort = () => controller.abort();
      this.live.add(controller);
      this.res.once('close', this.abort);
      this.req.once('aborted', this.abort);
    }
    return this.controller.signal;
  }

  /** Lets go of what `signal` set up, once the route is done. */
  release(): void {
    if (this.controller === null || this.abort === null) return;
    this.live.delete(this.controller);
    this.res.off('close', this.abort);
    this.req.off('aborted', this.abort);
  }
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
