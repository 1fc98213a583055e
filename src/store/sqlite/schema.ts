/**
 * The SQLite file of the embedded store: how it is opened (WAL, synchronous=FULL, 0600) and the
 * schema migrations, applied in an IMMEDIATE transaction so two processes cannot both create it.
 */
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { errorText, RuntimeError } from '../../core/errors.js';
import { ONCALL_INTEGRITY_MIGRATION, ONCALL_MIGRATION, OPEN_PAGE_COUNTS_INDEX, OUTBOX_ORDER_INDEX, POLL_OFFSETS_TABLE } from './oncall-schema.js';
import { RECEIPTS_MIGRATION } from './receipts.js';
import { REPORT_FACTS_MIGRATION } from './report-facts.js';
import { REPORT_MIGRATION } from './report-schema.js';
import { SUPPRESSED_STATUS_MIGRATION } from './suppressed-migration.js';

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
  // 4: a pager's patience. due_ms: an accepted event whose delivery failed waits for it before it is
  // claimed again (null: due now). delivery: what earlier rounds left, per channel (which delivered,
  // which keep failing since when), as the runtime wrote it (runtime/dispatch/delivery-state.ts).
  `
  ALTER TABLE events ADD COLUMN due_ms INTEGER;
  ALTER TABLE events ADD COLUMN delivery TEXT;
  `,
  // 5: the story of an event (contract §20.3): which audit rows concern which event, filled by a
  // trigger from the row's data (`eventId`, and each string of `eventIds`) as rows are appended,
  // and backfilled here for a chain that existed before. A story is then an index lookup, whatever
  // the chain's length. Data that is not JSON (a damaged row) names no event.
  `
  CREATE TABLE audit_events (
    event_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (event_id, seq)
  ) WITHOUT ROWID;
  CREATE TRIGGER audit_events_fill AFTER INSERT ON audit WHEN json_valid(NEW.data) BEGIN
    INSERT OR IGNORE INTO audit_events (event_id, seq)
      SELECT json_extract(NEW.data, '$.eventId'), NEW.seq WHERE json_type(NEW.data, '$.eventId') = 'text'
      UNION SELECT value, NEW.seq FROM json_each(NEW.data, '$.eventIds') WHERE type = 'text';
  END;
  INSERT OR IGNORE INTO audit_events (event_id, seq)
    SELECT json_extract(data, '$.eventId'), seq FROM audit WHERE json_valid(data) AND json_type(data, '$.eventId') = 'text';
  INSERT OR IGNORE INTO audit_events (event_id, seq)
    SELECT j.value, a.seq FROM audit a, json_each(a.data, '$.eventIds') j WHERE json_valid(a.data) AND j.type = 'text';
  `,
  // 6: on-call (contract §17.4): pages and their timers, the notification outbox, overrides, silences, heartbeats.
  ONCALL_MIGRATION,
  // 7: events may be `suppressed` (contract §17.8): the events table rebuilt with the wider CHECK; schedule handoff timers (§17.6).
  SUPPRESSED_STATUS_MIGRATION,
  // 8: open pages by agent and state (svc_pages_open, /status), counted about once a second, from an
  // index of the open pages alone: the count read every open page's row, body and all (≈30 ms on the
  // reader thread at 10,000 open pages, the reads queued behind it waiting); now ≈1 ms of index.
  OPEN_PAGE_COUNTS_INDEX,
  // 9: where a Telegram bot's getUpdates goes on from (contract §21.5), kept by the leader that polls.
  POLL_OFFSETS_TABLE,
  // 10: what pages' answers rest on (issue 33): each incident key's latest resolve, in receive order.
  ONCALL_INTEGRITY_MIGRATION,
  // 11: receipts kept with their pages while the vendor repeats the message (contract §21.3, Pushover's emergency priority).
  RECEIPTS_MIGRATION,
  // 12: each outbox row's channel, and a page's pending notifications in order, read by each claim of the outbox (store/outbox-order.ts).
  OUTBOX_ORDER_INDEX,
  // 13: reports (contract §23): each page row's report line in an index, and the pages of a window without their bodies.
  REPORT_MIGRATION,
  // 14: the report cache's checkpoint (contract §23.2): each kept page's folded facts and the seq they are folded through.
  REPORT_FACTS_MIGRATION,
];

/**
 * Why this process never opens the store file, its -wal or its -shm with anything but SQLite: SQLite's
 * WAL mode rests on each connection's POSIX locks on the database file, and POSIX locks belong to the
 * process and are all dropped when the process closes *any* descriptor of that file. An `fs` open and
 * close (a header check before a reader's open) silently unlocked every connection of the daemon; an
 * outside read-write client (the `sqlite3` shell, a `.backup` cron job) then believed it was the last
 * one, checkpointed, unlinked the WAL and the acknowledged events in it were gone (docs/faults.md).
 * SQLite itself keeps a closed connection's descriptor open while another connection of the process
 * holds locks on the file, so every look at the file here goes through a connection.
 */

/** SQLite's error code for a file that is not a database. */
const NOT_A_DATABASE = 'SQLITE_NOTADB';

/**
 * Reads the schema through `db`, so SQLite checks the file's header: a file that is not a database
 * is refused before anything writes to it (contract §11.5: a wrong `$SVC_HOME` must not turn someone's
 * file into a store). An empty file passes: it becomes the store.
 */
function refuseNonDatabase(db: Database.Database, path: string): void {
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (err) {
    if ((err as { code?: unknown }).code === NOT_A_DATABASE) {
      throw new RuntimeError('ESTORE_NOT_DATABASE', `the store ${path} is not an SQLite database; refusing to open it (the file is left untouched)`);
    }
    throw err;
  }
}

/**
 * Notes whether the store file has a -wal or -shm now; the function returned removes the ones a
 * read-only look created, once that look's connections are closed. A read-only connection to a WAL
 * file creates an empty -wal and a -shm it cannot remove itself: a stopped daemon's store is left as
 * it was found. (A running daemon's store has both: nothing is removed.)
 */
export function sideFilesLeftAsFound(path: string): () => void {
  const [wal, shm] = [`${path}-wal`, `${path}-shm`];
  const hadSideFiles = existsSync(wal) || existsSync(shm);
  return () => {
    if (!hadSideFiles && existsSync(wal) && statSync(wal).size === 0) {
      for (const f of [wal, shm]) rmSync(f, { force: true });
    }
  };
}

/**
 * What `svc check` and the offline commands ask before they start anything: nothing when there is no
 * file yet, else the file must be a database (ESTORE_NOT_DATABASE) — asked through SQLite (see above).
 */
export function checkStoreFile(path: string): void {
  if (!existsSync(path)) return;
  const leaveAsFound = sideFilesLeftAsFound(path);
  try {
    openReadOnly(path).close();
  } finally {
    leaveAsFound();
  }
}

/** Opens the store file for writing, creating it (0600) and migrating its schema. */
export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Payloads may be sensitive: a new file is created 0600 (SQLite gives -wal/-shm the same mode).
    // 'wx' opens only a file that did not exist, so no connection of this process can have it open.
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const db = new Database(path, { timeout: 5000 });
  try {
    refuseNonDatabase(db, path);
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before ingest answers 202, even across power loss (contract §9.3).
    db.pragma('synchronous = FULL');
    // Savepoint and statement journals in memory: on disk (SQLite's default, a temp file under
    // /var/tmp) every page a savepoint first touches was written there once more — 16 page writes per
    // ingest, 9 in 10 of the writer's writes (strace, docs/performance.md). They are never fsynced and
    // mean nothing after a crash: durability is the WAL's.
    db.pragma('temp_store = MEMORY');
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
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 5000 });
  } catch (err) {
    throw new RuntimeError('ESTORE_OPEN', `cannot open the store ${path}: ${(err as { code?: unknown }).code === 'SQLITE_CANTOPEN' ? 'no such file, or not readable' : errorText(err)}`);
  }
  try {
    refuseNonDatabase(db, path);
    db.pragma('busy_timeout = 5000');
  } catch (err) {
    db.close();
    throw err;
  }
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
  // A table rebuild (7) drops a table others refer to: foreign keys are off while migrations run (the
  // pragma is a no-op inside a transaction) and checked before the transaction commits.
  db.pragma('foreign_keys = OFF');
  try {
    // IMMEDIATE, so two processes opening a fresh file cannot both create the schema.
    db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) {
        throw new RuntimeError('ESTORE_SCHEMA',
          `store schema version ${version} is newer than this svc understands (${MIGRATIONS.length})`);
      }
      for (const sql of MIGRATIONS.slice(version)) db.exec(sql);
      if (version === MIGRATIONS.length) return;
      const broken = db.pragma('foreign_key_check') as Array<{ table: string }>;
      if (broken.length > 0) throw new RuntimeError('ESTORE_SCHEMA', `migrating the store left ${broken.length} rows of ${broken[0]?.table} without their parent; nothing was changed`);
      db.pragma(`user_version = ${MIGRATIONS.length}`);
    }).immediate();
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
