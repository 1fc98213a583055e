/**
 * /ui/oncall: the next 14 days of coverage of every schedule of every agent with an oncall.yaml —
 * the shifts scheduleShifts computes with the store's overrides, each with its person and whether a
 * rotation, an override or the fallback puts them there; a stretch with nobody on call is a gap,
 * marked as such.
 */
import { isoTs } from '../../../core/clock.js';
import { scheduleShifts } from '../../../oncall/schedule.js';
import type { Html } from '../html.js';
import { html } from '../html.js';
import { table, timeCell } from './parts.js';
import type { View } from './view-types.js';

export const COVERAGE_DAYS = 14;
const DAY_MS = 86_400_000;

export const NOT_CONFIGURED = 'On-call is not configured for any agent: no schedule, no pages, no heartbeats.';

export const oncallView: View = async (deps) => {
  const configs = deps.oncall.configs();
  if (configs.length === 0) return { status: 200, title: 'On call', section: '/ui/oncall', body: html`<p>${NOT_CONFIGURED}</p>` };
  const nowMs = deps.oncall.clock.now();
  const sections: Html[] = [];
  for (const { agentId, config } of configs) {
    const overrides = await deps.oncall.overrides(agentId, nowMs);
    for (const schedule of config.schedules) {
      const shifts = scheduleShifts(schedule, overrides, nowMs, nowMs + COVERAGE_DAYS * DAY_MS);
      const gaps = shifts.filter((s) => s.person === null).length;
      const rows = shifts.map((s) => html`<tr${s.person === null ? html` class="gap"` : ''}>${timeCell(isoTs(s.startMs))}${timeCell(isoTs(s.endMs))}
<th scope="row">${s.person === null ? html`<strong>Gap: nobody on call</strong>` : s.person}</th><td>${s.person === null ? '—' : s.source}</td></tr>`);
      sections.push(html`<h2>${schedule.id} <span class="note">(agent ${agentId}, ${schedule.timeZone})</span></h2>
<p>${gaps === 0 ? 'Covered for the whole 14 days.' : html`<strong>${gaps} ${gaps === 1 ? 'gap' : 'gaps'}</strong> in the next 14 days.`}
<a href="/oncall/${encodeURIComponent(schedule.id)}.ics?agent=${encodeURIComponent(agentId)}">Calendar (iCalendar)</a></p>
${table(`Coverage of ${schedule.id}`, ['From (UTC)', 'Until (UTC)', 'Person', 'Source'], rows, 'No shifts.')}`);
    }
  }
  return { status: 200, title: 'On call', section: '/ui/oncall', body: html`${sections}` };
};
