/**
 * `svc logs [-f] [--agent ID] [--since T] [--json] [--url URL] [--dir DIR]` over GET /logs
 * (server-sent events), with the bearer token of token-source.ts; the stream itself (caught-up,
 * reconnects with Last-Event-ID, token renewal) is log-stream.ts. Exit 1 when the stream cannot be
 * had or kept (a token that cannot be renewed, an HTTP error).
 */
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
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
}

export async function logsCommand(opts: LogsOptions, ctx: CliContext): Promise<number> {
  const target = await ownTarget(ctx, opts);
  const since = opts.since === undefined ? undefined : timeArg('--since', opts.since, ctx.clock);
  const stop = new AbortController();
  void ctx.waitForSignal().then(() => stop.abort());
  await followLogs({
    target, agent: opts.agent, since, follow: opts.follow, signal: stop.signal,
    onRecord: (frame) => ctx.stdout(opts.json ? `${JSON.stringify(frame.record)}\n` : `${formatRecord(frame)}\n`),
    onSystem: (body) => ctx.stderr(`svc logs: ${describeSystemFrame(body)}\n`),
    onLost: () => ctx.stderr('svc logs: connection lost, reconnecting\n'),
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

/** A system frame (other than caught-up and token-expired) in words. */
export function describeSystemFrame(body: Record<string, unknown>): string {
  if (body.system === 'dropped') return `${String(body.count)} records dropped (this reader was too slow); see \`svc events\``;
  return JSON.stringify(body);
}
