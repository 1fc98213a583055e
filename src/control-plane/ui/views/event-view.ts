/**
 * /ui/events/<id>: one event — its fields, the labels and annotations of the alerts it carries, its
 * payload — and its story (contract §20.3): the same store read as GET /events/<id>/story, every audit
 * row that concerns the event in seq order with its hash, and the verdict on them (event-story.ts).
 * An index lookup: the page costs the same at a thousand events as at a million.
 */
import { summaryOfPayload, summaryOfTriage } from '../../../store/event-summary.js';
import { checkStoryChain, EVENT_ID_PATTERN, storyVerdict } from '../../event-story.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { auditRowHead, auditWhatCell, banner, linkOrText, table, timeText } from './parts.js';
import { recordView } from './record-view.js';
import type { View } from './view-types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A label's or annotation's value: an http(s) URL is a link (a runbook, a dashboard), anything else text. */
function valueCell(v: unknown): Html {
  return typeof v === 'string' ? html`<td class="wrap">${linkOrText(v)}</td>` : html`<td class="wrap">${JSON.stringify(v)}</td>`;
}

/** The links an alert carries (§24.8): each alert's runbook and source (`generatorURL`), Alertmanager's own URL. */
function alertLinks(payload: unknown): Html {
  if (!isObject(payload)) return html``;
  const alerts = Array.isArray(payload.alerts) ? payload.alerts.filter(isObject).slice(0, 20) : [payload];
  const items: Html[] = [];
  for (const [i, a] of alerts.entries()) {
    const annotations = { ...(isObject(payload.commonAnnotations) ? payload.commonAnnotations : {}), ...(isObject(a.annotations) ? a.annotations : {}) };
    const which = alerts.length > 1 ? `Alert ${i + 1}: ` : '';
    if (typeof annotations.runbook_url === 'string') items.push(html`<li>${which}Runbook: ${linkOrText(annotations.runbook_url)}</li>`);
    if (typeof a.generatorURL === 'string') items.push(html`<li>${which}Source: ${linkOrText(a.generatorURL)}</li>`);
  }
  if (typeof payload.externalURL === 'string') items.push(html`<li>Alertmanager: ${linkOrText(payload.externalURL)}</li>`);
  return items.length === 0 ? html`` : html`<ul class="facts-list">${items}</ul>`;
}

/** Labels and annotations of an Alertmanager-shaped payload (`alerts[]`) or of a single alert. */
function alertFacts(payload: unknown): Html[] {
  if (!isObject(payload)) return [];
  const alerts = Array.isArray(payload.alerts) ? payload.alerts.filter(isObject) : [payload];
  return alerts.slice(0, 20).flatMap((a, i) => {
    const out: Html[] = [];
    for (const key of ['labels', 'annotations'] as const) {
      const map = a[key];
      if (!isObject(map)) continue;
      const rows = Object.entries(map).slice(0, 100).map(([k, v]) => html`<tr><th scope="row">${k}</th>${valueCell(v)}</tr>`);
      out.push(html`<h3>${alerts.length > 1 ? `Alert ${i + 1}: ` : ''}${key === 'labels' ? 'Labels' : 'Annotations'}</h3>
${table(`${key} of alert ${i + 1}`, ['Name', 'Value'], rows, 'None.')}`);
    }
    return out;
  });
}

function safeParse(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

function pretty(text: string | null): string {
  if (text === null) return '(unreadable)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const eventView: View = recordView({ prefix: '/ui/events/', pattern: EVENT_ID_PATTERN, noun: 'event', section: '/ui/events',
  async render(raw, deps, req, notFound) {
    const event = await deps.store.getEvent(raw);
    if (event === null) return notFound;
    // Rows first, then the chain: the check then reaches at least the story's last row.
    const story = await deps.store.eventStory(event.id);
    const verdict = storyVerdict(story, await checkStoryChain(story, deps.watermark));
    const problemOf = new Map(verdict.problems.map((p) => [p.seq, p.problem]));
    const rows = verdict.truncated ? story.slice(0, -1) : story;
    let payload: unknown;
    try { payload = event.payloadText === null ? null : JSON.parse(event.payloadText); } catch { payload = null; }
    const auditRows = rows.map((a) => html`<tr>${auditRowHead(a.seq, a.ts, a.kind, a.actor)}
  ${auditWhatCell(a.kind, a.actor, a.corrupt ? null : a.dataText)}<td class="mono" data-label="Hash"><abbr title="${a.hash}">${a.hash.slice(0, 12)}</abbr></td>
  <td data-label="Check">${problemOf.get(a.seq) ?? 'ok'}</td></tr>`);
    const verdictText = rows.length === 0 ? null
      : verdict.verified ? banner(true, 'Verified: every row hashes to its stored hash and links to the row before it, and the chain from these rows to its head was checked just now.')
        : banner(false, verdict.problems.length > 0
          ? `Not verified: ${verdict.problems.map((p) => `seq ${p.seq} ${p.problem}`).join(', ')}.`
          : 'Not verified: the audit chain is broken before, among or after these rows (run svc audit --verify).');
    // Titles name events (§24.8): what triage decided, else what the payload says, else the id.
    const triaged = rows.map((r) => (r.kind === 'triage.decision' && !r.corrupt ? summaryOfTriage(safeParse(r.dataText)) : null)).find((t) => t !== null);
    const title = triaged?.summary.title ?? summaryOfPayload(payload).title ?? `Event ${event.id.slice(0, 8)}`;
    return {
      status: 200, title, section: '/ui/events',
      body: html`${event.corrupt ? banner(false, 'This event is stored damaged; some fields are unreadable.') : ''}
  ${alertLinks(payload)}
  <dl class="facts">
  <dt>Id</dt><dd class="mono">${event.id}</dd>
  <dt>Arrived</dt><dd>${timeText(event.ts)}</dd>
  <dt>Agent</dt><dd>${event.agentId}</dd>
  <dt>Source</dt><dd>${event.sourceId}</dd>
  <dt>Kind</dt><dd>${event.kind}</dd>
  <dt>Fingerprint</dt><dd class="mono">${event.fingerprint ?? '—'}</dd>
  <dt>Status</dt><dd><span class="chip">${event.status}</span></dd>
  </dl>
  <h2>Story</h2>
  ${verdictText}
  ${table('Audit rows of this event', ['Seq', 'Time', 'Kind', 'Actor', 'What happened', 'Hash', 'Check'], auditRows, 'No audit rows name this event yet.', { cards: true })}
  ${verdict.truncated ? html`<p class="note">Only the first ${rows.length} rows are shown; the rest are in the audit view.</p>` : ''}
  <p class="note">${deps.jsonLinks ? html`<a href="/events/${event.id}/story">This story as JSON</a> · ` : ''}
  <a href="/ui/audit?agent=${encodeURIComponent(event.agentId)}">Audit rows of ${event.agentId}</a></p>
  <h2>Alert</h2>
  ${alertFacts(payload)}
  <h2>Payload</h2>
  <pre tabindex="0" aria-label="Payload">${pretty(event.payloadText)}</pre>`,
    };
  },
});
