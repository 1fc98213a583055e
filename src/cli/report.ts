/**
 * `svc report [--since 30d] [--until T] [--agent A] [--by person|schedule|policy|alert] [--json|--csv]`
 * (contract §23): the control plane's GET /report, as tables a person reads (report-table.ts), the JSON
 * it answered, or RFC 4180 CSV (report-csv.ts). Bad input is a usage error naming the flag (exit 2)
 * before any request is made.
 */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Report } from '../report/report.js';
import { DAY_MS, isReportBy, REPORT_BY, windowProblem } from '../report/report-query.js';
import type { CliContext } from './context.js';
import { getJson } from './control-client.js';
import { ownTarget } from './own-home.js';
import { reportCsv } from './report-csv.js';
import { reportTables } from './report-table.js';
import { printTable } from './style.js';
import { timeArg } from './time-arg.js';

interface ReportOptions { since: string; until?: string; agent?: string; by?: string; json: boolean; csv: boolean; url?: string; dir?: string }

/** A time argument as ms since the epoch (what timeArg accepted: integer ms or ISO-8601). */
const msOf = (value: string): number => (/^\d+$/.test(value) ? Number(value) : Date.parse(value));

/** The query the flags ask for; a UsageError naming the flag when they cannot be used. */
export function reportParams(opts: Omit<ReportOptions, 'url' | 'dir'>, ctx: Pick<CliContext, 'clock'>): URLSearchParams {
  if (opts.json && opts.csv) throw new UsageError('svc report: --json and --csv: choose one');
  if (opts.by !== undefined && !isReportBy(opts.by)) throw new UsageError(`svc report: --by must be one of ${REPORT_BY.join(', ')}`);
  if (opts.agent !== undefined && opts.agent.trim() === '') throw new UsageError('svc report: --agent must name an agent');
  const since = timeArg('svc report: --since', opts.since, ctx.clock);
  const until = opts.until === undefined ? String(ctx.clock.now()) : timeArg('svc report: --until', opts.until, ctx.clock);
  const problem = windowProblem(msOf(since), msOf(until));
  if (problem !== null) {
    throw new UsageError(problem.param === 'until' ? 'svc report: --until must be after --since'
      : `svc report: --since: ${problem.problem} (${Math.round((msOf(until) - msOf(since)) / DAY_MS)} asked)`);
  }
  const params = new URLSearchParams({ since, until });
  if (opts.agent !== undefined) params.set('agent', opts.agent);
  if (opts.by !== undefined) params.set('by', opts.by);
  return params;
}

export function registerReport(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  program
    .command('report')
    .description('what the pager cost and who carried it (GET /report)')
    .option('--since <time>', 'pages opened at or after this (ISO-8601, integer ms, or a duration back from now)', '30d')
    .option('--until <time>', 'pages opened before this (default now)')
    .option('--agent <id>', 'only this agent')
    .option('--by <what>', `a row per ${REPORT_BY.join(' | ')}`)
    .option('--json', 'print the answer as JSON', false)
    .option('--csv', 'print one table as CSV (RFC 4180): the whole window and a row per --by group', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (opts: ReportOptions) => {
      const params = reportParams(opts, ctx);
      const report = await getJson(await ownTarget(ctx, opts), '/report', params) as Report;
      if (opts.json) ctx.stdout(`${JSON.stringify(report)}\n`);
      else if (opts.csv) ctx.stdout(reportCsv(report));
      else {
        reportTables(report).forEach((t, i) => {
          ctx.stdout(`${i === 0 ? '' : '\n'}${t.title}\n`);
          if (t.rows.length === 0) ctx.stdout('(none)\n');
          else printTable(ctx, t.columns, t.rows);
        });
      }
      setCode(0);
    });
}
