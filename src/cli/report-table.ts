/**
 * `svc report` for people (contract §23): the window and its numbers in short lines, then a table —
 * the groups of `--by`, else who carried the pager and the noisiest alerts. Tables give way on a
 * narrow terminal as every table of the CLI does (table.ts): the least needed columns go first, names
 * are never cut below their header.
 */
import { humanDuration } from '../report/human-duration.js';
import type { Distribution, Interruptions, Report } from '../report/report.js';
import type { Column } from './table.js';
import { formatTable } from './table.js';

const when = (iso: string): string => iso.replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, 'Z');
const hours = (h: number | null): string => (h === null ? '-' : `${h}h`);
const woken = (i: Interruptions): string => `${i.total} (business ${i.business}, off hours ${i.offHours}, sleep ${i.sleep})`;
const spread = (d: Distribution): string => (d.count === 0 ? 'none'
  : `p50 ${humanDuration(d.p50)}, p90 ${humanDuration(d.p90)}, max ${humanDuration(d.max)}`);

export interface ReportTable {
  title: string;
  columns: Column[];
  rows: string[][];
}

/** The window and the totals, one fact a row; the numbers continue on the next line on a narrow terminal. */
export function reportSummary(r: Report): ReportTable {
  const t = r.totals;
  return { title: 'what the pager cost', columns: [{ header: 'WHAT', whole: true }, { header: 'NUMBERS', wrap: true }], rows: [
    ['window', `${when(r.since)} to ${when(r.until)}`],
    ...(r.agent === null ? [] : [['agent', r.agent]]),
    ['pages', `${t.pages} (acknowledged ${t.acknowledged}, resolved ${t.resolved})`],
    ['to acknowledge', spread(t.timeToAckSeconds)],
    ['to resolve', spread(t.timeToResolveSeconds)],
    ['escalations', `${t.escalations.timeout + t.escalations.manual} (timeout ${t.escalations.timeout}, manual ${t.escalations.manual})`],
    ['exhausted', String(t.exhausted)],
    ['flapping', String(t.flapping)],
    ['interruptions', woken(t.interruptions)],
  ] };
}

const numbers = (...cols: Array<[string, number?]>): Column[] => cols.map(([header, drop]) => (drop === undefined ? { header } : { header, drop }));

/** The summary, then the groups of `--by`; without it, the people and the noisiest alerts. */
export function reportTables(r: Report): ReportTable[] {
  // The agent only where several are in the report: with one, it is the same word on every line.
  const several = new Set([...r.groups.map((g) => g.agentId), ...r.people.map((p) => p.agentId)].filter((a) => a !== null)).size > 1;
  const agentColumn: Column[] = several ? [{ header: 'AGENT', drop: 7 }] : [];
  const agentCell = (agentId: string | null): string[] => (several ? [agentId ?? ''] : []);
  if (r.by !== null) {
    const withHours = r.by === 'person' || r.by === 'schedule';
    return [reportSummary(r), {
      title: `by ${r.by}${r.groupsLeftOut > 0 ? ` (${r.groupsLeftOut} more not shown)` : ''}`,
      columns: [{ header: r.by.toUpperCase(), whole: r.by !== 'alert', give: 24 }, ...agentColumn,
        ...numbers(['PAGES'], ['ACK P50', 4], ['ACK P90', 0], ['ACK MAX', 8], ['RES P50', 5], ['RES P90', 6], ['RES MAX', 9], ['ESC', 3], ['EXH', 10],
          ['FLAP', 2], ['WOKEN'], ['SLEEP', 1]), ...(withHours ? numbers(['ON CALL']) : [])],
      rows: r.groups.map((g) => [g.key ?? '(no alert name)', ...agentCell(g.agentId), String(g.pages), humanDuration(g.timeToAckSeconds.p50),
        humanDuration(g.timeToAckSeconds.p90), humanDuration(g.timeToAckSeconds.max), humanDuration(g.timeToResolveSeconds.p50),
        humanDuration(g.timeToResolveSeconds.p90), humanDuration(g.timeToResolveSeconds.max), String(g.escalations.timeout + g.escalations.manual),
        String(g.exhausted), String(g.flapping), String(g.interruptions.total), String(g.interruptions.sleep), ...(withHours ? [hours(g.hoursOnCall)] : [])]),
    }];
  }
  return [
    reportSummary(r),
    { title: 'who carried the pager', columns: [{ header: 'PERSON', whole: true }, ...agentColumn, { header: 'ZONE', drop: 6 },
      ...numbers(['BUSINESS', 3], ['OFF HOURS', 4], ['SLEEP'], ['WOKEN'], ['ON CALL'])],
    rows: r.people.map((p) => [p.person, ...agentCell(p.agentId), p.timeZone, String(p.interruptions.business), String(p.interruptions.offHours),
      String(p.interruptions.sleep), String(p.interruptions.total), hours(p.hoursOnCall)]) },
    { title: 'noisiest alerts', columns: [{ header: 'ALERT', give: 16, min: 10 }, { header: 'PAGES' }, { header: 'FLAPPING' }],
      rows: r.alerts.map((a) => [a.alertname ?? '(no alert name)', String(a.pages), String(a.flapping)]) },
  ];
}

/** The whole text at a terminal's width (null: piped, nothing cut). */
export function reportText(r: Report, width: number | null): string {
  return reportTables(r).map((t) => `${t.title}\n${t.rows.length === 0 ? '(none)\n' : formatTable(t.columns, t.rows, { width })}`).join('\n');
}
