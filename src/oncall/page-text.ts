/**
 * A page message as text (contract §24.1), for its recipient: read at 3 a.m. on a phone, so it says,
 * in this order, the severity and title; what is wrong (each alert's summary, its instance); the
 * runbook and source links; what happened and who is paged now and next, times in the reader's zone
 * with the zone printed (§24.5); then the one way to act that the channel has — its buttons (nothing
 * here), else one line of ack and resolve links, else the command to type.
 *
 *   [P1] CheckoutErrors on api-1
 *   Checkout 5xx ratio 12%
 *   Instance: api-1
 *   Runbook: https://runbooks.example.com/checkout
 *   Source: http://prometheus:9090/graph?g0.expr=…
 *   Page p7xq2m4k9a opened.
 *   Paged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)
 *   svc ack p7xq2m4k9a
 */
import type { PageAction, PageMessage } from './page-message-model.js';
import type { PageAlert } from './page-alert.js';

/** A person's one-time links (contract §18.6), when the agent has an ack source. */
export interface ActLinks { ack: string; resolve: string }

/** How a channel lets its reader act: its own buttons, or a line of text. */
export type ActBy = 'buttons' | 'text';

export const headOf = (m: Pick<PageMessage, 'severity' | 'title' | 'happened'>): string =>
  `${m.happened === 'resolved' ? 'RESOLVED ' : ''}[${m.severity}] ${m.title}`;

const MINUTE_MS = 60_000;

/** `5m`, `1h 30m`, `45s`: how far off the next step is, to the minute. */
export function roughly(ms: number): string {
  if (ms < MINUTE_MS) return `${Math.max(0, Math.round(ms / 1000))}s`;
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 120) return `${minutes}m`;
  const h = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${h}h` : `${h}h ${minutes % 60}m`;
}

/**
 * Formatters kept per locale, zone and shape: building an Intl.DateTimeFormat costs far more than
 * using one, and every round renders its text (a storm of 200 pages spent a sixth of the main thread
 * building them, docs/performance.md). Zones come from oncall.yaml, so the set is small; it is
 * bounded all the same.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATS = 256;
function formatOf(locale: 'en-US' | 'en-GB', zone: string, shape: 'zone' | 'clock'): Intl.DateTimeFormat {
  const key = `${locale} ${shape} ${zone}`;
  let format = formats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, shape === 'zone' ? { timeZone: zone, timeZoneName: 'short' }
      : { timeZone: zone, weekday: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    if (formats.size >= MAX_FORMATS) formats.clear();
    formats.set(key, format);
  }
  return format;
}

/**
 * The zone's short name where the tz database has a common one (`CET`, `EST`, `UTC`), else the offset
 * (`GMT+5:30`): English names, whatever the host's locale.
 */
function zoneName(atMs: number, zone: string): string {
  for (const locale of ['en-US', 'en-GB'] as const) {
    const part = formatOf(locale, zone, 'zone').formatToParts(atMs).find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (/^[A-Z]{2,5}$/.test(part)) return part;
  }
  return formatOf('en-US', zone, 'zone').formatToParts(atMs).find((p) => p.type === 'timeZoneName')?.value ?? zone;
}

/** `03:10 CET`, or `Mon 03:10 CET` when that is another day in the zone than `fromMs`. */
export function clockAt(atMs: number, zone: string, fromMs: number): string {
  const parts = (ms: number): Record<string, string> => Object.fromEntries(formatOf('en-GB', zone, 'clock').formatToParts(ms).map((p) => [p.type, p.value]));
  const at = parts(atMs);
  const from = parts(fromMs);
  const day = at.day === from.day ? '' : `${at.weekday ?? ''} `;
  return `${day}${at.hour ?? ''}:${at.minute ?? ''} ${zoneName(atMs, zone)}`;
}

function oneAlertLines(a: PageAlert): string[] {
  return [
    ...(a.summary === undefined ? [] : [a.summary]),
    ...(a.instance === undefined ? [] : [`Instance: ${a.instance}`]),
    ...links(a, ''),
  ];
}

const links = (a: PageAlert, indent: string): string[] => [
  ...(a.runbookUrl === undefined ? [] : [`${indent}Runbook: ${a.runbookUrl}`]),
  ...(a.sourceUrl === undefined ? [] : [`${indent}Source: ${a.sourceUrl}`]),
];

/** What is wrong: one alert's summary, instance and links; several alerts each on a line of its own with its links below. */
export function alertLines(m: PageMessage): string[] {
  if (m.factLines !== undefined) return m.factLines;
  const [only] = m.alerts;
  const lines: string[] = [];
  if (m.alerts.length === 1 && only !== undefined && m.moreAlerts === 0) lines.push(...oneAlertLines(only));
  else {
    for (const a of m.alerts) lines.push(`- ${a.name}${a.summary === undefined ? '' : `: ${a.summary}`}`, ...links(a, '  '));
    if (m.moreAlerts > 0) lines.push(`… and ${m.moreAlerts} more`);
  }
  if (m.alertmanagerUrl !== undefined) lines.push(`Alertmanager: ${m.alertmanagerUrl}`);
  return lines;
}

/**
 * Who is paged now and next in words, around the next step's instant as `at` renders it — a clock in
 * the reader's zone here, a `<time>` the browser shows in its own in the console — so every place says
 * it the same way. Null when nobody is paged any more.
 */
export function pagedPieces<T>(m: Pick<PageMessage, 'paged' | 'atMs'>, at: (atMs: number) => T): Array<string | T> | null {
  const p = m.paged;
  if (p === null) return null;
  const pass = p.pass === null ? '' : ` (pass ${p.pass.now} of ${p.pass.of})`;
  const now = `step ${p.step} of ${p.steps}${pass}: ${p.now.length === 0 ? 'nobody' : p.now.join(', ')}`;
  if (p.next === null) return [now];
  const who = p.next.who.length === 0 ? `step ${p.next.step}` : p.next.who.join(', ');
  return [`${now}; next: ${who} at `, at(p.next.atMs), ` (in ${roughly(p.next.atMs - m.atMs)})`];
}

/** `step 1 of 3: alice; next: bob at 03:10 CET (in 5m)`; null when nobody is paged any more. */
export function pagedLine(m: Pick<PageMessage, 'paged' | 'atMs'>, zone: string): string | null {
  return pagedPieces(m, (atMs) => clockAt(atMs, zone, m.atMs))?.join('') ?? null;
}

/** The lines of the message above the way to act, for a reader in `zone`. */
export function pageLines(m: PageMessage, zone: string): string[] {
  const paged = pagedLine(m, zone);
  return [headOf(m), ...alertLines(m), m.said, ...(paged === null ? [] : [`Paged: ${paged}`])];
}

const LABEL: Readonly<Record<PageAction, string>> = { ack: 'Acknowledge', resolve: 'Resolve', escalate: 'Escalate' };
export const actionLabel = (a: PageAction): string => LABEL[a];

/** The links that still make sense, by action (ack and resolve have links; escalate has none). */
export function actLinks(m: Pick<PageMessage, 'actions'>, links: ActLinks): Array<{ action: 'ack' | 'resolve'; url: string }> {
  const out: Array<{ action: 'ack' | 'resolve'; url: string }> = [];
  if (m.actions.includes('ack')) out.push({ action: 'ack', url: links.ack });
  if (m.actions.includes('resolve')) out.push({ action: 'resolve', url: links.resolve });
  return out;
}

/**
 * The one line to act by for a channel without buttons: the person's links (`Acknowledge: <url> |
 * Resolve: <url>`), else the command (`svc ack <page>`; `svc resolve <page>` once acknowledged);
 * null when nothing is left to do.
 */
export function actLine(m: Pick<PageMessage, 'actions' | 'pageId'>, links: ActLinks | null): string | null {
  if (links !== null) {
    const line = actLinks(m, links).map((l) => `${LABEL[l.action]}: ${l.url}`).join(' | ');
    return line === '' ? null : line;
  }
  if (m.actions.includes('ack')) return `svc ack ${m.pageId}`;
  if (m.actions.includes('resolve')) return `svc resolve ${m.pageId}`;
  return null;
}

/** The whole message as text for a reader in `zone`: with its way to act unless the channel has buttons. */
export function pageMessageText(m: PageMessage, zone: string, links: ActLinks | null, by: ActBy = 'text'): string {
  const act = by === 'buttons' ? null : actLine(m, links);
  return [...pageLines(m, zone), ...(act === null ? [] : [act])].join('\n');
}
