/**
 * /ui/silences: the silences GET /silences lists — live ones, and those that ended in the last 24
 * hours — newest first. Through `svc console` on the daemon's machine a form adds one and each live
 * silence gets an Expire button: POST forms to the proxy with the session's CSRF token.
 */
import { formatDuration } from '../../../core/duration.js';
import { MAX_SILENCE_MS, formatSilenceMatcher } from '../../../oncall/silence-match.js';
import { takeTurn } from '../../read-gate.js';
import { RECENTLY_MS } from '../../routes/pages-route.js';
import { html } from '../html.js';
import { actionForm, outcomeBanner, table, timeCell, typedValues } from './parts.js';
import type { View } from './view-types.js';

/** Where a console takes a silence: `op=add` or `op=expire` is a form field. */
export const SILENCE_ACTION = '/actions/silence';
const OUTCOMES = { added: 'Silence added: matching alerts are stored as suppressed and page nobody.', expired: 'Silence expired.' };

export const silencesView: View = async (deps, req) => {
  const leave = await takeTurn(deps.gate, req.signal);
  if (leave === null) return { status: 0 };
  let silences;
  try {
    silences = await deps.store.oncall.listSilences(deps.oncall.clock.now() - RECENTLY_MS);
  } finally {
    leave();
  }
  const nowMs = deps.oncall.clock.now();
  const columns = ['Silence', 'Matchers', 'Agent', 'From', 'Until', 'State', 'By', 'Reason'];
  if (req.csrf !== null) columns.push('Action');
  const rows = [...silences].reverse().map((s) => {
    const live = s.startsAtMs <= nowMs && nowMs < s.endsAtMs;
    return html`<tr><th scope="row" class="mono">${s.id}</th><td class="wrap mono">${s.matchers.map(formatSilenceMatcher).join(' ')}</td>
<td>${s.agentId ?? 'every agent'}</td>${timeCell(s.startsAtMs)}${timeCell(s.endsAtMs)}
<td>${live ? html`<span class="chip">live</span>` : s.expiredAtMs !== null ? 'expired by hand' : 'ended'}</td><td class="wrap">${s.createdBy}</td><td class="wrap">${s.reason}</td>
${req.csrf === null ? '' : html`<td>${live ? html`<form class="inline" method="post" action="${SILENCE_ACTION}"><input type="hidden" name="csrf" value="${req.csrf}">
<input type="hidden" name="op" value="expire"><input type="hidden" name="id" value="${s.id}">
<button type="submit" aria-label="Expire silence ${s.id}">Expire</button></form>` : '—'}</td>`}</tr>`;
  });
  const add = req.csrf === null
    ? html`<p class="note">Silences are added and expired through <code>svc console</code> on the daemon's machine, the team console, or with <code>svc silence add</code>.</p>`
    : html`<h2>Add a silence</h2>
${actionForm('si', SILENCE_ACTION, 'Add a silence', req.csrf, { op: 'add' }, [
    { name: 'matchers', label: 'Matchers (one a line: KEY=VALUE or KEY=~REGEX; all must match)', multiline: true, placeholder: 'alertname=DiskFull' },
    { name: 'duration', label: `Duration (at most ${formatDuration(MAX_SILENCE_MS)})`, placeholder: '2h' },
    { name: 'reason', label: 'Reason', placeholder: 'planned maintenance' },
    { name: 'agent', label: 'Agent', options: [{ value: '', label: 'every agent' }, ...deps.oncall.configs().map((c) => c.agentId)] },
  ], 'Add silence', typedValues(req.url, 'si'))}`;
  return {
    status: 200, title: 'Silences', section: '/ui/silences',
    body: html`${outcomeBanner(req.url, OUTCOMES)}
<p>Live silences, and those that ended in the last 24 hours.${deps.jsonLinks ? html` <a href="/silences">As JSON</a>` : ''}</p>
${table('Silences', columns, rows, 'No silences are live or ended in the last 24 hours.')}
${add}`,
  };
};
