/**
 * Prepared statements kept by their SQL text, for a connection's readers: each statement is prepared
 * once, on first use (better-sqlite3 statements belong to the connection that prepared them).
 */
import type Database from 'better-sqlite3';

export type Prepare = (sql: string) => Database.Statement<unknown[], unknown>;

export function statementCache(db: Database.Database): Prepare {
  const prepared = new Map<string, Database.Statement<unknown[], unknown>>();
  return (sql) => {
    let s = prepared.get(sql);
    if (s === undefined) {
      s = db.prepare<unknown[], unknown>(sql);
      prepared.set(sql, s);
    }
    return s;
  };
}
