/**
 * `svc report --csv` (contract §23): one table as RFC 4180 text — CRLF line ends, a field with a comma,
 * a double quote or a line break in double quotes, a double quote doubled — a row for the whole
 * window (`by` = `total`) and one per group of `--by`. A text field (a name, an alert name) that a
 * spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) gets a
 * leading `'` (OWASP's advice on CSV injection): alert names come from outside.
 */
import type { Distribution, Report, ReportMetrics } from '../report/report.js';

export const CSV_COLUMNS = ['by', 'key', 'agent', 'pages', 'acknowledged', 'resolved', 'ack_p50_s', 'ack_p90_s', 'ack_max_s', 'resolve_p50_s',
  'resolve_p90_s', 'resolve_max_s', 'escalations_timeout', 'escalations_manual', 'exhausted', 'flapping', 'interruptions_business',
  'interruptions_off_hours', 'interruptions_sleep', 'interruptions_total', 'hours_on_call'] as const;

/** One field as RFC 4180 writes it. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A text field from outside: defused for spreadsheets, then quoted as needed. */
export function csvText(value: string): string {
  return csvField(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

const num = (n: number | null): string => (n === null ? '' : String(n));
const dist = (d: Distribution): string[] => [num(d.p50), num(d.p90), num(d.max)];

function metricFields(m: ReportMetrics): string[] {
  return [m.pages, m.acknowledged, m.resolved].map(String).concat(dist(m.timeToAckSeconds), dist(m.timeToResolveSeconds),
    [m.escalations.timeout, m.escalations.manual, m.exhausted, m.flapping, m.interruptions.business, m.interruptions.offHours,
      m.interruptions.sleep, m.interruptions.total].map(String));
}

export function reportCsv(report: Report): string {
  const rows = [
    CSV_COLUMNS.join(','),
    ['total', '', csvText(report.agent ?? ''), ...metricFields(report.totals), ''].join(','),
    ...report.groups.map((g) => [report.by ?? '', csvText(g.key ?? ''), csvText(g.agentId ?? ''), ...metricFields(g), num(g.hoursOnCall)].join(',')),
  ];
  return `${rows.join('\r\n')}\r\n`;
}
