/**
 * The parameters of a report (contract §23) as GET /report and the console's /ui/reports take them:
 * `since` and `until` (ISO-8601 with a zone, or integer ms; `until` defaults to now, `since` to 30 days
 * before `until`), `agent`, `by`. Each at most once, none unknown; an error names the parameter.
 */
import { DAY_MS, DEFAULT_REPORT_DAYS, isReportBy, REPORT_BY, windowProblem } from '../report/report-query.js';
import type { ReportQuery } from '../report/report-query.js';
import type { QueryResult } from './query.js';
import { paramLabel, parseFilterParam, parseTimeParam, singleParam } from './query.js';

export const REPORT_PARAMS = ['since', 'until', 'agent', 'by'] as const;

export function parseReportParams(params: URLSearchParams, nowMs: number): QueryResult<ReportQuery> {
  const values = new Map<string, string>();
  for (const name of new Set(params.keys())) {
    if (!(REPORT_PARAMS as readonly string[]).includes(name)) {
      return { ok: false, error: `invalid ${paramLabel(name)}: unknown parameter (expected ${REPORT_PARAMS.join(', ')})` };
    }
    const one = singleParam(params, name);
    if (!one.ok) return one;
    if (one.value !== null) values.set(name, one.value);
  }
  const time = (name: 'since' | 'until', fallback: number): QueryResult<number> => {
    const raw = values.get(name);
    return raw === undefined ? { ok: true, value: fallback } : parseTimeParam(name, raw);
  };
  const until = time('until', nowMs);
  if (!until.ok) return until;
  const since = time('since', until.value - DEFAULT_REPORT_DAYS * DAY_MS);
  if (!since.ok) return since;
  const problem = windowProblem(since.value, until.value);
  if (problem !== null) return { ok: false, error: `invalid ${problem.param}: ${problem.problem}` };
  let agent: string | null = null;
  const rawAgent = values.get('agent');
  if (rawAgent !== undefined) {
    const parsed = parseFilterParam('agent', rawAgent);
    if (!parsed.ok) return parsed;
    agent = parsed.value;
  }
  const by = values.get('by') ?? null;
  if (by !== null && !isReportBy(by)) return { ok: false, error: `invalid by: expected one of ${REPORT_BY.join(', ')}` };
  return { ok: true, value: { sinceMs: since.value, untilMs: until.value, agent, by } };
}
