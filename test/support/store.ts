/** What the daemon wrote, read back in tests: its SQLite store and JSON-lines files. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { AuditRow } from '../../src/audit/audit-row.js';

/** Reads rows from the daemon's SQLite store (read-only; WAL lets it read while the daemon writes). */
export function queryStore<T>(home: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
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
