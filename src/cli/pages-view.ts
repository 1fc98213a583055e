/**
 * `svc pages [--state S] [--json]` and `svc page PAGE [--json]` (contract §17.5): the control plane's
 * `/pages` and `/pages/<id>`, as a table and a timeline a person reads, or as the JSON the views answer.
 */
import type { Command } from 'commander';
import { auditSentence } from '../audit/audit-sentence.js';
import { HttpError, RuntimeError, UsageError } from '../core/errors.js';
import { PAGE_ID_PATTERN } from '../daemon/admin-oncall-protocol.js';
import { PAGE_STATES } from '../oncall/page.js';
import type { CliContext } from './context.js';
import { getJson } from './control-client.js';
import { displayZone, formatInZone } from './display-zone.js';
import { ownTarget } from './own-home.js';
import { printTable } from './style.js';
import { idColumn } from './table.js';

interface PageView {
  id: string; agentId: string; state: string; exhausted: boolean; policy: string; step: number; loop: number; openedAt: string;
  acknowledgedBy: string | null; resolvedBy: string | null; nextEscalationAt: string | null; title: string; severity: string; eventIds: string[];
  /** Stored damaged: its unreadable fields are null (GET /pages, §11.5). */
  corrupt?: true;
}
interface TimelineRow { seq: number; ts: string; kind: string; actor: string; data: Record<string, unknown> | null }
/** A person's own rule (§21.1) sent or to come; absent from answers of daemons older than the field. */
interface StepView { person: string; rule: number; channels: string[]; at: string; state: 'sent' | 'pending' }

/** The page's personal steps, one line each (who, which rule, where, sent or due when); none: nothing. */
function stepLines(steps: readonly StepView[] | undefined, zone: string): string {
  if (steps === undefined || steps.length === 0) return '';
  const lines = steps.map((st) => `  ${st.state === 'sent' ? 'sent' : 'due '} ${formatInZone(st.at, zone)}  ${st.person}, rule ${st.rule}: ${st.channels.join(', ')}`);
  return `personal steps:\n${lines.join('\n')}\n\n`;
}

function stateCell(p: PageView): string {
  if (p.corrupt === true) return `${p.state}, stored damaged`;
  if (p.state === 'acknowledged') return `acknowledged (${p.acknowledgedBy ?? '?'})`;
  if (p.state === 'resolved') return `resolved (${p.resolvedBy ?? '?'})`;
  return p.exhausted ? 'triggered, exhausted' : 'triggered';
}

/** One line of a page's story: when (in `zone`), and what happened (the one sentence rule, audit-sentence.ts). */
function storyLine(r: TimelineRow, zone: string): string {
  return `${formatInZone(r.ts, zone)}  ${auditSentence(r.kind, r.actor, r.data)}`;
}

const TZ_HELP = 'print times in this IANA zone (default $TZ, else UTC)';

export function registerPageViews(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  program
    .command('pages')
    .description('pages, newest first (GET /pages)')
    .option('--state <state>', `only pages in this state: ${PAGE_STATES.join(', ')}`)
    .option('--agent <id>', 'only this agent')
    .option('--limit <n>', 'at most this many (1..1000)', '100')
    .option('--tz <zone>', TZ_HELP)
    .option('--json', 'print the answer as JSON', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (opts: { state?: string; agent?: string; limit: string; tz?: string; json: boolean; url?: string; dir?: string }) => {
      const zone = displayZone('svc pages', opts.tz, ctx.env);
      if (opts.state !== undefined && !(PAGE_STATES as readonly string[]).includes(opts.state)) {
        throw new UsageError(`svc pages: --state must be one of ${PAGE_STATES.join(', ')}`);
      }
      const params = new URLSearchParams({ limit: opts.limit });
      if (opts.state !== undefined) params.set('state', opts.state);
      if (opts.agent !== undefined) params.set('agent', opts.agent);
      const answer = await getJson(await ownTarget(ctx, opts), '/pages', params) as { items: PageView[]; nextCursor: string | null };
      if (opts.json) ctx.stdout(`${JSON.stringify(answer)}\n`);
      else if (answer.items.length === 0) ctx.stdout('no pages\n');
      else {
        printTable(ctx, [idColumn('PAGE'), 'SEV', 'STATE', { header: 'STEP', drop: 2 }, { header: 'OPENED', drop: 3 }, { header: 'NEXT', drop: 1 }, { header: 'TITLE', give: 16 }],
          answer.items.map((p) => (p.corrupt === true ? [p.id, '-', stateCell(p), '-', formatInZone(p.openedAt, zone), '-', '(unreadable)']
            : [p.id, p.severity, stateCell(p), `${p.step}${p.loop > 0 ? ` (pass ${p.loop + 1})` : ''}`,
              formatInZone(p.openedAt, zone), formatInZone(p.nextEscalationAt, zone), p.title])));
        // Not silently cut: an open page older than the newest N must not vanish from the list unnoticed.
        if (answer.nextCursor !== null) {
          ctx.stderr(`svc pages: the newest ${answer.items.length} shown; there are more (--state triggered for the open ones, or --limit up to 1000)\n`);
        }
      }
      setCode(0);
    });
  program
    .command('page')
    .description('one page and its timeline (GET /pages/<id>)')
    .argument('<page>', 'page id')
    .option('--tz <zone>', TZ_HELP)
    .option('--json', 'print the answer as JSON', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (typed: string, opts: { tz?: string; json: boolean; url?: string; dir?: string }) => {
      const zone = displayZone('svc page', opts.tz, ctx.env);
      const id = typed.toLowerCase(); // as svc ack does: ids are lower case
      if (!PAGE_ID_PATTERN.test(id)) throw new UsageError(`svc page: "${typed.slice(0, 64)}" is not a page id (svc pages lists them)`);
      let p: PageView & { timeline: TimelineRow[]; personalSteps?: StepView[] };
      try {
        p = await getJson(await ownTarget(ctx, opts), `/pages/${id}`) as PageView & { timeline: TimelineRow[]; personalSteps?: StepView[] };
      } catch (err) {
        if (err instanceof HttpError && err.status === 404) throw new RuntimeError('ENOTFOUND', `svc page: no page ${id} (svc pages lists them)`);
        throw err;
      }
      if (opts.json) {
        ctx.stdout(`${JSON.stringify(p)}\n`);
      } else if (p.corrupt === true) {
        ctx.stdout(`page ${p.id} is stored damaged and was set aside (${p.state}, policy ${p.policy}, opened ${formatInZone(p.openedAt, zone)})\n`
          + `times in ${zone}\n\n${p.timeline.map((r) => storyLine(r, zone)).join('\n')}\n`);
      } else {
        // The times on a line of their own: with them the state line ran past 80 columns.
        ctx.stdout(`page ${p.id} [${p.severity}] ${p.title}\n${stateCell(p)}, step ${p.step} of policy ${p.policy}\nopened ${formatInZone(p.openedAt, zone)}`
          + `${p.nextEscalationAt === null ? '' : `, next ${formatInZone(p.nextEscalationAt, zone)}`}\n${p.eventIds.length} event(s); times in ${zone}\n\n`
          + stepLines(p.personalSteps, zone) + `${p.timeline.map((r) => storyLine(r, zone)).join('\n')}\n`);
      }
      setCode(0);
    });
}
