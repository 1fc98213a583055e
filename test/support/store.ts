/** What the daemon wrote, read back in tests: its SQLite store and JSON-lines files. */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AuditRow } from '../../src/audit/audit-row.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/** Reads rows from the daemon's SQLite store (read-only; WAL lets it read while the daemon writes). */
export function queryStore<T>(home: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Writes to the daemon's SQLite store behind its back, as an operator with the sqlite3 shell would (WAL: beside the running daemon). */
export function editStore(home: string, sql: string, ...params: unknown[]): number {
  const db = new Database(join(home, 'svc.db'), { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    return db.prepare(sql).run(...params).changes;
  } finally {
    db.close();
  }
}

export function readJsonLines(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The audit chain as stored, in seq order. */
export function auditRows(home: string): AuditRow[] {
  type Raw = { seq: number; ts: string; kind: string; actor: string; agent_id: string | null; data: string; prev_hash: string; hash: string };
  return queryStore<Raw>(home, 'SELECT seq, ts, kind, actor, agent_id, data, prev_hash, hash FROM audit ORDER BY seq').map((r) => ({
    seq: r.seq, ts: r.ts, kind: r.kind, actor: r.actor, agentId: r.agent_id, data: JSON.parse(r.data) as Record<string, unknown>,
    prevHash: r.prev_hash, hash: r.hash,
  }));
}

/**
 * Writes `n` dead-lettered events and their dead letters (reason `delivery-failed`) straight into the
 * store file at `path` — of a stopped daemon — in one transaction: a large DLQ in seconds. The schema
 * is created first, through the store itself.
 */
export async function fillDeadLetters(path: string, n: number, payload: string): Promise<void> {
  await (await openSqliteStore({ path })).close();
  const db = new Database(path);
  try {
    const event = db.prepare(`INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt)
      VALUES (?, ?, 'oncall-escalator', 'alertmanager', 'alert', NULL, 'dead-lettered', ?, 1)`);
    const letter = db.prepare(`INSERT INTO dead_letters (id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload)
      VALUES (?, ?, 'oncall-escalator', 'alertmanager', ?, 'delivery-failed', 'channel down', 1, ?)`);
    const t0 = Date.now() - n;
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const eventId = randomUUID();
        event.run(eventId, t0 + i, payload);
        letter.run(randomUUID(), t0 + i, eventId, payload);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
