/**
 * /ui/dlq: dead letters, newest first, filtered like /dlq. Through `svc console` on the daemon's own
 * machine each letter not yet replayed gets a Replay button: a POST form to the proxy with the
 * session's CSRF token (the control plane itself never changes anything).
 */
import { DEAD_LETTERS_VIEW } from '../../page-query.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { eventTitle } from './events-view.js';
import { banner, filterForm, outcomeBanner, pager, table, timeCell } from './parts.js';
import { readPage } from './read-page.js';
import type { View } from './view-types.js';

/** Where the proxy takes a replay (cli/console). */
export const DLQ_REPLAY_ACTION = '/actions/dlq-replay';

interface DeadLetterItem {
  id: string; ts: string; agentId: string; sourceId: string; eventId: string; reason: string; error: string;
  attempts: number; replayedAt: string | null; corrupt?: true; payload?: unknown;
}

/** The hidden CSRF field every action form carries. */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

export const dlqView: View = async (deps, req) => {
  const page = await readPage<DeadLetterItem, 'dlq', 'agent' | 'source' | 'reason'>({
    store: deps.store, gate: deps.gate, view: 'dlq', spec: DEAD_LETTERS_VIEW, url: req.url, signal: req.signal, ignore: ['replayed', 'failed'],
  });
  if (!page.ok && page.status === 0) return { status: 0 };
  const p = page.ok ? page.params : Object.fromEntries([...req.url.searchParams].filter(([k]) => k !== 'replayed' && k !== 'failed'));
  const form = filterForm('/ui/dlq', 'Filter dead letters', [
    { name: 'agent', label: 'Agent', value: p.agent },
    { name: 'source', label: 'Source', value: p.source },
    { name: 'reason', label: 'Reason', value: p.reason },
  ]);
  const done = req.url.searchParams.get('replayed');
  const outcome = done === null ? outcomeBanner(req.url, {})
    : banner(done !== '0', done === '0' ? 'Nothing was replayed (already replayed, or gone).' : 'Replayed: the event is back in the queue.');
  if (!page.ok) return { status: 400, title: 'Dead letters', section: '/ui/dlq', body: html`${form}${banner(false, page.error)}` };
  const columns = ['Letter', 'Time', 'Agent', 'Source', 'Reason', 'Error', 'Attempts', 'Event', 'Replayed'];
  if (req.csrf !== null) columns.push('Action');
  const rows = page.items.map((d) => html`<tr>
<th scope="row" class="mono">${d.id.slice(0, 8)}</th>${timeCell(d.ts)}<td>${d.agentId}</td><td>${d.sourceId}</td>
<td>${d.reason}</td><td class="wrap">${d.error}</td><td>${d.attempts}</td>
<td class="wrap"><a href="/ui/events/${encodeURIComponent(d.eventId)}">${eventTitle({ kind: `event ${d.eventId.slice(0, 8)}`, payload: d.payload })}</a></td>
${d.replayedAt === null ? html`<td>no</td>` : timeCell(d.replayedAt)}
${req.csrf === null ? '' : html`<td>${d.replayedAt === null
    ? html`<form class="inline" method="post" action="${DLQ_REPLAY_ACTION}">${csrfField(req.csrf)}<input type="hidden" name="id" value="${d.id}">
<button type="submit" aria-label="Replay dead letter ${d.id.slice(0, 8)}">Replay</button></form>`
    : '—'}</td>`}
</tr>`);
  const first = page.query.page.cursor === null;
  return {
    status: 200, title: 'Dead letters', section: '/ui/dlq',
    body: html`${outcome}${form}
<div id="live"${first ? html` data-refresh="5"` : ''}>
${table('Dead letters', columns, rows, 'No dead letters match.')}
</div>
${pager('/ui/dlq', p, page.nextCursor, first)}
${req.csrf === null ? html`<p class="note">Replay is offered through <code>svc console</code> on the daemon's machine, the team console, or with <code>svc dlq replay ID</code>.</p>` : ''}`,
  };
};
