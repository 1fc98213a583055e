/**
 * Migration 7 of the SQLite store: events may be `suppressed` (contract §17.8), and each schedule
 * gets its handoff timer (§17.6). SQLite cannot alter a
 * CHECK constraint, so the table is rebuilt the way SQLite's documentation prescribes (create the new
 * table, copy, drop the old, rename the new; schema.ts runs it with foreign keys off and checks them
 * before commit): every column and row is copied as it was, seq included, and the AUTOINCREMENT
 * counter is carried over so a seq once handed out (a cursor may hold it) is never handed out again.
 * The indexes are created again as migrations 1 and 3 left them. No trigger is on events (the story
 * trigger of migration 5 is on audit), and dead_letters and fingerprints keep referring to `events`
 * by name, which is the rebuilt table once it is renamed.
 */
export const SUPPRESSED_STATUS_MIGRATION = `
  CREATE TABLE events_new (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    ts_ms          INTEGER NOT NULL,
    agent_id       TEXT NOT NULL,
    source_id      TEXT NOT NULL,
    kind           TEXT NOT NULL,
    fingerprint    TEXT,
    status         TEXT NOT NULL CHECK (status IN ('accepted', 'processing', 'processed', 'dead-lettered', 'suppressed')),
    payload        TEXT NOT NULL,
    owner          TEXT,
    lease_until_ms INTEGER,
    attempt        INTEGER NOT NULL DEFAULT 0,
    due_ms         INTEGER,
    delivery       TEXT
  );
  INSERT INTO events_new (seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, owner, lease_until_ms, attempt, due_ms, delivery)
    SELECT seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, owner, lease_until_ms, attempt, due_ms, delivery FROM events ORDER BY seq;
  DELETE FROM sqlite_sequence WHERE name = 'events_new';
  INSERT INTO sqlite_sequence (name, seq) SELECT 'events_new', seq FROM sqlite_sequence WHERE name = 'events';
  DROP TABLE events;
  ALTER TABLE events_new RENAME TO events;
  CREATE INDEX events_agent_seq ON events (agent_id, seq);
  CREATE INDEX events_source_seq ON events (source_id, seq);
  CREATE INDEX events_kind_seq ON events (kind, seq);
  CREATE INDEX events_ts ON events (ts_ms);
  CREATE INDEX events_claimable ON events (agent_id, seq) WHERE status IN ('accepted', 'processing');
  CREATE INDEX events_backlog ON events (agent_id, source_id) WHERE status IN ('accepted', 'processing');
  CREATE INDEX events_status_seq ON events (status, seq);

  -- Each schedule's handoff timer (§17.6 schedule.handoff): when its answer next changes; null: not within the horizon.
  CREATE TABLE schedule_handoffs (
    agent_id    TEXT NOT NULL,
    schedule_id TEXT NOT NULL,
    next_ms     INTEGER,
    PRIMARY KEY (agent_id, schedule_id)
  );
`;
