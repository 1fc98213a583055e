/**
 * `svc console`'s proxy (contract §19.3–§19.4): a listener on 127.0.0.1 between the operator's browser
 * and a control plane's console. The browser signs in with a link that works once; from then on a
 * session cookie (HttpOnly, SameSite=Strict) names it, and any request without it gets 401. When the
 * control plane requires tokens the proxy signs the operator in with OpenID Connect and sends the
 * access token upstream; the browser never sees a token.
 *
 * Actions exist only here, only for a daemon on this machine: POST forms carrying the session's CSRF
 * token, carried out through the daemon's admin socket and audited with `via: console` and the
 * operator's identity. The control plane stays read-only.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { LOOPBACK } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import { readRequestForm } from '../../core/read-request.js';
import { CONSOLE_HEADERS, sendHtml } from '../../control-plane/ui/console-headers.js';
import type { Html } from '../../control-plane/ui/html.js';
import { html } from '../../control-plane/ui/html.js';
import { layout } from '../../control-plane/ui/layout.js';
import type { OidcSignIn } from '../../auth/oidc-sign-in.js';
import { ACTING_AS_HEADER, CSRF_HEADER } from '../../control-plane/ui/ui-route.js';
import type { AdminRequest, AdminResponse } from '../../daemon/admin-protocol.js';
import { planConsoleAction } from '../../daemon/console/console-actions.js';
import { sameSecret } from '../../daemon/console/console-cookies.js';
import type { TokenSource } from '../token-source.js';
import type { Session, Sessions } from './console-sessions.js';
import { createSessions } from './console-sessions.js';

/** A control plane the proxy shows. */
export interface Upstream {
  name: string;
  /** Origin (and path prefix) of its control plane, no trailing slash. */
  base: string;
  /** Tokens for it that are not the operator's (fleet.yaml, SVC_TOKEN); null: none, or the OIDC sign-in's. */
  tokens: TokenSource | null;
  /** Its admin socket when the daemon runs on this machine: actions are offered only then. */
  adminSocket: string | null;
}

export interface ConsoleProxyOptions {
  port: number;
  upstreams: readonly Upstream[];
  /** --fleet: a host picker comes first. */
  fleet: boolean;
  /** Set when the control plane requires tokens the operator gets by signing in. */
  oidc: OidcSignIn | null;
  /** The identity of actions when there is no sign-in: `local:<os user>`. */
  localIdentity: string;
  /** `--as`: the person of oncall.yaml acting in every session; null: each session chooses with "Acting as". */
  actingAs: string | null;
  admin: (socket: string, request: AdminRequest) => Promise<AdminResponse | null>;
  clock: Clock;
  report: (line: string) => void;
}

export interface ConsoleProxy {
  port: number;
  /** The one-time sign-in link. */
  link: string;
  close(): Promise<void>;
}

/** Renew an access token this long before it ends, so no request carries one about to expire. */
const REFRESH_BEFORE_MS = 60_000;

/** Most bytes of an action form read: the largest (a silence, twenty matchers) is well under it. */
const MAX_FORM_BYTES = 16 * 1024;
const UPSTREAM_PATHS = /^\/(ui\/.*|logs)$/;
const FORWARDED_REQUEST_HEADERS = ['accept', 'last-event-id', 'if-none-match'] as const;
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'cache-control', 'etag', 'content-length'] as const;

function page(req: IncomingMessage, res: ServerResponse, status: number, title: string, body: Html, headers: Record<string, string> = {}): void {
  sendHtml(req, res, status, layout({ title, section: '', body }), headers);
}

function redirect(res: ServerResponse, location: string, headers: Record<string, string> = {}, status = 303): void {
  res.writeHead(status, { ...CONSOLE_HEADERS, 'cache-control': 'no-store', location, 'content-length': '0', ...headers });
  res.end();
}

const readForm = (req: IncomingMessage): Promise<URLSearchParams | null> => readRequestForm(req, MAX_FORM_BYTES);

export async function startConsoleProxy(opts: ConsoleProxyOptions): Promise<ConsoleProxy> {
  const sessions: Sessions = createSessions();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.report(`svc console: ${req.method ?? '?'} ${req.url ?? ''} failed: ${errorText(err)}`);
      if (!res.headersSent) page(req, res, 502, 'Something went wrong', html`<p>The request could not be completed; the terminal running <code>svc console</code> has the detail.</p>`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, LOOPBACK, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const byName = new Map(opts.upstreams.map((u) => [u.name, u]));
  const refreshing = new WeakMap<Session, Promise<void>>();

  const upstreamOf = (session: Session): Upstream | null =>
    opts.fleet ? (session.host === null ? null : byName.get(session.host) ?? null) : (opts.upstreams[0] ?? null);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a page of another site resolving to 127.0.0.1 sends its own Host name.
    if (!hosts.has(req.headers.host ?? '')) return page(req, res, 403, 'Refused', html`<p>This address is not the console's.</p>`);
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const method = req.method ?? 'GET';

    if (url.pathname === '/login' && method === 'GET') return login(req, res, url);
    const session = sessions.fromCookie(req.headers.cookie);
    if (session === null) {
      return page(req, res, 401, 'Sign in', html`<p>Open the link that <code>svc console</code> printed; each link works once. Run <code>svc console</code> again for a new one.</p>`);
    }
    if (url.pathname === '/callback' && method === 'GET') return callback(req, res, url, session);

    if (method === 'POST') {
      // Forms post only from the console's own pages. Under `Referrer-Policy: no-referrer` browsers send
      // `Origin: null` for them: the session's CSRF token (and SameSite=Strict) decide; a named foreign origin is refused.
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== 'null' && !origins.has(origin)) return page(req, res, 403, 'Refused', html`<p>This form did not come from the console.</p>`);
      const form = await readForm(req);
      if (form === null || !sameSecret(form.get('csrf') ?? '', session.csrf)) {
        return page(req, res, 403, 'Refused', html`<p>The form's security token does not match this session: nothing was done. Reload the page and try again.</p>`);
      }
      if (url.pathname === '/hosts' && opts.fleet) return pickHost(req, res, form, session);
      return act(req, res, url, form, session);
    }
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { ...CONSOLE_HEADERS, allow: 'GET, HEAD, POST', 'content-length': '0' });
      res.end();
      return;
    }
    if (opts.oidc !== null) {
      if (session.accessToken !== null && session.refreshToken !== null && session.tokenExpiresAtMs !== null
        && session.tokenExpiresAtMs - REFRESH_BEFORE_MS <= opts.clock.now()) await refresh(session);
      if (session.accessToken === null || (session.tokenExpiresAtMs !== null && session.tokenExpiresAtMs <= opts.clock.now())) return signIn(res, session);
    }
    if (url.pathname === '/' || url.pathname === '/ui') return redirect(res, opts.fleet && session.host === null ? '/hosts' : '/ui/');
    if (url.pathname === '/hosts' && opts.fleet) return hostPicker(req, res, session);
    if (!UPSTREAM_PATHS.test(url.pathname)) return page(req, res, 404, 'Not found', html`<p>There is no such page. <a href="/ui/">Back to Now</a></p>`);
    const upstream = upstreamOf(session);
    if (upstream === null) return redirect(res, '/hosts');
    return forward(req, res, url, upstream, session);
  }

  async function login(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const session = sessions.redeem(url.searchParams.get('token') ?? '', opts.localIdentity);
    if (session === null) {
      return page(req, res, 401, 'This link has been used', html`<p>A sign-in link works once. Run <code>svc console</code> again for a new one.</p>`);
    }
    const cookie = { 'set-cookie': sessions.cookieFor(session) };
    if (opts.oidc !== null) return signIn(res, session, cookie);
    return redirect(res, opts.fleet ? '/hosts' : '/ui/', cookie);
  }

  async function signIn(res: ServerResponse, session: Session, headers: Record<string, string> = {}): Promise<void> {
    const started = await (opts.oidc as OidcSignIn).start();
    session.pending = started.pending;
    redirect(res, started.url, headers, 302);
  }

  async function callback(req: IncomingMessage, res: ServerResponse, url: URL, session: Session): Promise<void> {
    const pending = session.pending;
    if (opts.oidc === null || pending === null) return page(req, res, 400, 'Sign-in', html`<p>No sign-in is in progress.</p>`);
    session.pending = null;
    let signed;
    try {
      signed = await opts.oidc.finish(url, pending, opts.clock.now());
    } catch (err) {
      opts.report(`svc console: sign-in failed: ${errorText(err)}`);
      return page(req, res, 401, 'Sign-in failed', html`<p>The identity provider's answer could not be used; the terminal running <code>svc console</code> says why. <a href="/ui/">Try again</a></p>`);
    }
    session.accessToken = signed.accessToken;
    session.tokenExpiresAtMs = signed.expiresAtMs;
    session.refreshToken = signed.refreshToken;
    session.identity = signed.identity;
    opts.report(`svc console: signed in as ${signed.identity}`);
    redirect(res, opts.fleet ? '/hosts' : '/ui/');
  }

  /**
   * Renews the session's access token with its refresh token; one renewal at a time per session. When
   * the IdP refuses (or cannot be reached) the session forgets its tokens: the request that asked is
   * sent through sign-in again, never answered with an error page.
   */
  function refresh(session: Session): Promise<void> {
    let running = refreshing.get(session);
    if (running === undefined) {
      running = (async () => {
        try {
          const renewed = await (opts.oidc as OidcSignIn).refresh(session.refreshToken ?? '', opts.clock.now());
          session.accessToken = renewed.accessToken;
          session.tokenExpiresAtMs = renewed.expiresAtMs;
          session.refreshToken = renewed.refreshToken;
        } catch (err) {
          opts.report(`svc console: renewing the sign-in of ${session.identity} failed (${errorText(err)}); signing in again`);
          session.accessToken = null;
          session.refreshToken = null;
          session.tokenExpiresAtMs = null;
        } finally {
          refreshing.delete(session);
        }
      })();
      refreshing.set(session, running);
    }
    return running;
  }

  function hostPicker(req: IncomingMessage, res: ServerResponse, session: Session): void {
    const rows = opts.upstreams.map((u) => html`<tr><th scope="row">${u.name}</th><td class="wrap mono">${u.base}</td>
<td><form class="inline" method="post" action="/hosts"><input type="hidden" name="csrf" value="${session.csrf}">
<input type="hidden" name="host" value="${u.name}"><button type="submit" aria-label="Open ${u.name}">Open</button></form></td></tr>`);
    page(req, res, 200, 'Hosts', html`<p>Choose the host whose console to open${session.host === null ? '' : html` (now: <strong>${session.host}</strong>)`}.</p>
<div class="scroll" role="region" aria-label="Hosts" tabindex="0"><table><thead><tr><th scope="col">Host</th><th scope="col">Control plane</th><th scope="col">Open</th></tr></thead>
<tbody>${rows}</tbody></table></div>`);
  }

  function pickHost(req: IncomingMessage, res: ServerResponse, form: URLSearchParams, session: Session): void {
    const name = form.get('host') ?? '';
    if (!byName.has(name)) return page(req, res, 400, 'Hosts', html`<p>There is no such host in fleet.yaml. <a href="/hosts">Hosts</a></p>`);
    session.host = name;
    redirect(res, '/ui/');
  }

  /**
   * An action form, planned as the team console plans it (daemon/console/console-actions.ts) and
   * carried out through the daemon's admin socket; the browser goes back to the view with the outcome.
   */
  async function act(req: IncomingMessage, res: ServerResponse, url: URL, form: URLSearchParams, session: Session): Promise<void> {
    const upstream = upstreamOf(session);
    if (upstream?.adminSocket == null) return page(req, res, 403, 'Refused', html`<p>Actions are offered only for a daemon on this machine.</p>`);
    const plan = planConsoleAction(url.pathname, form, { actor: session.identity, person: opts.actingAs ?? session.actingAs });
    if (plan.kind === 'not-found') return page(req, res, 404, 'Not found', html`<p>There is no such action.</p>`);
    if (plan.kind === 'act-as') {
      if (opts.actingAs === null) session.actingAs = plan.person;
      return redirect(res, plan.location);
    }
    if (plan.kind === 'back') return redirect(res, plan.location);
    const answer = await opts.admin(upstream.adminSocket, plan.request);
    if (answer === null) return page(req, res, 503, 'Not done', html`<p>The daemon is not running (no admin socket); nothing was done.</p>`);
    if (answer.ok) opts.report(`svc console: ${session.identity}${session.actingAs === null && opts.actingAs === null ? '' : ` as ${opts.actingAs ?? session.actingAs ?? ''}`} ${plan.request.op}`);
    redirect(res, plan.then(answer));
  }

  async function forward(req: IncomingMessage, res: ServerResponse, url: URL, upstream: Upstream, session: Session): Promise<void> {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const v = req.headers[name];
      if (typeof v === 'string') headers[name] = v;
    }
    const token = session.accessToken ?? (upstream.tokens === null ? null : await upstream.tokens.token());
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (upstream.adminSocket !== null) {
      headers[CSRF_HEADER] = session.csrf;
      const acting = opts.actingAs ?? session.actingAs;
      if (acting !== null) headers[ACTING_AS_HEADER] = acting;
    }
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const answer = await fetch(`${upstream.base}${url.pathname}${url.search}`, { method: req.method, headers, signal: abort.signal, redirect: 'manual' });
    if (answer.status === 401) {
      await answer.body?.cancel();
      if (opts.oidc !== null) {
        session.accessToken = null;
        return page(req, res, 401, 'Signed out', html`<p>The control plane no longer accepts this sign-in. <a href="/ui/">Sign in again</a></p>`);
      }
      return page(req, res, 502, 'Refused upstream', html`<p>The control plane at ${upstream.base} refused the proxy's credentials.</p>`);
    }
    const out: Record<string, string> = { ...CONSOLE_HEADERS };
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const v = answer.headers.get(name);
      if (v !== null) out[name] = v;
    }
    res.writeHead(answer.status, out);
    if (answer.body === null || req.method === 'HEAD') {
      res.end();
      return;
    }
    res.flushHeaders();
    const body = Readable.fromWeb(answer.body as WebReadableStream<Uint8Array>);
    body.on('error', () => res.destroy());
    body.pipe(res);
  }

  return {
    port,
    link: `http://127.0.0.1:${port}/login?token=${sessions.linkToken}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
