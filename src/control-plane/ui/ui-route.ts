/**
 * The console under /ui/ (contract §19): one route for the whole prefix. It serves the two assets and
 * the views, each rendered into the one layout with the console's headers (console-headers.ts). The
 * listener has done the Host check and authentication before this runs, exactly as for the JSON views.
 *
 * Through `svc console` for a daemon on the same machine, the proxy adds `x-svc-console-csrf`: the
 * views then show action forms carrying that token. The header changes only what is shown; every
 * action is a POST to the proxy, which checks the token and its session before using the admin socket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorText } from '../../core/errors.js';
import type { RouteHandler } from '../route.js';
import { CONSOLE_JS } from './assets/console-script.js';
import { CONSOLE_ICON } from './assets/console-icon.js';
import { CONSOLE_CSS } from './assets/console-style.js';
import { CONSOLE_HEADERS, sendHtml } from './console-headers.js';
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
import type { UiDeps, View } from './views/view-types.js';

/** The header through which `svc console` hands the session's CSRF token to the views. */
export const CSRF_HEADER = 'x-svc-console-csrf';
/** A CSRF token as the proxy makes it: 32 random bytes, base64url. */
export const CSRF_SHAPE = /^[A-Za-z0-9_-]{43}$/;

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

export function createUiRoute(deps: UiDeps & { report: (line: string) => void }): RouteHandler {
  return async ({ req, res, url, signal }) => {
    const a = ASSETS.get(url.pathname);
    if (a !== undefined) return sendAsset(req, res, a);
    const view = VIEWS.get(url.pathname)
      ?? (url.pathname.startsWith('/ui/events/') ? eventView : url.pathname.startsWith('/ui/pages/') ? pageView : undefined);
    if (view === undefined) {
      sendHtml(req, res, 404, layout({ title: 'Not found', section: '', body: html`<p>There is no such page. <a href="/ui/">Back to Now</a></p>` }));
      return;
    }
    const token = req.headers[CSRF_HEADER];
    const csrf = typeof token === 'string' && CSRF_SHAPE.test(token) ? token : null;
    try {
      const answer = await view(deps, { url, signal, csrf });
      if (answer.status === 0 || signal.aborted || res.destroyed) return;
      sendHtml(req, res, answer.status, layout({ title: answer.title, section: answer.section, body: answer.body }));
    } catch (err) {
      deps.report(`control plane: ${req.method ?? 'GET'} ${url.pathname} failed: ${errorText(err)}`);
      if (!res.headersSent) sendHtml(req, res, 500, layout({ title: 'Something went wrong', section: '', body: html`<p>The page could not be built; the daemon's log has the detail.</p>` }));
    }
  };
}
