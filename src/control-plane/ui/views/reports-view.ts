/**
 * /ui/reports (contract §23): what the pager cost and who carried it, from the same read as GET /report
 * (report-route.ts `reportAtTurn`: the same parameters, the same numbers as `svc report --json`), drawn
 * as server-side SVG bars with their numbers beside them (report-charts.ts). The form takes the
 * window, the agent and a grouping; a refused value is named and kept in the form.
 */
import { isoTs } from '../../../core/clock.js';
import { humanDuration } from '../../../report/human-duration.js';
import type { Distribution, Report, ReportGroup } from '../../../report/report.js';
import { DAY_MS, REPORT_BY } from '../../../report/report-query.js';
import { parseReportParams } from '../../report-params.js';
import { reportAtTurn } from '../../routes/report-route.js';
import type { Html } from '../html.js';
import { hrefOf, html } from '../html.js';
import type { BarRow } from './report-charts.js';
import { barChart } from './report-charts.js';
import { banner, filterForm, table } from './parts.js';
import type { View } from './view-types.js';

const PATH = '/ui/reports';
const TITLE = 'Reports';
const PRESET_DAYS = [7, 30, 90];
const BUCKETS = [{ kind: 'business', name: 'business hours (Mon–Fri 08–18)' }, { kind: 'off', name: 'off hours (18–22, weekends 08–22)' },
  { kind: 'sleep', name: 'sleep (22–08)' }];

const when = (iso: string): Html => html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, 'Z')}</time>`;
const hoursText = (h: number): string => `${h} h`;

function summary(r: Report): Html {
  const t = r.totals;
  const esc = t.escalations.timeout + t.escalations.manual;
  return html`<dl class="facts">
<dt>Window</dt><dd>${when(r.since)} to ${when(r.until)}${r.agent === null ? '' : html`, agent ${r.agent}`} (pages opened in it)</dd>
<dt>Pages</dt><dd>${t.pages} (acknowledged ${t.acknowledged}, resolved ${t.resolved})</dd>
<dt>Escalations</dt><dd>${esc} (${t.escalations.timeout} on timeout, ${t.escalations.manual} by hand)</dd>
<dt>Exhausted</dt><dd>${t.exhausted}</dd>
<dt>Flapping</dt><dd>${t.flapping} <span class="note">(resolved by the source within 5 minutes, never acknowledged)</span></dd>
<dt>Interruptions</dt><dd>${t.interruptions.total} (business hours ${t.interruptions.business}, off hours ${t.interruptions.offHours}, sleep ${t.interruptions.sleep})</dd>
</dl>`;
}

function timeChart(id: string, caption: string, d: Distribution): Html {
  const rows: BarRow[] = d.count === 0 ? [] : (['p50', 'p90', 'max'] as const).map((k) => ({ label: k, parts: [{ value: d[k] ?? 0, kind: 'time' }],
    text: humanDuration(d[k]), title: `${caption}, ${k}: ${humanDuration(d[k])}` }));
  return barChart({ id, caption: `${caption} (${d.count} ${d.count === 1 ? 'page' : 'pages'})`, labelHeader: 'Percentile', valueHeader: 'Time', rows,
    empty: 'No page of the window got there.' });
}

function charts(r: Report): Html {
  const interrupted = r.people.map((p): BarRow => {
    const i = p.interruptions;
    return { label: p.person, parts: [{ value: i.business, kind: 'business' }, { value: i.offHours, kind: 'off' }, { value: i.sleep, kind: 'sleep' }],
      text: `${i.total} (${i.business} business · ${i.offHours} off hours · ${i.sleep} sleep)`,
      title: `${p.person}: ${i.total} interruptions, ${i.business} in business hours, ${i.offHours} off hours, ${i.sleep} in sleep (${p.timeZone})` };
  });
  const onCall = r.people.map((p): BarRow => ({ label: p.person, parts: [{ value: p.hoursOnCall, kind: 'hours' }], text: hoursText(p.hoursOnCall),
    title: `${p.person}: ${hoursText(p.hoursOnCall)} on call` }));
  const noisy = r.alerts.map((a): BarRow => {
    const name = a.alertname ?? '(no alert name)';
    return { label: name, parts: [{ value: a.flapping, kind: 'flapping' }, { value: a.pages - a.flapping, kind: 'pages' }],
      text: `${a.pages} (${a.flapping} flapping)`, title: `${name}: ${a.pages} pages, ${a.flapping} of them flapping` };
  });
  return html`<div class="charts">
${timeChart('chart-ack', 'Time to acknowledge', r.totals.timeToAckSeconds)}
${timeChart('chart-resolve', 'Time to resolve', r.totals.timeToResolveSeconds)}
${barChart({ id: 'chart-woken', caption: 'Interruptions per person, in their own time zone', labelHeader: 'Person', valueHeader: 'Interruptions',
    rows: interrupted, legend: BUCKETS, empty: 'Nobody is on call in any schedule.' })}
${barChart({ id: 'chart-hours', caption: 'Hours on call per person', labelHeader: 'Person', valueHeader: 'Hours', rows: onCall,
    empty: 'Nobody is on call in any schedule.' })}
${barChart({ id: 'chart-alerts', caption: 'Noisiest alerts', labelHeader: 'Alert', valueHeader: 'Pages', rows: noisy,
    legend: [{ kind: 'flapping', name: 'flapping' }, { kind: 'pages', name: 'other pages' }], empty: 'No page in this window.' })}
</div>`;
}

function groupsTable(r: Report): Html {
  if (r.by === null) return html``;
  const withHours = r.by === 'person' || r.by === 'schedule';
  const spread = (d: Distribution): string => (d.count === 0 ? '—' : `${humanDuration(d.p50)} / ${humanDuration(d.p90)} / ${humanDuration(d.max)}`);
  const rows = r.groups.map((g: ReportGroup) => html`<tr><th scope="row">${g.key ?? '(no alert name)'}</th>${g.agentId === null ? '' : html`<td>${g.agentId}</td>`}
<td>${g.pages}</td><td>${spread(g.timeToAckSeconds)}</td><td>${spread(g.timeToResolveSeconds)}</td><td>${g.escalations.timeout + g.escalations.manual}</td>
<td>${g.exhausted}</td><td>${g.flapping}</td><td>${g.interruptions.total} (${g.interruptions.sleep} sleep)</td>${withHours ? html`<td>${hoursText(g.hoursOnCall ?? 0)}</td>` : ''}</tr>`);
  const columns = [r.by[0]?.toUpperCase() + r.by.slice(1), ...(r.by === 'alert' ? [] : ['Agent']), 'Pages', 'To acknowledge (p50 / p90 / max)',
    'To resolve (p50 / p90 / max)', 'Escalations', 'Exhausted', 'Flapping', 'Interruptions', ...(withHours ? ['On call'] : [])];
  return html`<h2>By ${r.by}</h2>${r.groupsLeftOut > 0 ? html`<p class="note">The ${r.groups.length} busiest shown; ${r.groupsLeftOut} more left out.</p>` : ''}
${table(`By ${r.by}`, columns, rows, 'No groups.')}`;
}

export const reportsView: View = async (deps, req) => {
  const typed: Record<string, string> = {};
  const search = new URLSearchParams();
  for (const [k, v] of req.url.searchParams) {
    if (v === '') continue;
    search.append(k, v);
    typed[k] = v;
  }
  const nowMs = deps.oncall.clock.now();
  const form = (values: Record<string, string | undefined>): Html => filterForm(PATH, 'Report window', [
    { name: 'since', label: 'Since (ISO-8601 with zone)', value: values.since },
    { name: 'until', label: 'Until (ISO-8601 with zone)', value: values.until },
    { name: 'agent', label: 'Agent', value: values.agent },
    { name: 'by', label: 'Group by', value: values.by, options: [{ value: '', label: 'none' }, ...REPORT_BY] },
  ]);
  const presets = html`<p class="presets">Last ${PRESET_DAYS.map((days, i) => html`${i === 0 ? '' : ' · '}<a href="${hrefOf(PATH,
    { since: isoTs(nowMs - days * DAY_MS), until: isoTs(nowMs), agent: typed.agent, by: typed.by })}">${days} days</a>`)}</p>`;
  const parsed = parseReportParams(search, nowMs);
  if (!parsed.ok) return { status: 400, title: TITLE, section: PATH, body: html`${form(typed)}${banner(false, parsed.error)}${presets}` };
  const report = await reportAtTurn(deps.reports, parsed.value, req.signal);
  if (report === null) return { status: 0 };
  const shown = { ...typed, since: typed.since ?? report.since, until: typed.until ?? report.until };
  return { status: 200, title: TITLE, section: PATH, body: html`${form(shown)}${presets}
${summary(report)}
${report.totals.pages === 0 ? html`<p class="note">No page was opened in this window.</p>` : ''}
${charts(report)}
${groupsTable(report)}
<p class="note">The same numbers as <code>svc report --json</code> with these parameters. How each is counted: docs/reports.md.</p>` };
};
