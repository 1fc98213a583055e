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
  write(level: LogLevel, event: string, fields?: LogFields): void;
  close(): void;
}

/** Field names whose values are never written, whatever a caller passes. */
const REDACTED = /secret|token|signature|authorization|password|cookie/i;

export function createAgentLog(opts: { path: string; agentId: string; clock: Clock }): AgentLog {
  mkdirSync(dirname(opts.path), { recursive: true });
  let fd: number | null = openSync(opts.path, 'a', 0o640);
  return {
    write(level, event, fields = {}) {
      if (fd === null) return;
      const record: Record<string, unknown> = { agentId: opts.agentId, ts: isoTs(opts.clock.now()), level, event };
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined || key in record) continue;
        record[key] = REDACTED.test(key) ? '[redacted]' : value;
      }
      writeSync(fd, JSON.stringify(record) + '\n');
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
