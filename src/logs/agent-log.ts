/**
 * Per-agent log file `$SVC_HOME/logs/<agent>.log`: one JSON record per line with agentId, ts
 * (ISO-8601 UTC, ms), level, event and fields. Lines are written synchronously so the file is in
 * order and complete up to the last call, even if the process is killed right after.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import type { LogFields, LogLevel } from '../core/log.js';


export interface AgentLog {
  /** Never throws: a line that cannot be written (disk full, I/O error) is counted, not propagated (contract §11.6). */
  write(level: LogLevel, event: string, fields?: LogFields): void;
  close(): void;
}

/** The per-agent log file, with the count of lines it could not write (shown in /status). */
export interface FileAgentLog extends AgentLog {
  failures(): number;
}

/** Field names whose values are never written, whatever a caller passes. */
const REDACTED = /secret|token|signature|authorization|password|cookie/i;

export function createAgentLog(opts: { path: string; agentId: string; clock: Clock }): FileAgentLog {
  mkdirSync(dirname(opts.path), { recursive: true });
  let fd: number | null = openSync(opts.path, 'a', 0o640);
  let failed = 0;
  return {
    write(level, event, fields = {}) {
      if (fd === null) return;
      const record: Record<string, unknown> = { agentId: opts.agentId, ts: isoTs(opts.clock.now()), level, event };
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined || key in record) continue;
        record[key] = REDACTED.test(key) ? '[redacted]' : value;
      }
      try {
        writeSync(fd, JSON.stringify(record) + '\n');
      } catch {
        // A log line is never worth failing a request or a dispatch for: the event is in the store.
        failed += 1;
      }
    },
    failures: () => failed,
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
