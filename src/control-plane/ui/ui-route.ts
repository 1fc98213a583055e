/**
 * The console under /ui/ (contract §19): one route for the whole prefix. It serves the two assets and
 * the views, each rendered into the one layout with the console's headers (console-headers.ts). The
 * listener has done the Host check and authentication before this runs, exactly as for the JSON views.
 *
 * Through `svc console` for a daemon on the same machine, the proxy adds `x-svc-console-csrf` (and
 * `x-svc-console-as`, the person acting): the views then show action forms carrying that token. The
 * headers change only what is shown; every action is a POST to the proxy, which checks the token and
 * its session before using the admin socket. The team console (daemon/console/) serves the same route
 * with its own viewer: the signed-in person, and their session's token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorText } from '../../core/errors.js';
import type { RouteHandler } from '../route.js';
import { CONSOLE_JS } from './assets/console-script.js';
import { CONSOLE_ICON } from './assets/console-icon.js';
import { CONSOLE_CSS } from './assets/console-style.js';
import { CONSOLE_HEADERS, sendHtml } from './console-headers.js';
import type { Html } from './html.js';
import { html } from './html.js';
import { ASSET_PATHS, layout } from './layout.js';
import { auditView } from './views/audit-view.js';
import { dlqView } from './views/dlq-view.js';
import { eventView } from './views/event-view.js';
import { eventsView } from './views/events-view.js';
import { logsView } from './views/logs-view.js';
import { nowView } from './views/now-view.js';
import { oncallView } from './views/oncall-view.js';
import { pageView } from './views/page-view.js';
import { pagesView } from './views/pages-view.js';
import { reportsView } from './views/reports-view.js';
import { silencesView } from './views/silences-view.js';
import { ACTING_AS_ACTION } from './views/parts.js';
import type { UiDeps, View } from './views/view-types.js';

/** The header through which `svc console` hands the session's CSRF token to the views. */
export const CSRF_HEADER = 'x-svc-console-csrf';
/** The header through which `svc console` says which person of oncall.yaml the session acts as. */
export const ACTING_AS_HEADER = 'x-svc-console-as';
/** A CSRF token as the consoles make it: 32 random bytes, base64url. */
export const CSRF_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const PERSON_SHAPE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Who is looking at a view, as the listener serving it knows. */
export interface Viewer {
  /** The session's CSRF token when action forms are shown; null: read only. */
  csrf: string | null;
  /** The person of oncall.yaml acting; null: not known. */
  actingAs: string | null;
  /** The team console's signed-in user, shown with Sign out (their session's token, whether or not they may act). */
  signedIn?: { identity: string; person: string | null; sessionCsrf: string };
}

/** What the proxy's headers say (the control plane's own answers: none, so read only). */
export function viewerFromHeaders(req: IncomingMessage): Viewer {
  const token = req.headers[CSRF_HEADER];
  const as = req.headers[ACTING_AS_HEADER];
  return {
    csrf: typeof token === 'string' && CSRF_SHAPE.test(token) ? token : null,
    actingAs: typeof as === 'string' && PERSON_SHAPE.test(as) ? as : null,
  };
}

/** The banner's line about who is looking: signed in (team console), or acting as a chosen person (svc console). */
function whoBar(deps: UiDeps, viewer: Viewer, path: string): Html | undefined {
  if (viewer.signedIn !== undefined) {
    const { identity, person, sessionCsrf } = viewer.signedIn;
    return html`<form class="who" method="post" action="/auth/logout" aria-label="Your sign-in">
<input type="hidden" name="csrf" value="${sessionCsrf}">Signed in as <strong>${identity}</strong>${person === null
  ? html` — no person of oncall.yaml has this login: you can read, not act.` : html` (${person})`}
<button type="submit">Sign out</button></form>`;
  }
  if (viewer.csrf === null) return undefined;
  const people = [...new Set(deps.oncall.configs().flatMap((c) => c.config.people.map((p) => p.id)))].sort();
  if (people.length === 0) return undefined;
  return html`<form class="who" method="post" action="${ACTING_AS_ACTION}" aria-label="Who is acting">
<input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="back" value="${path}">
<label for="acting-as">Acting as</label> <select id="acting-as" name="as" required><option value="">choose a person</option>${people.map((p) =>
  html`<option value="${p}"${p === viewer.actingAs ? html` selected` : ''}>${p}</option>`)}</select>
<button type="submit">${viewer.actingAs === null ? 'Act as' : 'Change'}</button></form>`;
}

const VIEWS = new Map<string, View>([
  ['/ui/', nowView],
  ['/ui/pages', pagesView],
  ['/ui/oncall', oncallView],
  ['/ui/silences', silencesView],
  ['/ui/reports', reportsView],
  ['/ui/events', eventsView],
  ['/ui/dlq', dlqView],
  ['/ui/audit', auditView],
  ['/ui/logs', logsView],
]);

interface Asset { body: Buffer; type: string; etag: string }

function asset(text: string, type: string): Asset {
  const body = Buffer.from(text);
  // A weak tag from the length and a cheap sum: the text changes only with a new build.
  let sum = 0;
  for (const b of body) sum = (sum * 31 + b) >>> 0;
  return { body, type, etag: `W/"${body.length.toString(16)}-${sum.toString(16)}"` };
}

export const ASSETS = new Map<string, Asset>([
  [ASSET_PATHS.css, asset(CONSOLE_CSS, 'text/css; charset=utf-8')],
  [ASSET_PATHS.js, asset(CONSOLE_JS, 'text/javascript; charset=utf-8')],
  [ASSET_PATHS.icon, asset(CONSOLE_ICON, 'image/svg+xml')],
]);

function sendAsset(req: IncomingMessage, res: ServerResponse, a: Asset): void {
  if (req.headers['if-none-match'] === a.etag) {
    res.writeHead(304, { ...CONSOLE_HEADERS, etag: a.etag, 'cache-control': 'no-cache' });
    res.end();
    return;
  }
  res.writeHead(200, { ...CONSOLE_HEADERS, 'content-type': a.type, 'content-length': String(a.body.length), etag: a.etag, 'cache-control': 'no-cache' });
  res.end(req.method === 'HEAD' ? undefined : a.body);
}

export function createUiRoute(deps: UiDeps & { report: (line: string) => void }, opts: { viewer?: (req: IncomingMessage) => Viewer } = {}): RouteHandler {
  const viewerOf = opts.viewer ?? viewerFromHeaders;
  return async ({ req, res, url, signal }) => {
    const a = ASSETS.get(url.pathname);
    if (a !== undefined) return sendAsset(req, res, a);
    const view = VIEWS.get(url.pathname)
      ?? (url.pathname.startsWith('/ui/events/') ? eventView : url.pathname.startsWith('/ui/pages/') ? pageView : undefined);
    if (view === undefined) {
      sendHtml(req, res, 404, layout({ title: 'Not found', section: '', body: html`<p>There is no such page. <a href="/ui/">Back to Now</a></p>` }));
      return;
    }
    const viewer = viewerOf(req);
    try {
      const answer = await view(deps, { url, signal, csrf: viewer.csrf, actingAs: viewer.actingAs });
      if (answer.status === 0 || signal.aborted || res.destroyed) return;
      sendHtml(req, res, answer.status, layout({ title: answer.title, section: answer.section, body: answer.body, bar: whoBar(deps, viewer, url.pathname),
        shadow: deps.shadow?.() ?? [] }));
    } catch (err) {
      deps.report(`control plane: ${req.method ?? 'GET'} ${url.pathname} failed: ${errorText(err)}`);
      if (!res.headersSent) sendHtml(req, res, 500, layout({ title: 'Something went wrong', section: '', body: html`<p>The page could not be built; the daemon's log has the detail.</p>` }));
    }
  };
}
