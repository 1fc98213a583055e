/**
 * /ui/events: the events, newest first, filtered like /events, one keyset page at a time. Each is
 * named by its title (§24.8: what the alert says — its summary, else its name — not a fingerprint);
 * on a phone each row is a card, the title wrapped in view.
 */
import { summaryOfPayload } from '../../../store/event-summary.js';
import { EVENT_STATUSES } from '../../../store/store.js';
import { EVENTS_VIEW } from '../../page-query.js';
import { html } from '../html.js';
import { banner, filterForm, pager, table, timeText } from './parts.js';
import { readPage } from './read-page.js';
import type { View } from './view-types.js';

/** An event as /events lists it (store/record-json.ts). */
export interface EventItem {
  id: string; ts: string; agentId: string; sourceId: string; kind: string; fingerprint?: string; status: string; corrupt?: true; payload?: unknown;
}

/** What names an event: its payload's title, else its kind. */
export function eventTitle(e: Pick<EventItem, 'kind' | 'payload'>): string {
  return summaryOfPayload(e.payload).title ?? e.kind;
}

export const eventsView: View = async (deps, req) => {
  const page = await readPage<EventItem, 'events', 'agent' | 'source' | 'kind' | 'status'>({
    store: deps.store, gate: deps.gate, view: 'events', spec: EVENTS_VIEW, url: req.url, signal: req.signal,
  });
  if (!page.ok && page.status === 0) return { status: 0 };
  const p = page.ok ? page.params : Object.fromEntries(req.url.searchParams);
  const form = filterForm('/ui/events', 'Filter events', [
    { name: 'agent', label: 'Agent', value: p.agent },
    { name: 'source', label: 'Source', value: p.source },
    { name: 'kind', label: 'Kind', value: p.kind },
    { name: 'status', label: 'Status', value: p.status, options: ['', ...EVENT_STATUSES] },
    { name: 'order', label: 'Order', value: p.order, options: ['', 'desc', 'asc'] },
  ]);
  if (!page.ok) return { status: 400, title: 'Events', section: '/ui/events', body: html`${form}${banner(false, page.error)}` };
  const rows = page.items.map((e) => html`<tr>
<th scope="row" class="title"><a href="/ui/events/${encodeURIComponent(e.id)}">${eventTitle(e)}</a> <span class="mono note">${e.id.slice(0, 8)}</span></th>
<td data-label="Time" class="mono">${timeText(e.ts)}</td><td data-label="Status"><span class="chip">${e.status}</span>${e.corrupt ? ' (corrupt)' : ''}</td>
<td data-label="Agent">${e.agentId}</td><td data-label="Source">${e.sourceId}</td><td data-label="Kind">${e.kind}</td>
</tr>`);
  const first = page.query.page.cursor === null;
  return {
    status: 200, title: 'Events', section: '/ui/events',
    body: html`${form}
<div id="live"${first ? html` data-refresh="5"` : ''}>
${table('Events', ['Event', 'Time', 'Status', 'Agent', 'Source', 'Kind'], rows, 'No events match.', { cards: true })}
</div>
${pager('/ui/events', p, page.nextCursor, first)}
<p class="note">Statuses: ${EVENT_STATUSES.join(', ')}.</p>`,
  };
};
