/** /ui/events: the events, newest first, filtered like /events, one keyset page at a time. */
import { EVENT_STATUSES } from '../../../store/store.js';
import { EVENTS_VIEW } from '../../page-query.js';
import { html } from '../html.js';
import { banner, filterForm, pager, table, timeCell } from './parts.js';
import { readPage } from './read-page.js';
import type { View } from './view-types.js';

/** An event as /events lists it (store/record-json.ts). */
export interface EventItem {
  id: string; ts: string; agentId: string; sourceId: string; kind: string; fingerprint?: string; status: string; corrupt?: true;
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
<th scope="row" class="mono"><a href="/ui/events/${encodeURIComponent(e.id)}">${e.id.slice(0, 8)}</a></th>
${timeCell(e.ts)}<td>${e.agentId}</td><td>${e.sourceId}</td><td>${e.kind}</td>
<td class="wrap mono">${e.fingerprint ?? '—'}</td><td><span class="chip">${e.status}</span>${e.corrupt ? ' (corrupt)' : ''}</td>
</tr>`);
  const first = page.query.page.cursor === null;
  return {
    status: 200, title: 'Events', section: '/ui/events',
    body: html`${form}
<div id="live"${first ? html` data-refresh="5"` : ''}>
${table('Events', ['Event', 'Time (UTC)', 'Agent', 'Source', 'Kind', 'Fingerprint', 'Status'], rows, 'No events match.')}
</div>
${pager('/ui/events', p, page.nextCursor, first)}
<p class="note">Statuses: ${EVENT_STATUSES.join(', ')}.</p>`,
  };
};
