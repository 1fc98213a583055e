/**
 * /ui/oncall: the next 14 days of coverage of every schedule of every agent with an oncall.yaml —
 * the shifts scheduleShifts computes with the store's overrides, each with its person and whether a
 * rotation, an override or the fallback puts them there; a stretch with nobody on call is a gap,
 * marked as such. Through a console that acts (`svc console` on the daemon's machine, the team console
 * to people of oncall.yaml) each schedule also gets a form to add an override and a Remove button per
 * override: POST forms with the session's CSRF token. The form shows the zone its times are read in
 * (§24.5): the browser's (set by console.js), or UTC without JavaScript.
 */
import { scheduleShifts, usableOverrides } from '../../../oncall/schedule.js';
import type { Override } from '../../../oncall/oncall-config.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { actionForm, outcomeBanner, table, timeCell, typedValues } from './parts.js';
import type { View } from './view-types.js';

/** Where a console takes an override: `op=add` or `op=remove` is a form field. */
export const OVERRIDE_ACTION = '/actions/override';
const OUTCOMES = { added: 'Override added.', removed: 'Override removed.' };
/** How the console asks for a time (§24.5): in the zone the form shows, unless one is typed with it. */
export const TIME_HINT = 'Type times as YYYY-MM-DD HH:MM: they are read in the time zone the form shows (this browser\'s), unless you give ISO-8601 with a zone.';

export const COVERAGE_DAYS = 14;
const DAY_MS = 86_400_000;

export const NOT_CONFIGURED = 'On-call is not configured for any agent: no schedule, no pages, no heartbeats.';

export const oncallView: View = async (deps, req) => {
  const configs = deps.oncall.configs();
  if (configs.length === 0) return { status: 200, title: 'On call', section: '/ui/oncall', body: html`<p>${NOT_CONFIGURED}</p>` };
  const nowMs = deps.oncall.clock.now();
  const sections: Html[] = [];
  for (const { agentId, config } of configs) {
    const overrides = await deps.oncall.overrides(agentId, nowMs);
    for (const schedule of config.schedules) {
      // The forms list every override (one for a person the file lacks can still be removed); coverage counts the usable ones.
      const shifts = scheduleShifts(schedule, usableOverrides(config, overrides), nowMs, nowMs + COVERAGE_DAYS * DAY_MS);
      const gaps = shifts.filter((s) => s.person === null).length;
      const rows = shifts.map((s) => html`<tr${s.person === null ? html` class="gap"` : ''}>${timeCell(s.startMs)}${timeCell(s.endMs)}
<th scope="row">${s.person === null ? html`<strong>Gap: nobody on call</strong>` : s.person}</th><td>${s.person === null ? '—' : s.source}</td></tr>`);
      sections.push(html`<h2>${schedule.id} <span class="note">(agent ${agentId}, ${schedule.timeZone})</span></h2>
<p>${gaps === 0 ? 'Covered for the whole 14 days.' : html`<strong>${gaps} ${gaps === 1 ? 'gap' : 'gaps'}</strong> in the next 14 days.`}
<a href="/oncall/${encodeURIComponent(schedule.id)}.ics?agent=${encodeURIComponent(agentId)}">Calendar (iCalendar)</a></p>
${table(`Coverage of ${schedule.id}`, ['From', 'Until', 'Person', 'Source'], rows, 'No shifts.')}`);
      if (req.csrf !== null) sections.push(overrideForms(req.csrf, req.url, agentId, schedule.id, config.people.map((p) => p.id), overrides));
    }
  }
  const outcome = outcomeBanner(req.url, OUTCOMES);
  return { status: 200, title: 'On call', section: '/ui/oncall', body: html`${outcome}${sections}${req.csrf === null
    ? html`<p class="note">Overrides are added and removed through <code>svc console</code> on the daemon's machine, the team console, or with <code>svc oncall override add</code>.</p>`
    : html`<p class="note" id="time-hint">${TIME_HINT}</p>`}` };
};

/** The schedule's overrides still to come (each with Remove) and the form adding one. */
function overrideForms(csrf: string, url: URL, agentId: string, scheduleId: string, people: readonly string[], all: readonly Override[]): Html {
  const mine = all.filter((o) => o.agentId === agentId && o.scheduleId === scheduleId);
  const rows = mine.map((o) => html`<tr><th scope="row" class="mono">${o.id}</th><td>${o.personId}</td>${timeCell(o.fromMs)}${timeCell(o.toMs)}
<td><form class="inline" method="post" action="${OVERRIDE_ACTION}"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="op" value="remove"><input type="hidden" name="id" value="${o.id}">
<button type="submit" aria-label="Remove override ${o.id}">Remove</button></form></td></tr>`);
  const id = `ov-${agentId}-${scheduleId}`;
  return html`<h3>Overrides of ${scheduleId}</h3>
${table(`Overrides of ${scheduleId}`, ['Override', 'Person', 'From', 'Until', 'Action'], rows, 'No overrides to come.')}
${actionForm(id, OVERRIDE_ACTION, `Add an override to ${scheduleId}`, csrf, { op: 'add', agent: agentId, schedule: scheduleId }, [
    { name: 'person', label: 'Person', options: people },
    { name: 'from', label: 'From', placeholder: '2026-11-26 09:00', describedBy: 'time-hint' },
    { name: 'to', label: 'Until', placeholder: '2026-11-26 18:00', describedBy: 'time-hint' },
    // The zone the times above are read in, shown and changeable; console.js puts the browser's here.
    { name: 'tz', label: 'Time zone', value: 'UTC', describedBy: 'time-hint' },
  ], 'Add override', typedValues(url, id))}`;
}
