/**
 * `svc oncall [--schedule S] [--agent A] [--at T] [--tz Z] [--json]` and `svc oncall export S [--from T]
 * [--days N]` (contract §17.6, §24.5, §24.7): who is on call, with the source and until when, read from
 * the control plane's `GET /oncall`; and a schedule's next 28 days (or exactly the window asked for) as
 * iCalendar from `GET /oncall/<S>.ics`, written to standard output as served.
 * (`svc oncall override add|ls|rm` go through the admin socket: page-commands.ts.)
 */
import type { Command } from 'commander';
import type { OncallView } from '../control-plane/routes/oncall-route.js';
import { HttpError, RuntimeError, UsageError } from '../core/errors.js';
import { ID_PATTERN } from '../config/schema.js';
import type { CliContext } from './context.js';
import { getJson, getText } from './control-client.js';
import { displayZone, formatInZone } from './display-zone.js';
import { MAX_EXPORT_DAYS } from '../oncall/icalendar.js';
import { parseInstant } from '../oncall/oncall-input.js';
import { ownTarget } from './own-home.js';
import { printTable } from './style.js';
import type { Column } from './table.js';
import { idColumn } from './table.js';

export interface OncallOptions {
  schedule?: string;
  agent?: string;
  at?: string;
  /** Print times in this zone (default $TZ, else UTC; contract §24.5). */
  tz?: string;
  json: boolean;
  url?: string;
  dir?: string;
}

/** `--schedule`/`--agent` checked before any request: a usage error (exit 2) naming the flag. */
export function idOption(command: string, flag: string, value: string | undefined): void {
  if (value !== undefined && !ID_PATTERN.test(value)) throw new UsageError(`${command}: ${flag} must match ${ID_PATTERN.source}`);
}

/** `2026-11-25T17:00:00.000Z` → `2026-11-25 17:00Z`: short, and unmistakably UTC (the on-call tables' times). */
export function shortTime(iso: string | null): string {
  if (iso === null) return '-';
  return iso.replace('T', ' ').replace(/:00\.000Z$|\.000Z$/, 'Z');
}

/** ISO-8601 UTC without the zero milliseconds (`2026-11-25T17:00:00Z`): the on-call commands' JSON times. */
export const isoSecond = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** The table of `svc oncall`: one row per schedule; AGENT only when more than one agent has schedules; times in `zone`. */
export function printOncallTable(view: OncallView, ctx: CliContext, zone = 'UTC'): void {
  const agents = new Set(view.schedules.map((s) => s.agentId));
  const rows = view.schedules.map((s) => {
    const on = s.onCall[0];
    const cells = [s.id, on?.person ?? 'nobody', on?.source ?? '-', formatInZone(on ? on.until : s.nextHandoff?.at ?? null, zone)];
    return agents.size > 1 ? [s.agentId, ...cells] : cells;
  });
  const headers: Column[] = [idColumn('SCHEDULE'), { header: 'PERSON' }, { header: 'SOURCE', drop: 1 }, { header: 'UNTIL' }];
  printTable(ctx, agents.size > 1 ? [{ header: 'AGENT' }, ...headers] : headers, rows);
}

export async function oncallCommand(opts: OncallOptions, ctx: CliContext): Promise<number> {
  idOption('svc oncall', '--schedule', opts.schedule);
  idOption('svc oncall', '--agent', opts.agent);
  const zone = displayZone('svc oncall', opts.tz, ctx.env);
  const params = new URLSearchParams();
  if (opts.at !== undefined) {
    const at = parseInstant('svc oncall: --at', opts.at);
    if (!at.ok) throw new UsageError(at.error);
    params.set('at', String(at.value));
  }
  if (opts.agent !== undefined) params.set('agent', opts.agent);
  if (opts.schedule !== undefined) params.set('schedule', opts.schedule);
  const view = (await getJson(await ownTarget(ctx, opts), '/oncall', params)) as OncallView;
  if (opts.json) {
    ctx.stdout(`${JSON.stringify(view)}\n`);
    return 0;
  }
  if (view.schedules.length === 0 && (opts.schedule !== undefined || opts.agent !== undefined)) {
    // A typo, not an answer: on stderr naming the command, as svc oncall override ls and calendar-url say it.
    ctx.stderr(`svc oncall: ${opts.schedule === undefined ? `no agent ${opts.agent ?? ''} has schedules` : `no schedule ${opts.schedule}`}`
      + `${opts.schedule !== undefined && opts.agent !== undefined ? ` in agent ${opts.agent}` : ''}\n`);
    return 1;
  }
  if (view.schedules.length === 0) {
    ctx.stdout('no schedules: no agent has an oncall.yaml with schedules\n');
    return 0;
  }
  ctx.stdout(`on call at ${formatInZone(view.at, zone)} (times in ${zone})\n`);
  printOncallTable(view, ctx, zone);
  return 0;
}

export interface ExportOptions {
  agent?: string;
  /** The window's start (ISO-8601 with a zone, or ms; default now) and length in days (1..366; default 28). */
  from?: string;
  days?: string;
  url?: string;
  dir?: string;
}

export async function oncallExportCommand(schedule: string, opts: ExportOptions, ctx: CliContext): Promise<number> {
  idOption('svc oncall export', 'SCHEDULE', schedule);
  idOption('svc oncall export', '--agent', opts.agent);
  const params = new URLSearchParams(opts.agent === undefined ? {} : { agent: opts.agent });
  if (opts.from !== undefined) {
    const from = parseInstant('svc oncall export: --from', opts.from);
    if (!from.ok) throw new UsageError(from.error);
    params.set('from', String(from.value));
  }
  if (opts.days !== undefined) {
    if (!/^\d{1,3}$/.test(opts.days) || Number(opts.days) < 1 || Number(opts.days) > MAX_EXPORT_DAYS) {
      throw new UsageError(`svc oncall export: --days must be a whole number of days, 1 to ${MAX_EXPORT_DAYS}`);
    }
    params.set('days', opts.days);
  }
  const calendar = await getText(await ownTarget(ctx, opts), `/oncall/${schedule}.ics`, params, 'text/calendar').catch((err: unknown) => {
    if (err instanceof HttpError && err.status === 404 && err.error !== null) throw new RuntimeError('ENOTFOUND', `svc oncall export: ${err.error}`);
    throw err;
  });
  ctx.stdout(calendar);
  return 0;
}

/** `svc oncall` and `svc oncall export`; returns the `oncall` command so the override commands join it. */
export function registerOncall(program: Command, ctx: CliContext, setCode: (code: number) => void): Command {
  const oncall = program
    .command('oncall')
    .description('who is on call in each schedule, with the source and until when (GET /oncall)')
    .option('--schedule <id>', 'one schedule')
    .option('--agent <id>', 'one agent')
    .option('--at <time>', 'another instant: ISO-8601 with a zone, or integer ms (default now)')
    .option('--tz <zone>', 'print times in this IANA zone (default $TZ, else UTC)')
    .option('--json', 'print {"at", "schedules": [...]} as JSON', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    // Its options are its own, before a subcommand: `svc oncall override add --schedule S` gives --schedule to `add`.
    .enablePositionalOptions()
    .action(async (opts: OncallOptions) => {
      setCode(await oncallCommand(opts, ctx));
    });
  oncall
    .command('export')
    .description("write a schedule's next 28 days (or --from T --days N, cut to exactly that window) to standard output as iCalendar (RFC 5545)")
    .argument('<schedule>', 'schedule id')
    .option('--agent <id>', 'the agent, when several have the schedule')
    .option('--from <time>', 'the window\'s start: ISO-8601 with a zone, or integer ms (default now)')
    .option('--days <n>', `the window's length in days, 1 to ${MAX_EXPORT_DAYS} (default 28)`)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (schedule: string, opts: ExportOptions) => {
      setCode(await oncallExportCommand(schedule, opts, ctx));
    });
  return oncall;
}
