/**
 * The team console (contract §24.6): a listener of its own — the control plane stays read-only — that
 * serves the console of §19 to the team. Not a new app: the same views (control-plane/ui), the same
 * /logs stream and calendar route, over the same shared readers; what it adds is sign-in and the
 * action forms.
 *
 * - Sign-in: OpenID Connect, authorization code with PKCE, a confidential client (`client_secret_basic`),
 *   redirect `<publicUrl>/auth/callback` (auth/oidc-sign-in.ts); sessions on the server
 *   (team-sessions.ts), ended 12 h after sign-in. Every page but a keyed calendar needs one.
 * - Who: the signed-in identity is mapped to a person by `people[].login` (oncall/person-login.ts),
 *   per request. Mapped people act; anyone else signed in may read.
 * - Actions: POST forms with the session's CSRF token and the console's own Origin (or `null`, what a
 *   no-referrer page sends), planned by console-actions.ts exactly as `svc console` plans them, and
 *   carried out by the daemon's admin operations in process — the admin socket's validation and audit
 *   rows, actor the identity, `via: console`, `by` the person.
 * - Requests are accepted only for the publicUrl's host (or loopback at the bound port): a page of
 *   another site that resolves to this address is refused (DNS rebinding).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OidcSignIn } from '../../auth/oidc-sign-in.js';
import type { ConsoleConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import { readRequestForm } from '../../core/read-request.js';
import type { RouteContext, RouteHandler } from '../../control-plane/route.js';
import { CONSOLE_HEADERS, sendHtml } from '../../control-plane/ui/console-headers.js';
import type { Html } from '../../control-plane/ui/html.js';
import { html } from '../../control-plane/ui/html.js';
import { layout } from '../../control-plane/ui/layout.js';
import { personForLogin } from '../../oncall/person-login.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { AdminOperations } from '../admin-operations.js';
import { createSourceListener } from '../source-listener.js';
import { planConsoleAction } from './console-actions.js';
import { sameSecret } from './console-cookies.js';
import type { TeamSession, TeamSessions } from './team-sessions.js';
import { createTeamSessions } from './team-sessions.js';

export interface TeamConsoleRoutes {
  /** The views, given who is looking (ui-route.ts `createUiRoute` with a viewer). */
  ui(viewerOf: (req: IncomingMessage) => TeamViewer): RouteHandler;
  logs: RouteHandler;
  calendar: RouteHandler;
}

export interface TeamViewer {
  csrf: string | null;
  actingAs: string | null;
  signedIn: { identity: string; person: string | null; sessionCsrf: string };
}

export interface TeamConsoleDeps {
  settings: ConsoleConfig;
  routes: TeamConsoleRoutes;
  /** Every agent's oncall.yaml, read per request (a reload applies to the next one). */
  configs(): Iterable<{ agentId: string; config: OncallConfig }>;
  operations: AdminOperations;
  signIn: OidcSignIn;
  clock: Clock;
  report(line: string): void;
}

export interface TeamConsole {
  start(): Promise<void>;
  port(): number;
  /** Sessions live now (signed in or signing in). */
  sessions(): number;
  close(): Promise<void>;
}

/** Most bytes of a form read: the largest (a silence, twenty matchers) is well under it. */
const MAX_FORM_BYTES = 16 * 1024;
/** Where a sign-in may return to: the console's own views (a query of visible ASCII only: it goes into a Location header). */
const NEXT = /^\/ui\/[A-Za-z0-9/_.-]{0,200}(\?[\x21-\x7e]{0,800})?$/;

const readForm = (req: IncomingMessage): Promise<URLSearchParams | null> => readRequestForm(req, MAX_FORM_BYTES);

export function createTeamConsole(deps: TeamConsoleDeps): TeamConsole {
  const { settings, clock } = deps;
  const publicUrl = new URL(settings.publicUrl);
  const base = settings.publicUrl.replace(/\/+$/, '');
  const sessions: TeamSessions = createTeamSessions({ clock, secure: publicUrl.protocol === 'https:' });
  const live = new Set<AbortController>();
  const sessionOf = new WeakMap<IncomingMessage, TeamSession>();

  const personOf = (session: TeamSession): string | null =>
    (session.user === null ? null : personForLogin(deps.configs(), session.user.claims));
  const ui = deps.routes.ui((req) => {
    const session = sessionOf.get(req);
    const user = session?.user ?? null;
    const person = session === undefined ? null : personOf(session);
    return {
      csrf: person === null || session === undefined ? null : session.csrf,
      actingAs: person,
      signedIn: { identity: user?.identity ?? '?', person, sessionCsrf: session?.csrf ?? '' },
    };
  });

  const listener = createSourceListener({
    source: { id: 'console', type: 'console', port: settings.port, bind: settings.bind, maxConnections: settings.maxConnections },
    handle,
    onError: (err) => deps.report(`team console: ${errorText(err)}`),
    unavailable: (res) => {
      res.writeHead(500, { ...CONSOLE_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('The console could not answer; the daemon\'s log has the detail.\n');
    },
  });

  const page = (req: IncomingMessage, res: ServerResponse, status: number, title: string, body: Html, headers: Record<string, string> = {}): void =>
    sendHtml(req, res, status, layout({ title, section: '', body }), headers);
  const redirect = (res: ServerResponse, location: string, headers: Record<string, string> = {}, status = 303): void => {
    res.writeHead(status, { ...CONSOLE_HEADERS, 'cache-control': 'no-store', location, 'content-length': '0', ...headers });
    res.end();
  };

  /** The publicUrl's host, or loopback at the port this listener is bound to (a proxy on the same host that keeps Host as it is). */
  function hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return false;
    if (host === publicUrl.host) return true;
    const port = listener.port();
    return host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
  }

  /** Runs a read route with a context of this request: aborted when the client goes or the console closes. */
  async function serve(route: RouteHandler, req: IncomingMessage, res: ServerResponse, url: URL, session: TeamSession | null): Promise<void> {
    const controller = new AbortController();
    live.add(controller);
    const abort = (): void => controller.abort();
    res.once('close', abort);
    // A /logs stream ends when the session does (the route's token-expiry frame, contract §4.6).
    const ctx: RouteContext = { req, res, url, signal: controller.signal, principal: { expiresAtMs: session?.expiresAtMs ?? null } };
    try {
      await route(ctx);
    } finally {
      live.delete(controller);
      res.off('close', abort);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) return page(req, res, 403, 'Refused', html`<p>This address is not the console's.</p>`);
    const url = new URL(req.url ?? '/', base);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
      res.writeHead(405, { ...CONSOLE_HEADERS, allow: 'GET, HEAD, POST', 'content-length': '0' });
      res.end();
      return;
    }
    if (url.pathname === '/auth/login' && method !== 'POST') return login(res, url);
    const session = sessions.fromCookie(req.headers.cookie);
    if (url.pathname === '/auth/callback' && method !== 'POST') return callback(req, res, url, session);
    // A calendar app polls with the key in its URL and no session (§24.7); the route checks the key.
    if (url.pathname.startsWith('/oncall/') && url.searchParams.has('key') && method !== 'POST') return serve(deps.routes.calendar, req, res, url, null);
    if (session?.user == null) {
      if (method === 'POST') return page(req, res, 403, 'Refused', html`<p>Sign in first: <a href="/auth/login">Sign in</a>. Nothing was done.</p>`);
      const next = NEXT.test(`${url.pathname}${url.search}`) ? `${url.pathname}${url.search}` : '/ui/';
      return redirect(res, `/auth/login?next=${encodeURIComponent(next)}`, {}, 302);
    }
    sessionOf.set(req, session);
    if (method === 'POST') return post(req, res, url, session);
    if (url.pathname === '/' || url.pathname === '/ui') return redirect(res, '/ui/');
    if (url.pathname.startsWith('/ui/')) return serve(ui, req, res, url, session);
    if (url.pathname === '/logs') return serve(deps.routes.logs, req, res, url, session);
    if (url.pathname.startsWith('/oncall/')) return serve(deps.routes.calendar, req, res, url, session);
    return page(req, res, 404, 'Not found', html`<p>There is no such page. <a href="/ui/">Back to Now</a></p>`);
  }

  async function login(res: ServerResponse, url: URL): Promise<void> {
    const asked = url.searchParams.get('next') ?? '/ui/';
    const next = NEXT.test(asked) ? asked : '/ui/';
    const started = await deps.signIn.start();
    const session = sessions.begin({ ...started.pending, next });
    redirect(res, started.url, { 'set-cookie': sessions.cookieFor(session) }, 302);
  }

  async function callback(req: IncomingMessage, res: ServerResponse, url: URL, session: TeamSession | null): Promise<void> {
    const pending = session?.pending ?? null;
    if (session === null || pending === null) {
      return page(req, res, 400, 'Sign-in', html`<p>No sign-in is in progress in this browser (or it took longer than 10 minutes). <a href="/auth/login">Sign in</a></p>`);
    }
    sessions.end(session);
    let signed;
    try {
      signed = await deps.signIn.finish(url, pending, clock.now());
    } catch (err) {
      // The IdP's error (a refused consent, a bad state) goes to the daemon's log, never to the page.
      deps.report(`team console: a sign-in failed: ${errorText(err)}`);
      return page(req, res, 401, 'Sign-in failed', html`<p>The identity provider's answer could not be used. <a href="/auth/login">Try again</a></p>`,
        { 'set-cookie': sessions.clearCookie() });
    }
    const signedIn = sessions.signIn(session, { identity: signed.identity, claims: signed.claims });
    const person = personOf(signedIn);
    deps.report(`team console: ${signed.identity} signed in${person === null ? ' (no person of oncall.yaml: read only)' : ` as ${person}`}`);
    redirect(res, pending.next, { 'set-cookie': sessions.cookieFor(signedIn) });
  }

  async function post(req: IncomingMessage, res: ServerResponse, url: URL, session: TeamSession): Promise<void> {
    // Forms post only from the console's own pages. Under `Referrer-Policy: no-referrer` browsers send
    // `Origin: null` for them: the session's CSRF token (and SameSite) decide; a named foreign origin is refused.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null' && origin !== publicUrl.origin) {
      return page(req, res, 403, 'Refused', html`<p>This form did not come from the console.</p>`);
    }
    const form = await readForm(req);
    if (form === null || !sameSecret(form.get('csrf') ?? '', session.csrf)) {
      return page(req, res, 403, 'Refused', html`<p>The form's security token does not match this session: nothing was done. Reload the page and try again.</p>`);
    }
    if (url.pathname === '/auth/logout') {
      sessions.end(session);
      deps.report(`team console: ${session.user?.identity ?? '?'} signed out`);
      return page(req, res, 200, 'Signed out', html`<p>You are signed out of the console. <a href="/auth/login">Sign in again</a></p>`,
        { 'set-cookie': sessions.clearCookie() });
    }
    const identity = session.user?.identity ?? '?';
    const person = personOf(session);
    if (person === null) {
      return page(req, res, 403, 'Not allowed', html`<p>You are signed in as ${identity}, and no person of oncall.yaml has this login: you can read the
console but not act. Ask for <code>login:</code> to be set on your entry in oncall.yaml. Nothing was done.</p>`);
    }
    const plan = planConsoleAction(url.pathname, form, { actor: identity, person });
    if (plan.kind === 'not-found') return page(req, res, 404, 'Not found', html`<p>There is no such action.</p>`);
    if (plan.kind === 'back' || plan.kind === 'act-as') return redirect(res, plan.location);
    const answer = await deps.operations.run(plan.request);
    if (answer.ok) deps.report(`team console: ${identity} (${person}) ${plan.request.op}`);
    redirect(res, plan.then(answer));
  }

  return {
    start: () => listener.start(),
    port: () => listener.port(),
    sessions: () => sessions.count(),
    async close() {
      for (const c of live) c.abort();
      await listener.close();
    },
  };
}
