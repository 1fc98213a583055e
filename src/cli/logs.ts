/**
 * `svc logs [-f] [--agent ID] [--since T] [--level L] [--json] [--url URL] [--dir DIR]` over GET /logs
 * (server-sent events), with the bearer token of token-source.ts; the stream itself (caught-up,
 * reconnects with Last-Event-ID, token renewal) is log-stream.ts. Exit 1 when the stream cannot be
 * had or kept (a token that cannot be renewed, an HTTP error).
 */
import { HttpError, RuntimeError, UsageError } from '../core/errors.js';
import type { LogLevel } from '../core/log.js';
import { terminalLine } from '../core/terminal-text.js';
import type { CliContext } from './context.js';
import { ownTarget } from './own-home.js';
import { followLogs } from './log-stream.js';
import type { LogFrame } from './log-stream.js';
import { timeArg } from './time-arg.js';

export interface LogsOptions {
  follow: boolean;
  agent?: string;
  since?: string;
  /** Only records at this level or above (debug < info < warn < error). */
  level?: string;
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
}

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Whether a record of `level` is shown under `--level min` (a record of an unknown level always is). */
export function atLeast(level: unknown, min: LogLevel | undefined): boolean {
  if (min === undefined) return true;
  const rank = LEVELS.indexOf(level as LogLevel);
  return rank < 0 || rank >= LEVELS.indexOf(min);
}

export async function logsCommand(opts: LogsOptions, ctx: CliContext): Promise<number> {
  if (opts.level !== undefined && !(LEVELS as readonly string[]).includes(opts.level)) {
    throw new UsageError(`svc logs: --level must be one of ${LEVELS.join(', ')}`);
  }
  const min = opts.level as LogLevel | undefined;
  const target = await ownTarget(ctx, opts);
  const since = opts.since === undefined ? undefined : timeArg('svc logs: --since', opts.since, ctx.clock);
  const stop = new AbortController();
  void ctx.waitForSignal().then(() => stop.abort());
  await followLogs({
    target, agent: opts.agent, since, follow: opts.follow, signal: stop.signal,
    onRecord: (frame) => {
      if (atLeast(frame.record.level, min)) ctx.stdout(opts.json ? `${JSON.stringify(frame.record)}\n` : `${formatRecord(frame)}\n`);
    },
    // People read the stream's own notices on stderr, in words; --json keeps them as the frames they are.
    onSystem: (body) => ctx.stderr(opts.json ? `${JSON.stringify(body)}\n` : `${describeSystemFrame(body)}\n`),
    onLost: () => ctx.stderr('svc logs: connection lost, reconnecting\n'),
  }).catch((err: unknown) => {
    // The listener's refusal in its own words (`unknown agent "nope"`), not as a URL path and a status.
    if (err instanceof HttpError && err.status === 400 && err.error !== null) throw new RuntimeError('ENOTFOUND', `svc logs: ${err.error}`);
    throw err;
  });
  return 0;
}

/**
 * `<ts> <level> <agent> <event> key=value…`: one log record as a line for people, and only one: a
 * line break or a control sequence in a field (an alert label, a model's summary) is shown as an
 * escape (core/terminal-text.ts), never obeyed.
 */
export function formatRecord(frame: LogFrame): string {
  const { ts, level, agentId, event, ...rest } = frame.record;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
  return terminalLine(`${String(ts)} ${String(level).padEnd(5)} ${String(agentId)} ${String(event)}${fields ? ' ' + fields : ''}`);
}

/**
 * A system frame (other than caught-up and token-expired) as a line for people, set apart from the
 * records by its dashes (control-plane/sse/frames.ts lists them).
 */
export function describeSystemFrame(body: Record<string, unknown>): string {
  const of = typeof body.agent === 'string' ? ` of ${body.agent}` : '';
  const said = ((): string => {
    switch (body.system) {
      case 'dropped': return `${String(body.count)} records dropped (this reader was too slow); see \`svc events\``;
      case 'rotated': return `log file${of} rotated; following the new one`;
      case 'truncated': return `log file${of} truncated; reading it from the start`;
      case 'reset': return `log file${of} changed since the last position; reading it from the start`;
      case 'tailer-error': return `log file${of} cannot be read (the daemon's own log says why)`;
      case 'invalid-record': return `a line${of} is not a log record (${typeof body.reason === 'string' ? body.reason : 'unreadable'}), skipped`;
      default: return `stream notice: ${JSON.stringify(body)}`;
    }
  })();
  return `— ${said} —`;
}
