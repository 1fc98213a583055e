/**
 * Per-agent log file `$SVC_HOME/logs/<agent>.log`: one JSON record per line with agentId, ts
 * (ISO-8601 UTC, ms), level, event and fields. Lines are written synchronously so the file is in
 * order and complete up to the last call, even if the process is killed right after. `writeAll`
 * writes several records with one `write` (ingest's accepted lines of one store commit: one syscall
 * per line was ≈3 % of the daemon's CPU under signed ingest, docs/performance.md).
 *
 * A log write never throws into its caller (contract §11.6): a failing sink (disk full, EIO, a log
 * directory gone) is counted in `LogSinkHealth` and reported once in a while, and the line is lost —
 * an HTTP answer, a dispatch or an accepted event never depends on it. A write that fails half-way is
 * cut back off the file, so a full disk leaves no half line. `reopen()` (SIGHUP, after logrotate's
 * rename) opens the path afresh; a file that cannot be opened is retried at most once a second.
 *
 * In the foreground every record also goes to a mirror (stdout, console-log.ts).
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { LogFields, LogLevel } from '../core/log.js';

/** One record to write: what `write` takes, as a value. */
export interface LogEntry {
  level: LogLevel;
  event: string;
  fields?: LogFields;
}

export interface AgentLog {
  /** Writes one record. Never throws. */
  write(level: LogLevel, event: string, fields?: LogFields): void;
  /**
   * Writes the records in order with one `write` of the file: all of them or, when it fails, none
   * (each counted as lost). Never throws. Optional for stand-ins in tests (`writeEntries` falls back).
   */
  writeAll?(entries: readonly LogEntry[]): void;
  /** Opens the path afresh (after a rotation), closing the old file. Never throws. Optional for stand-ins in tests. */
  reopen?(): void;
  close(): void;
}

/** The per-agent log file, with the count of lines it could not write (/status `logWriteFailures`). */
export interface FileAgentLog extends AgentLog {
  failures(): number;
  writeAll(entries: readonly LogEntry[]): void;
}

/** A finished record, as written: what a mirror receives. */
export type LogRecord = Record<string, unknown> & { ts: string; level: LogLevel; event: string };
export type LogMirror = (record: LogRecord) => void;

/** Counts the writes every log sink lost, and says so at most once per interval. */
export interface LogSinkHealth {
  failed(path: string, err: unknown): void;
  /** Log lines lost since start. */
  failures(): number;
}

const REPORT_INTERVAL_MS = 60_000;
/** A file that could not be opened is tried again at most this often. */
const REOPEN_RETRY_MS = 1_000;

/**
 * `report` is the daemon's own output (stdout, up.log): the first failure is reported at once, later
 * ones at most every `intervalMs`, with how many were lost meanwhile.
 */
export function createLogSinkHealth(opts: { clock: Clock; report: (line: string) => void; intervalMs?: number }): LogSinkHealth {
  const intervalMs = opts.intervalMs ?? REPORT_INTERVAL_MS;
  let total = 0;
  let unreported = 0;
  let lastReport = -Infinity;
  return {
    failed(path, err) {
      total += 1;
      unreported += 1;
      const now = opts.clock.monotonic();
      if (now - lastReport < intervalMs) return;
      lastReport = now;
      const lost = unreported;
      unreported = 0;
      try {
        opts.report(`log write failed: ${path}: ${errorText(err)} (${lost} line${lost === 1 ? '' : 's'} lost since the last report, ${total} in all)`);
      } catch {
        // the daemon's output failing too leaves nowhere to say it
      }
    },
    failures: () => total,
  };
}

/** Field names whose values are never written, whatever a caller passes. */
const REDACTED = /secret|token|signature|authorization|password|cookie/i;

export function createAgentLog(opts: {
  path: string;
  agentId: string;
  clock: Clock;
  /** Where lost lines are counted; default: counted nowhere, silently dropped. */
  health?: LogSinkHealth;
  mirror?: LogMirror;
}): FileAgentLog {
  const { clock } = opts;
  let lost = 0;
  const failed = (err: unknown): void => {
    lost += 1;
    opts.health?.failed(opts.path, err);
  };
  let fd: number | null = null;
  let closed = false;
  let lastOpenAttempt = -Infinity;

  const open = (): number | null => {
    lastOpenAttempt = clock.monotonic();
    try {
      mkdirSync(dirname(opts.path), { recursive: true });
      return openSync(opts.path, 'a', 0o640);
    } catch (err) {
      opts.health?.failed(opts.path, err); // reported; the lines it costs are counted as they come
      return null;
    }
  };
  fd = open();

  /** Writes the whole line or nothing: a partial write on a full disk is cut back off. */
  const append = (target: number, line: Buffer): void => {
    let written = 0;
    try {
      while (written < line.length) written += writeSync(target, line, written);
    } catch (err) {
      if (written > 0) {
        try {
          ftruncateSync(target, fstatSync(target).size - written);
        } catch {
          // the half line stays; readers skip a line that does not parse
        }
      }
      throw err;
    }
  };

  /** The record and its line, or null when it cannot be serialized (counted as lost). */
  const build = (level: LogLevel, event: string, fields: LogFields): { record: LogRecord; line: string } | null => {
    try {
      const record: LogRecord = { agentId: opts.agentId, ts: isoTs(clock.now()), level, event };
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined || key in record) continue;
        record[key] = REDACTED.test(key) ? '[redacted]' : value;
      }
      return { record, line: JSON.stringify(record) + '\n' };
    } catch (err) {
      failed(err);
      return null;
    }
  };

  /** Writes `text` (`lines` records) to the file, or counts each of them as lost. */
  const emit = (text: string, lines: number): void => {
    if (fd === null && clock.monotonic() - lastOpenAttempt >= REOPEN_RETRY_MS) fd = open();
    if (fd === null) {
      for (let i = 0; i < lines; i++) failed(new Error('log file is not open'));
      return;
    }
    try {
      append(fd, Buffer.from(text));
    } catch (err) {
      for (let i = 0; i < lines; i++) failed(err);
    }
  };

  const mirror = (record: LogRecord): void => {
    if (!opts.mirror) return;
    try {
      opts.mirror(record);
    } catch {
      // the mirror is best effort: stdout closed, a pipe gone
    }
  };

  /** The records in order, in one write of the file; `write` is this for one. */
  const writeAll = (entries: readonly LogEntry[]): void => {
    if (closed) return;
    const records: LogRecord[] = [];
    let text = '';
    for (const e of entries) {
      const built = build(e.level, e.event, e.fields ?? {});
      if (built === null) continue;
      records.push(built.record);
      text += built.line;
    }
    if (records.length > 0) emit(text, records.length);
    for (const r of records) mirror(r);
  };

  return {
    write: (level, event, fields) => writeAll([{ level, event, ...(fields === undefined ? {} : { fields }) }]),
    writeAll,
    failures: () => lost,
    reopen() {
      if (closed) return;
      const next = open();
      if (next === null) return; // keep writing where we could
      const old = fd;
      fd = next;
      if (old !== null) {
        try {
          closeSync(old);
        } catch {
          // already gone
        }
      }
    },
    close() {
      closed = true;
      if (fd !== null) {
        try {
          closeSync(fd);
        } catch {
          // already gone
        }
      }
      fd = null;
    },
  };
}

/** Writes the entries with one write where the log can (`writeAll`), else one `write` each. Never throws. */
export function writeEntries(log: AgentLog, entries: readonly LogEntry[]): void {
  if (log.writeAll !== undefined) {
    log.writeAll(entries);
    return;
  }
  for (const e of entries) log.write(e.level, e.event, e.fields);
}
