/**
 * The SQLite file of the embedded store: how it is opened (WAL, synchronous=FULL, 0600) and the
 * schema migrations, applied in an IMMEDIATE transaction so two processes cannot both create it.
 */
import { closeSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { RuntimeError } from '../../core/errors.js';
import { ONCALL_MIGRATION } from './oncall-schema.js';

/** One entry per schema version; `PRAGMA user_version` records how many have been applied. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    ts_ms       INTEGER NOT NULL,
    agent_id    TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    kind        TEXT NOT NULL,
    fingerprint TEXT,
    status      TEXT NOT NULL CHECK (status IN ('accepted', 'processing', 'processed', 'dead-lettered')),
    payload     TEXT NOT NULL
  );
  CREATE INDEX events_agent_seq ON events (agent_id, seq);
  CREATE INDEX events_source_seq ON events (source_id, seq);
  CREATE INDEX events_kind_seq ON events (kind, seq);
  CREATE INDEX events_ts ON events (ts_ms);
  CREATE INDEX events_pending ON events (seq) WHERE status IN ('accepted', 'processing');

  CREATE TABLE dead_letters (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT NOT NULL UNIQUE,
    ts_ms     INTEGER NOT NULL,
    agent_id  TEXT NOT NULL,
    source_id TEXT NOT NULL,
    event_id  TEXT NOT NULL REFERENCES events (id),
    reason    TEXT NOT NULL,
    error     TEXT NOT NULL,
    attempts  INTEGER NOT NULL,
    payload   TEXT NOT NULL
  );
  CREATE INDEX dead_letters_agent_seq ON dead_letters (agent_id, seq);
  CREATE INDEX dead_letters_source_seq ON dead_letters (source_id, seq);
  CREATE INDEX dead_letters_reason_seq ON dead_letters (reason, seq);
  CREATE INDEX dead_letters_ts ON dead_letters (ts_ms);

  CREATE TABLE audit (
    seq       INTEGER PRIMARY KEY,
    ts        TEXT NOT NULL,
    ts_ms     INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT NOT NULL,
    agent_id  TEXT,
    data      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
  );
  CREATE INDEX audit_kind_seq ON audit (kind, seq);
  CREATE INDEX audit_agent_seq ON audit (agent_id, seq);
  CREATE INDEX audit_ts ON audit (ts_ms);

  CREATE TABLE fingerprints (
    agent_id    TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    event_id    TEXT NOT NULL REFERENCES events (id),
    seen_ms     INTEGER NOT NULL,
    PRIMARY KEY (agent_id, source_id, fingerprint)
  );
  CREATE INDEX fingerprints_seen ON fingerprints (seen_ms);
  `,
  // 2: how far each SIEM exporter has been acknowledged (audit/export). A row per exporter id, so a
  // restart resumes after last_seq and a new exporter id starts from the whole chain.
  `
  CREATE TABLE audit_export_cursors (
    exporter_id TEXT PRIMARY KEY,
    last_seq    INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
  );
  `,
  // 3: claims and leases (contract §10.2): who holds a processing event, until when, and which claim
  // of it this is (fencing). The claim index covers the dispatcher's oldest-first scan per agent; the
  // backlog index answers accepted + processing counts per agent and source without touching rows.
  // Dead letters remember when they were replayed. write_probe is the one row readiness rewrites.
  `
  ALTER TABLE events ADD COLUMN owner TEXT;
  ALTER TABLE events ADD COLUMN lease_until_ms INTEGER;
  ALTER TABLE events ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
  DROP INDEX events_pending;
  CREATE INDEX events_claimable ON events (agent_id, seq) WHERE status IN ('accepted', 'processing');
  CREATE INDEX events_backlog ON events (agent_id, source_id) WHERE status IN ('accepted', 'processing');
  ALTER TABLE dead_letters ADD COLUMN replayed_ms INTEGER;
  CREATE INDEX dead_letters_event ON dead_letters (event_id);
  CREATE TABLE write_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at_ms INTEGER NOT NULL);
  `,
  // 4: on-call (contract §17.4): pages and their timers, the notification outbox, overrides, silences, heartbeats.
  ONCALL_MIGRATION,
];

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A file that exists, is not empty and does not start like a database is refused before SQLite
 * touches it (contract §11.5): a wrong `$SVC_HOME` must not turn someone's file into a store.
 */
export function checkStoreFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new RuntimeError('ESTORE_OPEN', `cannot open the store ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n > 0 && !head.subarray(0, n).equals(SQLITE_HEADER.subarray(0, n))) {
      throw new RuntimeError('ESTORE_NOT_DATABASE', `the store ${path} is not an SQLite database; refusing to open it (the file is left untouched)`);
    }
  } finally {
    closeSync(fd);
  }
}

/** Opens the store file for writing, creating it (0600) and migrating its schema. */
export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') {
    checkStoreFile(path);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Payloads may be sensitive: create the file 0600 (SQLite gives -wal/-shm the same mode).
    closeSync(openSync(path, 'a', 0o600));
  }
  const db = new Database(path, { timeout: 5000 });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before ingest answers 202, even across power loss (contract §9.3).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** A read-only connection to an existing store file (views, verification, offline checks). */
export function openReadOnly(path: string): Database.Database {
  checkStoreFile(path);
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5000 });
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * A fresh backup copy keeps the WAL flag of the store it came from; switched to rollback journaling
 * it is one self-contained file that opens read-only anywhere without creating -wal or -shm beside it.
 */
export function finishBackup(path: string): void {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

function migrate(db: Database.Database): void {
  // IMMEDIATE, so two processes opening a fresh file cannot both create the schema.
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new RuntimeError('ESTORE_SCHEMA',
        `store schema version ${version} is newer than this svc understands (${MIGRATIONS.length})`);
    }
    for (const sql of MIGRATIONS.slice(version)) db.exec(sql);
    if (version !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}
