/**
 * Acting on pages and schedules (contract §17.5, §17.6, §24.7): `svc ack|unack|resolve|escalate PAGE`,
 * `svc oncall override add|ls|rm` and `svc oncall calendar-url`, through the running daemon's admin socket. A refusal (a resolved or
 * unknown page) is exit 1 with the daemon's reason; bad arguments are exit 2 before anything is sent.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { homePaths, svcHome } from '../config/paths.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { OVERRIDE_ID_PATTERN, PAGE_ID_PATTERN } from '../daemon/admin-oncall-protocol.js';
import type { AdminRequest, AdminResponse } from '../daemon/admin-protocol.js';
import { adminRequest } from './admin-client.js';
import type { CliContext } from './context.js';
import { checkOverrideWindow } from '../oncall/oncall-input.js';
import { idOption } from './oncall.js';
import { printOverrides } from './override-table.js';

const TIMEOUT_MS = 30_000;

/** Who is at the keyboard: the OS user, as the audit row names them. */
export function osUser(ctx: CliContext): string {
  const name = ctx.env.USER ?? ctx.env.LOGNAME ?? (() => { try { return userInfo().username; } catch { return 'unknown'; } })();
  return /^[\x21-\x7e]{1,64}$/.test(name) ? name : 'unknown';
}

export async function send(ctx: CliContext, what: string, request: AdminRequest): Promise<Extract<AdminResponse, { ok: true }>> {
  const paths = homePaths(svcHome(ctx.env));
  const response = await adminRequest(paths.adminSocket, request, { clock: ctx.clock, timeoutMs: TIMEOUT_MS });
  if (response === null) throw new RuntimeError('ENOTRUNNING', `${what}: svc is not running; on-call changes go through the running daemon (svc up)`);
  if (!response.ok) throw new RuntimeError('EADMIN', `${what}: ${response.error}`);
  return response;
}

const ACTIONS = {
  ack: { verb: 'acknowledged', description: 'acknowledge a page: its escalation stops' },
  unack: { verb: 'unacknowledged', description: 'take an acknowledgement back: the page escalates again from its current step' },
  resolve: { verb: 'resolved', description: 'resolve a page: everyone who was notified hears of it' },
  escalate: { verb: 'escalated', description: 'escalate a page now, to the next step or to --to-step N' },
} as const;

export function registerPageCommands(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  for (const [action, { verb, description }] of Object.entries(ACTIONS) as Array<[keyof typeof ACTIONS, (typeof ACTIONS)[keyof typeof ACTIONS]]>) {
    const command = program.command(action).description(description).argument('<page>', 'page id (svc pages lists them)');
    if (action === 'ack') command.option('--as <person>', 'the person acknowledging (a person id of oncall.yaml; default: your user name)');
    if (action === 'ack' || action === 'resolve') command.option('--note <text>', 'a note for the audit trail');
    if (action === 'escalate') command.option('--to-step <n>', 'the step to escalate to (1 is the first)');
    command.option('--json', 'print the answer as JSON', false);
    command.action(async (typed: string, opts: { as?: string; note?: string; toStep?: string; json: boolean }) => {
      // Ids are lower case; one typed from a phone's auto-capitalised keyboard still names its page.
      const page = typed.toLowerCase();
      if (!PAGE_ID_PATTERN.test(page)) throw new UsageError(`svc ${action}: "${typed.slice(0, 64)}" is not a page id (svc pages lists them)`);
      let toStep: number | undefined;
      if (opts.toStep !== undefined) {
        if (!/^\d{1,3}$/.test(opts.toStep) || Number(opts.toStep) < 1) throw new UsageError(`svc ${action}: --to-step must be a step number, 1 or more`);
        toStep = Number(opts.toStep);
      }
      if (opts.note !== undefined && (opts.note.length === 0 || opts.note.length > 1000)) throw new UsageError(`svc ${action}: --note must be 1 to 1000 characters`);
      const answer = await send(ctx, `svc ${action} ${page}`, { op: 'page.act', page, action, user: osUser(ctx),
        ...(opts.as === undefined ? {} : { as: opts.as }), ...(opts.note === undefined ? {} : { note: opts.note }),
        ...(toStep === undefined ? {} : { toStep }) }).catch((err: unknown) => {
        // The daemon's words serve the console and chat too; at the shell, say where the ids are (as svc page does).
        if (err instanceof RuntimeError && err.message.endsWith(`: no page ${page}`)) throw new RuntimeError('EADMIN', `${err.message} (svc pages lists them)`);
        throw err;
      });
      if (answer.op !== 'page.act') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      const p = answer.page;
      if (opts.json) ctx.stdout(`${JSON.stringify({ changed: answer.changed, page: p })}\n`);
      else if (!answer.changed) ctx.stdout(`page ${p.id} is already ${p.state}${p.acknowledgedBy ? ` (by ${p.acknowledgedBy})` : ''}; nothing changed\n`);
      else if (p.state === verb) ctx.stdout(`page ${p.id} ${verb}${verb === 'acknowledged' && p.acknowledgedBy ? ` by ${p.acknowledgedBy}` : ''} at step ${p.step} of ${p.steps}\n`);
      else ctx.stdout(`page ${p.id} ${verb}: now ${p.state}, step ${p.step} of ${p.steps}\n`);
      setCode(0);
    });
  }

  const oncall = program.commands.find((c) => c.name() === 'oncall') ?? program.command('oncall').description('on-call schedules');
  const override = oncall.command('override').description('schedule overrides, kept in the store (admin socket, audited)');
  override
    .command('add')
    .description('put PERSON on call for SCHEDULE from --from to --to')
    .requiredOption('--schedule <id>', 'schedule id')
    .requiredOption('--person <id>', 'person id')
    .requiredOption('--from <time>', 'start: ISO-8601 with a zone, or integer ms')
    .requiredOption('--to <time>', 'end: ISO-8601 with a zone, or integer ms')
    .option('--agent <id>', 'the agent, when several have the schedule')
    .option('--json', 'print {"id", "agent"} as JSON', false)
    .action(async (opts: { schedule: string; person: string; from: string; to: string; agent?: string; json: boolean }) => {
      const window = checkOverrideWindow({ from: '--from', to: '--to' }, opts.from, opts.to);
      if (!window.ok) throw new UsageError(`svc oncall override add: ${window.error}`);
      const { fromMs, toMs } = window.value;
      const answer = await send(ctx, 'svc oncall override add', { op: 'override.add', schedule: opts.schedule, person: opts.person, fromMs, toMs,
        user: osUser(ctx), ...(opts.agent === undefined ? {} : { agent: opts.agent }) });
      if (answer.op !== 'override.add') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      ctx.stdout(opts.json ? `${JSON.stringify({ id: answer.id, agent: answer.agent })}\n`
        : `override ${answer.id}: ${opts.person} is on call for ${opts.schedule} from ${new Date(fromMs).toISOString()} to ${new Date(toMs).toISOString()}\n`);
      // Kept (svc oncall --at reads the past with it), but it pages nobody: a mistyped date should not pass unseen.
      if (toMs <= ctx.clock.now()) ctx.stderr('svc oncall override add: note: it ended before now, so it pages nobody; only svc oncall --at reads it\n');
      setCode(0);
    });
  override
    .command('ls')
    .description('the overrides in force now or starting later, soonest first')
    .option('--schedule <id>', 'one schedule')
    .option('--agent <id>', 'one agent')
    .option('--json', 'print them as JSON lines', false)
    .action(async (opts: { schedule?: string; agent?: string; json: boolean }) => {
      idOption('svc oncall override ls', '--schedule', opts.schedule);
      idOption('svc oncall override ls', '--agent', opts.agent);
      const filter = { ...(opts.schedule === undefined ? {} : { schedule: opts.schedule }), ...(opts.agent === undefined ? {} : { agent: opts.agent }) };
      const answer = await send(ctx, 'svc oncall override ls', { op: 'override.ls', ...filter, user: osUser(ctx) });
      if (answer.op !== 'override.ls') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      printOverrides(ctx, answer.overrides, filter, opts.json);
      setCode(0);
    });
  oncall
    .command('calendar-url')
    .description('a URL a calendar app subscribes to without signing in: the schedule, or one person\'s shifts in it (audited)')
    .argument('<schedule>', 'schedule id')
    .option('--person <id>', 'only this person\'s shifts')
    .option('--agent <id>', 'the agent, when several have the schedule')
    .option('--json', 'print {"url", "agent", "schedule", "person"} as JSON', false)
    .action(async (schedule: string, opts: { person?: string; agent?: string; json: boolean }) => {
      idOption('svc oncall calendar-url', 'SCHEDULE', schedule);
      idOption('svc oncall calendar-url', '--person', opts.person);
      idOption('svc oncall calendar-url', '--agent', opts.agent);
      const answer = await send(ctx, 'svc oncall calendar-url', { op: 'calendar.url', schedule, user: osUser(ctx),
        ...(opts.person === undefined ? {} : { person: opts.person }), ...(opts.agent === undefined ? {} : { agent: opts.agent }) });
      if (answer.op !== 'calendar.url') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      if (opts.json) {
        ctx.stdout(`${JSON.stringify({ url: answer.url, agent: answer.agent, schedule: answer.schedule, person: answer.person })}\n`);
      } else {
        ctx.stdout(`${answer.url}\n`);
        ctx.stderr(`svc oncall calendar-url: anyone with this URL can read ${answer.person === null ? `schedule ${answer.schedule}` : `${answer.person}'s shifts in ${answer.schedule}`}; `
          + 'rotating $SVC_HOME/secrets/oncall/calendar-key revokes every URL issued\n');
      }
      setCode(0);
    });
  override
    .command('rm')
    .description('remove an override')
    .argument('<id>', 'override id (svc oncall override ls lists them)')
    .action(async (id: string) => {
      if (!OVERRIDE_ID_PATTERN.test(id)) throw new UsageError(`svc oncall override rm: "${id.slice(0, 64)}" is not an override id (svc oncall override ls lists them)`);
      await send(ctx, `svc oncall override rm ${id}`, { op: 'override.rm', id, user: osUser(ctx) });
      ctx.stdout(`override ${id} removed\n`);
      setCode(0);
    });
}
