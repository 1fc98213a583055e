/**
 * What a report is asked (contract §23.1): the window, the agent, the grouping. The bounds are here
 * once, for GET /report, the console's form and `svc report` alike.
 */
export const REPORT_BY = ['person', 'schedule', 'policy', 'alert'] as const;
export type ReportBy = (typeof REPORT_BY)[number];

/** `--since` when not given: the last 30 days. */
export const DEFAULT_REPORT_DAYS = 30;
export const DAY_MS = 86_400_000;
/** The longest window a report covers: a year and a day. */
export const MAX_REPORT_DAYS = 366;

export interface ReportQuery {
  sinceMs: number;
  untilMs: number;
  agent: string | null;
  by: ReportBy | null;
}

export function isReportBy(value: string): value is ReportBy {
  return (REPORT_BY as readonly string[]).includes(value);
}

/** What is wrong with a window, naming the parameter (`since`, `until`); null when it is fine. */
export function windowProblem(sinceMs: number, untilMs: number): { param: 'since' | 'until'; problem: string } | null {
  if (untilMs <= sinceMs) return { param: 'until', problem: 'must be after since' };
  if (untilMs - sinceMs > MAX_REPORT_DAYS * DAY_MS) return { param: 'since', problem: `the window is at most ${MAX_REPORT_DAYS} days` };
  return null;
}
