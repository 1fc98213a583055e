/**
 * The console's one layout (contract §19): skip link, banner with the navigation, one `main` landmark
 * holding the view, the style sheet and the script from /ui/assets/. Views give a title and a body;
 * everything else about a page is decided here.
 */
import type { Html } from './html.js';
import { html } from './html.js';

/** The navigation, in order. A new view (pages, on-call, reports) is one row here and one route in ui-route.ts. */
export const NAV: ReadonlyArray<{ path: string; label: string }> = [
  { path: '/ui/', label: 'Now' },
  { path: '/ui/pages', label: 'Pages' },
  { path: '/ui/oncall', label: 'On call' },
  { path: '/ui/silences', label: 'Silences' },
  { path: '/ui/reports', label: 'Reports' },
  { path: '/ui/events', label: 'Events' },
  { path: '/ui/dlq', label: 'Dead letters' },
  { path: '/ui/audit', label: 'Audit' },
  { path: '/ui/logs', label: 'Logs' },
];

export const ASSET_PATHS = { css: '/ui/assets/console.css', js: '/ui/assets/console.js', icon: '/ui/assets/icon.svg' } as const;

export interface PageParts {
  title: string;
  /** The NAV path this view belongs to (marked `aria-current="page"`). */
  section: string;
  body: Html;
  /** Who is looking, in the banner: the team console's signed-in person, or "Acting as" (ui-route.ts). */
  bar?: Html;
  /** Agents in a shadow run (contract §22.3): a banner on every view says nobody is paged by them. */
  shadow?: readonly string[];
}

/** The banner of a shadow run: on every view, above everything, so the console is never taken for the live pager. */
function shadowBanner(agents: readonly string[] | undefined): Html | string {
  if (agents === undefined || agents.length === 0) return '';
  const who = `${agents.join(', ')} ${agents.length === 1 ? 'pages' : 'page'} nobody`;
  return html`<p class="shadow-run" role="status"><strong>Shadow run:</strong> ${who}. Every round is recorded; nothing is sent to anyone.</p>
`;
}

export function layout(parts: PageParts): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${parts.title} · svc console</title>
<link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<script src="${ASSET_PATHS.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${shadowBanner(parts.shadow)}<header>
<p class="brand">svc console</p>
<nav aria-label="Views"><ul>
${NAV.map((n) => html`<li><a href="${n.path}"${n.path === parts.section ? html` aria-current="page"` : ''}>${n.label}</a></li>`)}
</ul></nav>
${parts.bar ?? ''}
</header>
<main id="main" tabindex="-1">
<h1>${parts.title}</h1>
<p class="note zone" id="zone-note">Times in UTC</p>
${parts.body}
</main>
</body>
</html>
`.text;
}
