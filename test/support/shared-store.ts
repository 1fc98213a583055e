/**
 * One SQLite store for a whole test file, emptied before each test that asks for it. Most store-backed
 * unit tests need an empty store, not a new file: opening one starts two threads (the writer, which
 * creates and migrates the file, and the reader), and on a loaded host that costs seconds — far more
 * than the test. The store is real (its file, its threads, its group commit); only the emptying goes
 * around it, through a connection of its own (WAL lets it write beside the store's writer). Tests that
 * are about the file itself (reopening, backups, migrations, durability) open their own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Store } from '../../src/store/store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { SqliteStoreOptions } from '../../src/store/sqlite/sqlite-store.js';

export interface SharedStore {
  /**
   * The file's store, emptied: every row of every table gone, as a store just created has them. Its
   * `close` does nothing (the file's `close` below closes it once).
   */
  fresh(): Promise<Store>;
  /** Where the store's file is. */
  readonly path: string;
  /** Closes the store and removes its directory: call it from the file's `after`. */
  close(): Promise<void>;
}

export function sharedSqliteStore(prefix: string, opts: Omit<SqliteStoreOptions, 'path' | 'readOnly'> = {}): SharedStore {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'svc.db');
  let opened: Promise<Store> | null = null;
  const empty = (): void => {
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 10000');
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
      db.transaction(() => { for (const { name } of tables) db.exec(`DELETE FROM "${name}"`); }).immediate();
    } finally {
      db.close();
    }
  };
  return {
    path,
    async fresh() {
      const first = opened === null;
      opened ??= openSqliteStore({ path, ...opts });
      const store = await opened;
      if (!first) empty();
      return { ...store, close: () => Promise.resolve() };
    },
    async close() {
      if (opened !== null) await (await opened).close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
