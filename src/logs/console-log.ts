/**
 * The daemon's log on stdout in the foreground (contract §13): every agent record and the daemon's
 * own lines, as JSON lines (the default: for journald, docker logs, a collector) or as text for
 * people (`--log-format text`). Writing never throws: a closed stdout loses the line, nothing more.
 */
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import type { LogLevel } from '../core/log.js';
import type { LogRecord } from './agent-log.js';

export const LOG_FORMATS = ['json', 'text'] as const;
/** The `event` of the daemon's own lines. */
export const DAEMON_EVENT = 'svc.daemon';
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface ConsoleLog {
  /** An agent's record (the agent log's mirror). */
  record(record: LogRecord): void;
  /** A line of the daemon's own (startup, shutdown, errors without an agent). */
  line(level: LogLevel, message: string): void;
}

/** `key=value`, the value quoted when it holds anything but plain characters. */
function pair(key: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `${key}=${/^[\w.:/@+-]+$/.test(text) ? text : JSON.stringify(text)}`;
}

export function formatText(record: Record<string, unknown>): string {
  const { ts, level, agentId, event, message, ...rest } = record;
  // The daemon's own lines read as sentences; an agent's records as `<agent> <event> key=value…`.
  const head = [String(ts), String(level).toUpperCase().padEnd(5)];
  if (event !== DAEMON_EVENT) head.push(typeof agentId === 'string' ? agentId : 'svc', String(event));
  if (typeof message === 'string') head.push(message);
  return [...head, ...Object.entries(rest).map(([k, v]) => pair(k, v))].join(' ');
}

export function createConsoleLog(opts: { format: LogFormat; clock: Clock; write: (text: string) => void }): ConsoleLog {
  const emit = (record: Record<string, unknown>): void => {
    try {
      opts.write(`${opts.format === 'json' ? JSON.stringify(record) : formatText(record)}\n`);
    } catch {
      // stdout gone: nothing to tell
    }
  };
  return {
    record: emit,
    line: (level, message) => emit({ ts: isoTs(opts.clock.now()), level, event: DAEMON_EVENT, message }),
  };
}
