/**
 * /ui/events/<id>: one event — its fields, the labels and annotations of the alerts it carries, its
 * payload — and the audit rows that name it. Until the story of an event exists (contract §20.3) the
 * rows are found by reading the agent's audit rows forward from the event's arrival, one bounded
 * keyset page (STORY_WINDOW rows), and keeping those whose data names the event: fast at any size,
 * and a replay long after arrival may fall outside it (the page says so).
 */
import type { Html } from '../html.js';
import { html } from '../html.js';
import { banner, table, timeCell } from './parts.js';
import type { View } from './view-types.js';

/** Audit rows read after the event's arrival to find its own. */
export const STORY_WINDOW = 500;
const ID_SHAPE = /^[\x21-\x7e]{1,200}$/;

interface AuditItem { seq: number; ts: string; kind: string; actor: string; hash: string; data: Record<string, unknown> | null }

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
      const rows = Object.entries(map).slice(0, 100).map(([k, v]) => html`<tr><th scope="row">${k}</th><td class="wrap">${typeof v === 'string' ? v : JSON.stringify(v)}</td></tr>`);
      out.push(html`<h3>${alerts.length > 1 ? `Alert ${i + 1}: ` : ''}${key === 'labels' ? 'Labels' : 'Annotations'}</h3>
${table(`${key} of alert ${i + 1}`, ['Name', 'Value'], rows, 'None.')}`);
    }
    return out;
  });
}

function pretty(text: string | null): string {
  if (text === null) return '(unreadable)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export const eventView: View = async (deps, req) => {
  let raw: string;
  try {
    raw = decodeURIComponent(req.url.pathname.slice('/ui/events/'.length));
  } catch {
    raw = '';
  }
  const notFound = { status: 404 as const, title: 'Event not found', section: '/ui/events', body: html`<p>There is no event with this id. <a href="/ui/events">All events</a></p>` };
  if (!ID_SHAPE.test(raw)) return notFound;
  let leave: () => void;
  try {
    leave = await deps.gate.acquire(req.signal);
  } catch {
    return { status: 0 };
  }
  try {
    const event = await deps.store.getEvent(raw);
    if (event === null) return notFound;
    const window = await deps.store.listJson('audit',
      { limit: STORY_WINDOW, cursor: null, order: 'asc', sinceMs: Date.parse(event.ts), untilMs: null }, { agent: event.agentId });
    const rows = (JSON.parse(new TextDecoder().decode(window.items)) as AuditItem[]).filter((a) => a.data?.eventId === event.id);
    let payload: unknown = null;
    try { payload = event.payloadText === null ? null : JSON.parse(event.payloadText); } catch { payload = null; }
    const auditRows = rows.map((a) => html`<tr><th scope="row">${a.seq}</th>${timeCell(a.ts)}<td>${a.kind}</td><td class="wrap">${a.actor}</td>
<td class="wrap mono">${JSON.stringify(a.data)}</td><td class="mono"><abbr title="${a.hash}">${a.hash.slice(0, 12)}</abbr></td></tr>`);
    return {
      status: 200, title: `Event ${event.id.slice(0, 8)}`, section: '/ui/events',
      body: html`${event.corrupt ? banner(false, 'This event is stored damaged; some fields are unreadable.') : ''}
<dl class="facts">
<dt>Id</dt><dd class="mono">${event.id}</dd>
<dt>Arrived</dt><dd><time datetime="${event.ts}">${event.ts}</time></dd>
<dt>Agent</dt><dd>${event.agentId}</dd>
<dt>Source</dt><dd>${event.sourceId}</dd>
<dt>Kind</dt><dd>${event.kind}</dd>
<dt>Fingerprint</dt><dd class="mono">${event.fingerprint ?? '—'}</dd>
<dt>Status</dt><dd><span class="chip">${event.status}</span></dd>
</dl>
<h2>What happened</h2>
${table('Audit rows of this event', ['Seq', 'Time (UTC)', 'Kind', 'Actor', 'Data', 'Hash'], auditRows, 'No audit rows name this event yet.')}
<p class="note">Rows naming this event among the agent's first ${STORY_WINDOW} audit rows from its arrival${window.nextCursor === null ? '' : ' (later rows, such as a late replay, are in the audit view)'}.
<a href="/ui/audit?agent=${encodeURIComponent(event.agentId)}">Audit rows of ${event.agentId}</a></p>
<h2>Alert</h2>
${alertFacts(payload)}
<h2>Payload</h2>
<pre tabindex="0" aria-label="Payload">${pretty(event.payloadText)}</pre>`,
    };
  } finally {
    leave();
  }
};
