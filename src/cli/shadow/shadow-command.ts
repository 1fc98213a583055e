/**
 * `svc shadow report [--since T] [--until T] [--agent A] [--compare FILE|DIR] [--json]` (contract
 * §22.3): the control plane's `GET /shadow` — per alert, who a shadow run would have woken, when and
 * through what — as a table that fits 80 columns, or the JSON as served. With `--compare`, held
 * against the old pager's saved alert log (old-pager-log.ts, compare.ts): the alerts only one of them
 * paged, those where they told different people, and how much later svc's first notice came.
 * Exit 0; 1 when the daemon cannot be asked; 2 for bad arguments or an export it cannot read
 * (the file and the JSON path named).
 */
import type { Command } from 'commander';
import type { ShadowAlert } from '../../control-plane/shadow-report.js';
import type { CliContext } from '../context.js';
import { getJson } from '../control-client.js';
import { ownTarget } from '../own-home.js';
import { printTable } from '../style.js';
import { timeArg } from '../time-arg.js';
import type { ComparedAlert, Comparison, KnownPerson } from './compare.js';
import { compareShadow } from './compare.js';
import { readOldPagerLog } from './old-pager-log.js';

/** The /shadow answer (control-plane/routes/shadow-route.ts). */
export interface ShadowAnswer {
  since: string | null;
  until: string | null;
  shadowAgents: string[];
  truncated: boolean;
  items: ShadowAlert[];
  people: Array<KnownPerson & { agentId: string }>;
}

interface ReportOptions { since?: string; until?: string; agent?: string; compare?: string; json: boolean; url?: string; dir?: string }

const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');

/** Seconds as a person reads a delay: `+0s`, `+45s`, `+5m`, `-2m30s`, `+1h05m`. */
export function signedDelay(seconds: number): string {
  const sign = seconds < 0 ? '-' : '+';
  const s = Math.round(Math.abs(seconds));
  if (s < 60) return `${sign}${s}s`;
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m${s % 60 === 0 ? '' : `${String(s % 60).padStart(2, '0')}s`}`;
  return `${sign}${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Who would have been woken, each once, at their first notice after the alert opened and on what. */
function wokenCell(a: ShadowAlert): string {
  const seen = new Set<string>();
  const opened = Date.parse(a.openedAt);
  return a.notices.filter((n) => !seen.has(n.person) && seen.add(n.person) !== undefined)
    .map((n) => `${n.person === '-' ? `${n.channel}'s recipient` : n.person} ${signedDelay((Date.parse(n.at) - opened) / 1000)} ${n.channel}`)
    .join('; ');
}

function peopleCell(a: ComparedAlert, oldPager: string): string {
  if (a.paged === 'svc-only') return a.svc?.people.join(', ') ?? '';
  if (a.paged === 'old-only') return a.old?.people.join(', ') ?? '';
  if (a.samePeople === true) return a.svc?.people.join(', ') ?? '';
  return `svc ${a.svc?.people.join(', ') ?? ''}; ${oldPager} ${a.old?.people.join(', ') ?? ''}`;
}

export function printShadowReport(ctx: CliContext, answer: ShadowAnswer): void {
  if (answer.items.length === 0) {
    ctx.stdout(answer.shadowAgents.length === 0
      ? 'no shadow run recorded here, and no agent is in one (shadow: true in agent.yaml, or svc up --shadow)\n'
      : `no alert yet: ${answer.shadowAgents.join(', ')} ${answer.shadowAgents.length === 1 ? 'is' : 'are'} in a shadow run and would have paged nobody\n`);
    return;
  }
  // At 80 columns: the time whole, the title cut to 24, who would have been woken wrapped under itself.
  printTable(ctx, [{ header: 'OPENED', drop: 1 }, 'SEV', { header: 'ALERT', min: 12, give: 24 }, { header: 'WOULD HAVE WOKEN', wrap: true, give: 24 }],
    answer.items.map((a) => [when(a.openedAt), a.severity, a.title || a.incidentKey, wokenCell(a)]));
}

export function printShadowComparison(ctx: CliContext, c: Comparison): void {
  if (c.alerts.length === 0) {
    ctx.stdout(`no alert in the window: neither svc nor ${c.oldPager} paged anyone\n`);
    return;
  }
  const paged = (a: ComparedAlert): string => (a.paged === 'both' ? 'both' : a.paged === 'svc-only' ? 'svc only' : `${c.oldPager} only`);
  const opened = (a: ComparedAlert): string => when(a.old?.createdAt ?? a.svc?.openedAt ?? '');
  printTable(ctx, [{ header: 'OPENED', drop: 1 }, { header: 'ALERT', min: 12, give: 16 }, 'PAGED', 'DELAY', { header: 'WHO WAS TOLD', wrap: true, give: 16 }],
    c.alerts.map((a) => [opened(a), a.title, paged(a), a.delaySeconds === null ? '-' : signedDelay(a.delaySeconds), peopleCell(a, c.oldPager)]));
  const s = c.summary;
  // Lines that fit 80 columns whatever the counts and the vendor's name.
  ctx.stdout(`\n${s.alerts} alert(s): ${s.both} paged by both, ${s.svcOnly} by svc only, ${s.oldOnly} by ${c.oldPager} only\n`
    + `of those paged by both, ${s.differentPeople} told different people\n`);
  if (s.delay !== null) {
    ctx.stdout(`svc's first notice minus ${c.oldPager}'s: median ${signedDelay(s.delay.medianSeconds)}, at most ${signedDelay(s.delay.maxSeconds)}\n`
      + `(svc later on ${s.delay.svcLater}, earlier on ${s.delay.svcEarlier})\n`);
  }
}

export function registerShadow(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  const shadow = program.command('shadow').description('a shadow run beside the old pager (docs/shadow.md)');
  shadow
    .command('report')
    .description('per alert, who the shadow run would have woken and when (GET /shadow); with --compare, held against the old pager\'s alert log')
    .option('--since <time>', 'from this time: ISO-8601, integer ms, or back from now (15m, 2h, 7d)')
    .option('--until <time>', 'up to this time (same forms)')
    .option('--agent <id>', 'only this agent')
    .option('--compare <path>', 'the old pager\'s saved alert log: a directory or file of Opsgenie v2/alerts and their logs, or PagerDuty log_entries')
    .option('--json', 'print the answer (or the comparison) as JSON', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (opts: ReportOptions) => {
      const params = new URLSearchParams();
      if (opts.since !== undefined) params.set('since', timeArg('svc shadow report: --since', opts.since, ctx.clock));
      if (opts.until !== undefined) params.set('until', timeArg('svc shadow report: --until', opts.until, ctx.clock));
      if (opts.agent !== undefined) params.set('agent', opts.agent);
      // The export is read before the daemon is asked: a file it cannot read is a usage error, whatever the daemon says.
      const old = opts.compare === undefined ? null : readOldPagerLog(opts.compare);
      const answer = await getJson(await ownTarget(ctx, opts), '/shadow', params) as ShadowAnswer;
      if (answer.truncated) ctx.stderr('svc shadow report: the window holds more shadowed messages than one answer; the oldest are shown (narrow it with --since/--until)\n');
      if (old === null) {
        if (opts.json) ctx.stdout(`${JSON.stringify(answer)}\n`);
        else printShadowReport(ctx, answer);
        setCode(0);
        return;
      }
      const window = { sinceMs: answer.since === null ? null : Date.parse(answer.since), untilMs: answer.until === null ? null : Date.parse(answer.until) };
      const comparison = compareShadow(answer.items, old, answer.people, window);
      if (opts.json) ctx.stdout(`${JSON.stringify({ since: answer.since, until: answer.until, truncated: answer.truncated, ...comparison })}\n`);
      else printShadowComparison(ctx, comparison);
      setCode(0);
    });
}
