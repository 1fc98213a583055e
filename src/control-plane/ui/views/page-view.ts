/**
 * /ui/pages/<id>: one page — its fields as GET /pages/<id> shows them, its events, and its timeline
 * (the page's audit rows in seq order, Store.oncall.pageTimeline). Through `svc console` on the
 * daemon's machine the page's actions are POST forms to the proxy carrying the session's CSRF token.
 */
import { isoTs } from '../../../core/clock.js';
import type { PageRecord } from '../../../oncall/page.js';
import { PAGE_ID_PATTERN } from '../../../oncall/page.js';
import { summaryOfPayload } from '../../../store/event-summary.js';
import { isDamagedPage } from '../../../store/oncall-store.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { csrfField } from './dlq-view.js';
import { messagesOf, pagedText, stateChip, whatIsWrong } from './page-parts.js';
import { auditRowHead, auditWhatCell, banner, factList, outcomeBanner, table, timeText } from './parts.js';
import { recordView } from './record-view.js';
import type { UiDeps, View } from './view-types.js';

/** Where the console takes a page action (the proxy, or the team console); the action is the pressed button. */
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

/** Events named on a page by their titles (an index lookup each); the rest by id. */
const TITLED_EVENTS = 10;

function actions(p: PageRecord, csrf: string | null, actingAs: string | null): Html {
  if (csrf === null) {
    return html`<p class="note">Acknowledge, resolve and escalate are offered through <code>svc console</code> on the daemon's machine, the team console
to people of oncall.yaml, or with <code>svc ack ${p.id}</code>.</p>`;
  }
  const offered = PAGE_ACTIONS.filter((a) => a.when(p));
  if (offered.length === 0) return html``;
  // One form, one button per action: the pressed button's value is the action.
  return html`<form class="actions" method="post" action="${PAGE_ACTION}" aria-label="Act on this page">${csrfField(csrf)}
<input type="hidden" name="form" value="page"><input type="hidden" name="id" value="${p.id}">
${offered.map((a) => html`<button type="submit" name="action" value="${a.action}">${a.label}</button>`)}
${actingAs === null ? html`<span class="note">Choose who is acting above first.</span>` : html`<span class="note">as ${actingAs}</span>`}</form>`;
}

async function eventLinks(deps: UiDeps, ids: readonly string[]): Promise<Html[]> {
  const out: Html[] = [];
  for (const [i, id] of ids.entries()) {
    const event = i < TITLED_EVENTS ? await deps.store.getEvent(id) : null;
    let title: string | null;
    try { title = event?.payloadText ? summaryOfPayload(JSON.parse(event.payloadText)).title : null; } catch { title = null; }
    out.push(html`<li><a href="/ui/events/${encodeURIComponent(id)}" class="wrap">${title ?? `event ${id.slice(0, 8)}`}</a>${event === null ? '' : html` · ${timeText(event.ts)}`}</li>`);
  }
  return out;
}

export const pageView: View = recordView({ prefix: '/ui/pages/', pattern: PAGE_ID_PATTERN, noun: 'page', section: '/ui/pages',
  async render(id, deps, req, notFound) {
    const stored = await deps.store.oncall.getPage(id);
    if (stored === null) return notFound;
    const timeline = await deps.store.oncall.pageTimeline(id);
    const rows = timeline.map((r) => html`<tr>${auditRowHead(r.seq, r.ts, r.kind, r.actor)}${auditWhatCell(r.kind, r.actor, r.dataText)}</tr>`);
    const timelineTable = table('Timeline of this page', ['Seq', 'Time', 'Kind', 'Actor', 'What happened'], rows, 'No audit rows name this page yet.', { cards: true });
    if (isDamagedPage(stored)) {
      return { status: 200, title: `Page ${stored.id}`, section: '/ui/pages', body: html`${banner(false, `This page is stored damaged (${stored.reason}); it was set aside and acts no more.`)}
  <dl class="facts">
  <dt>State</dt><dd>${stateChip({ state: stored.state, exhausted: false })}</dd>
  <dt>Agent</dt><dd>${stored.agentId}</dd>
  <dt>Incident key</dt><dd class="mono">${stored.incidentKey}</dd>
  <dt>Policy</dt><dd>${stored.policy}</dd>
  </dl>
  <h2>Timeline</h2>
  ${timelineTable}` };
    }
    const p: PageRecord = stored;
    const message = (await messagesOf(deps, [p])).get(p.id) ?? null;
    const next = p.state === 'triggered' ? p.nextEscalationAtMs : p.state === 'acknowledged' ? p.ackTimeoutAtMs : null;
    return {
      status: 200, title: p.title, section: '/ui/pages',
      body: html`${outcomeBanner(req.url, OUTCOMES)}
  <p class="lead">${stateChip(p)} <span class="sev">${p.severity}</span> <span class="wrap">${pagedText(p, message)}</span></p>
  ${message === null ? factList(p.facts ?? []) : whatIsWrong(message)}
  ${actions(p, req.csrf, req.actingAs)}
  <dl class="facts">
  <dt>Page</dt><dd class="mono">${p.id}</dd>
  <dt>Agent</dt><dd>${p.agentId}</dd>
  <dt>Incident key</dt><dd class="mono">${p.incidentKey}</dd>
  <dt>Policy</dt><dd>${p.policy.id} (step ${p.step} of ${p.policy.steps.length}, loop ${p.loop})</dd>
  <dt>Opened</dt><dd>${timeText(isoTs(p.openedAtMs))}</dd>
  <dt>Acknowledged</dt><dd>${p.acknowledgedAtMs === null ? '—' : html`${timeText(p.acknowledgedAtMs)} by ${p.acknowledgedBy ?? '?'}`}</dd>
  <dt>Resolved</dt><dd>${p.resolvedAtMs === null ? '—' : html`${timeText(p.resolvedAtMs)} by ${p.resolvedBy ?? '?'}`}</dd>
  <dt>${p.state === 'acknowledged' ? 'Back to triggered' : 'Next escalation'}</dt><dd>${timeText(next)}</dd>
  </dl>
  <h2>Events</h2>
  <ul class="events">${await eventLinks(deps, p.eventIds)}</ul>
  <h2>Timeline</h2>
  ${timelineTable}
  ${deps.jsonLinks ? html`<p class="note"><a href="/pages/${p.id}">This page as JSON</a></p>` : ''}`,
    };
  },
});
