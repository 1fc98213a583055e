/**
 * /ui/pages/<id>: one page — its fields as GET /pages/<id> shows them, its events, and its timeline
 * (the page's audit rows in seq order, Store.oncall.pageTimeline). Through `svc console` on the
 * daemon's machine the page's actions are POST forms to the proxy carrying the session's CSRF token.
 */
import { isoTs } from '../../../core/clock.js';
import type { PageRecord } from '../../../oncall/page.js';
import { PAGE_ID_PATTERN } from '../../../oncall/page.js';
import { isDamagedPage } from '../../../store/oncall-store.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { csrfField } from './dlq-view.js';
import { stateChip } from './pages-view.js';
import { auditWhatCell, banner, table, timeCell } from './parts.js';
import { recordView } from './record-view.js';
import type { View } from './view-types.js';

/** Where the proxy takes a page action (cli/console); the action is a form field. */
export const PAGE_ACTION = '/actions/page';
/** The actions the console offers, as `svc` names them, and when each applies. */
export const PAGE_ACTIONS = [
  { action: 'ack', label: 'Acknowledge', when: (p: PageRecord) => p.state === 'triggered' },
  { action: 'unack', label: 'Unacknowledge', when: (p: PageRecord) => p.state === 'acknowledged' },
  { action: 'escalate', label: 'Escalate', when: (p: PageRecord) => p.state !== 'resolved' },
  { action: 'resolve', label: 'Resolve', when: (p: PageRecord) => p.state !== 'resolved' },
] as const;

const OUTCOMES: Record<string, string> = {
  ack: 'Acknowledged.', unack: 'Unacknowledged: the page is triggered again.', escalate: 'Escalated to the next step.', resolve: 'Resolved.',
};

function actions(p: PageRecord, csrf: string | null): Html {
  if (csrf === null) {
    return html`<p class="note">Acknowledge, resolve and escalate are offered through <code>svc console</code> on the daemon's machine, or with <code>svc ack ${p.id}</code>.</p>`;
  }
  const offered = PAGE_ACTIONS.filter((a) => a.when(p));
  if (offered.length === 0) return html``;
  return html`<div class="actions">${offered.map((a) => html`<form class="inline" method="post" action="${PAGE_ACTION}">${csrfField(csrf)}
<input type="hidden" name="id" value="${p.id}"><input type="hidden" name="action" value="${a.action}">
<button type="submit">${a.label}</button></form>`)}</div>`;
}

export const pageView: View = recordView({ prefix: '/ui/pages/', pattern: PAGE_ID_PATTERN, noun: 'page', section: '/ui/pages',
  async render(id, deps, req, notFound) {
    const stored = await deps.store.oncall.getPage(id);
    if (stored === null) return notFound;
    const timeline = await deps.store.oncall.pageTimeline(id);
    const done = req.url.searchParams.get('done');
    const failed = req.url.searchParams.get('failed');
    const outcome = failed !== null ? banner(false, `Not done: ${failed}`)
      : done !== null && OUTCOMES[done] !== undefined ? banner(true, OUTCOMES[done]) : '';
    const rows = timeline.map((r) => html`<tr><th scope="row">${r.seq}</th>${timeCell(r.ts)}<td>${r.kind}</td><td class="wrap">${r.actor}</td>
  ${auditWhatCell(r.kind, r.actor, r.dataText)}</tr>`);
    const timelineTable = table('Timeline of this page', ['Seq', 'Time (UTC)', 'Kind', 'Actor', 'What happened'], rows, 'No audit rows name this page yet.');
    if (isDamagedPage(stored)) {
      return { status: 200, title: `Page ${stored.id}`, section: '/ui/pages', body: html`${banner(false, `This page is stored damaged (${stored.reason}); it was set aside and acts no more.`)}
  <dl class="facts">
  <dt>State</dt><dd><span class="chip">${stored.state}</span></dd>
  <dt>Agent</dt><dd>${stored.agentId}</dd>
  <dt>Incident key</dt><dd class="mono">${stored.incidentKey}</dd>
  <dt>Policy</dt><dd>${stored.policy}</dd>
  </dl>
  <h2>Timeline</h2>
  ${timelineTable}` };
    }
    const p: PageRecord = stored;
    const next = p.state === 'triggered' ? p.nextEscalationAtMs : p.state === 'acknowledged' ? p.ackTimeoutAtMs : null;
    return {
      status: 200, title: `Page ${p.id}`, section: '/ui/pages',
      body: html`${outcome}
  <p class="lead">${p.title}</p>
  ${actions(p, req.csrf)}
  <dl class="facts">
  <dt>State</dt><dd>${stateChip(p)}</dd>
  <dt>Severity</dt><dd>${p.severity}</dd>
  <dt>Agent</dt><dd>${p.agentId}</dd>
  <dt>Incident key</dt><dd class="mono">${p.incidentKey}</dd>
  <dt>Policy</dt><dd>${p.policy.id} (step ${p.step}, loop ${p.loop})</dd>
  <dt>Opened</dt><dd><time datetime="${isoTs(p.openedAtMs)}">${isoTs(p.openedAtMs)}</time></dd>
  <dt>Acknowledged</dt><dd>${p.acknowledgedAtMs === null ? '—' : `${isoTs(p.acknowledgedAtMs)} by ${p.acknowledgedBy ?? '?'}`}</dd>
  <dt>Resolved</dt><dd>${p.resolvedAtMs === null ? '—' : `${isoTs(p.resolvedAtMs)} by ${p.resolvedBy ?? '?'}`}</dd>
  <dt>${p.state === 'acknowledged' ? 'Back to triggered' : 'Next escalation'}</dt><dd>${next === null ? '—' : isoTs(next)}</dd>
  <dt>Events</dt><dd>${p.eventIds.map((e, i) => html`${i > 0 ? ', ' : ''}<a class="mono" href="/ui/events/${encodeURIComponent(e)}">${e.slice(0, 8)}</a>`)}</dd>
  </dl>
  <h2>Timeline</h2>
  ${timelineTable}
  <p class="note"><a href="/pages/${p.id}">This page as JSON</a></p>`,
    };
  },
});
