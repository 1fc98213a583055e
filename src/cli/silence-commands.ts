/**
 * Silences (contract §17.8): `svc silence add --match KEY=VALUE [--match KEY=~REGEX]... --for DURATION
 * --reason TEXT`, `svc silence ls [--json]` and `svc silence expire ID`, through the running daemon's
 * admin socket (each audited there). Bad matchers or a silence longer than a week are exit 2 before
 * anything is sent.
 */
import type { Command } from 'commander';
import { RuntimeError, UsageError } from '../core/errors.js';
import { SILENCE_ID_PATTERN } from '../daemon/admin-oncall-protocol.js';
import type { SilenceView } from '../daemon/admin-oncall-protocol.js';
import { formatSilenceMatcher, refusedMatchers } from '../oncall/silence-match.js';
import type { CliContext } from './context.js';
import { isoSecond } from './oncall.js';
import { checkSilence } from '../oncall/oncall-input.js';
import { osUser, send } from './page-commands.js';
import { printTable } from './style.js';
import { idColumn } from './table.js';

function asJson(s: SilenceView): Record<string, unknown> {
  return { id: s.id, agentId: s.agentId, matchers: s.matchers.map(formatSilenceMatcher), startsAt: isoSecond(s.startsAtMs), endsAt: isoSecond(s.endsAtMs),
    reason: s.reason, createdBy: s.createdBy, expiredAt: s.expiredAtMs === null ? null : isoSecond(s.expiredAtMs) };
}

export function registerSilenceCommands(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  const silence = program.command('silence').description('silences: matching alerts are stored as suppressed and page nobody');
  silence
    .command('add')
    .description('silence the alerts every --match matches, for --for (at most 7d)')
    .option('--match <matcher>', 'KEY=VALUE or KEY=~REGEX (RE2 syntax, anchored); repeat for more, all must match', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .requiredOption('--for <duration>', 'how long: 30m, 2h, 3d (at most 7d)')
    .requiredOption('--reason <text>', 'why, for the audit trail and the people who see it')
    .option('--agent <id>', 'only this agent (default: every agent)')
    .option('--json', 'print the silence as JSON', false)
    .action(async (opts: { match: string[]; for: string; reason: string; agent?: string; json: boolean }) => {
      const checked = checkSilence({ match: '--match', duration: '--for', reason: '--reason' }, { matchers: opts.match, duration: opts.for, reason: opts.reason });
      if (!checked.ok) throw new UsageError(`svc silence add: ${checked.error}`);
      const { matchers, durationMs, reason } = checked.value;
      const answer = await send(ctx, 'svc silence add', { op: 'silence.add', matchers, durationMs, reason, user: osUser(ctx),
        ...(opts.agent === undefined ? {} : { agent: opts.agent }) });
      if (answer.op !== 'silence.add') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      const s = answer.silence;
      ctx.stdout(opts.json ? `${JSON.stringify(asJson(s))}\n`
        : `silence ${s.id}: ${s.matchers.map(formatSilenceMatcher).join(', ')} until ${isoSecond(s.endsAtMs)}\n`);
      setCode(0);
    });
  silence
    .command('ls')
    .description('the live silences')
    .option('--json', 'print them as JSON lines', false)
    .action(async (opts: { json: boolean }) => {
      const answer = await send(ctx, 'svc silence ls', { op: 'silence.ls', user: osUser(ctx) });
      if (answer.op !== 'silence.ls') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      if (opts.json) for (const s of answer.silences) ctx.stdout(`${JSON.stringify(asJson(s))}\n`);
      else if (answer.silences.length === 0) ctx.stdout('no live silences\n');
      else printTable(ctx, [idColumn('ID'), { header: 'MATCHERS', min: 16 }, { header: 'AGENT', drop: 2 }, { header: 'UNTIL', min: 16 }, { header: 'BY', drop: 1 }, 'REASON'],
        answer.silences.map((s) => [s.id, s.matchers.map(formatSilenceMatcher).join(' '), s.agentId ?? '*', isoSecond(s.endsAtMs), s.createdBy, s.reason]));
      // A silence stored before patterns were RE2 may hold one RE2 refuses: it silences nothing (docs/oncall.md, "Silences").
      for (const s of answer.silences) {
        for (const r of refusedMatchers(s.matchers)) {
          ctx.stderr(`svc silence ls: warning: silence ${s.id} silences nothing: ${r.error}; expire it and add it again in RE2 syntax\n`);
        }
      }
      setCode(0);
    });
  silence
    .command('expire')
    .description('end a silence now')
    .argument('<id>', 'silence id (svc silence ls lists them)')
    .action(async (id: string) => {
      if (!SILENCE_ID_PATTERN.test(id)) throw new UsageError(`svc silence expire: "${id.slice(0, 64)}" is not a silence id (svc silence ls lists them)`);
      const answer = await send(ctx, `svc silence expire ${id}`, { op: 'silence.expire', id, user: osUser(ctx) });
      if (answer.op !== 'silence.expire') throw new RuntimeError('EADMIN_PROTOCOL', 'unexpected answer');
      ctx.stdout(`silence ${id} expired\n`);
      setCode(0);
    });
}
