/**
 * The PostgreSQL schema and its migrations (contract §16.5). Every replica runs `migrate` at startup:
 * one transaction under a transaction-level advisory lock, so replicas starting together apply each
 * migration once; `schema_version` records how many have been applied. A replica that finds a newer
 * version than it knows refuses to start rather than write rows an older svc does not understand.
 *
 * Text, never jsonb: payloads and audit data are stored as the exact text that was verified and
 * hashed (jsonb would reorder keys and drop whitespace, and the chain would no longer verify).
 */
import type pg from 'pg';
import { GENESIS_HASH } from '../../audit/chain.js';
import { RuntimeError } from '../../core/errors.js';
import { PG_ONCALL_INTEGRITY_MIGRATION, PG_ONCALL_MIGRATION, PG_OUTBOX_ORDER_INDEX, PG_POLL_OFFSETS_TABLE } from './oncall.js';
import { PG_RECEIPTS_MIGRATION } from './receipts.js';
import { PG_REPORT_FACTS_MIGRATION } from './report-facts.js';
import { PG_REPORT_MIGRATION } from './report-reads.js';

/** Key of the advisory lock migrations run under ("svc-mig" in ASCII). */
export const MIGRATION_LOCK = 0x7376632d6d6967n;

/** One entry per schema version. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE events (
    seq            bigint PRIMARY KEY,
    id             text NOT NULL UNIQUE,
    ts_ms          bigint NOT NULL,
    agent_id       text NOT NULL,
    source_id      text NOT NULL,
    kind           text NOT NULL,
    fingerprint    text,
    status         text NOT NULL CHECK (status IN ('accepted', 'processing', 'processed', 'dead-lettered')),
    payload        text NOT NULL,
    owner          text,
    lease_until_ms bigint,
    attempt        integer NOT NULL DEFAULT 0
  );
  CREATE INDEX events_agent_seq ON events (agent_id, seq);
  CREATE INDEX events_source_seq ON events (source_id, seq);
  CREATE INDEX events_kind_seq ON events (kind, seq);
  CREATE INDEX events_ts ON events (ts_ms);
  CREATE INDEX events_claimable ON events (agent_id, seq) WHERE status IN ('accepted', 'processing');
  CREATE INDEX events_done_ts ON events (ts_ms) WHERE status IN ('processed', 'dead-lettered');

  CREATE TABLE dead_letters (
    seq         bigint PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    ts_ms       bigint NOT NULL,
    agent_id    text NOT NULL,
    source_id   text NOT NULL,
    event_id    text NOT NULL,
    reason      text NOT NULL,
    error       text NOT NULL,
    attempts    integer NOT NULL,
    payload     text NOT NULL,
    replayed_ms bigint
  );
  CREATE INDEX dead_letters_agent_seq ON dead_letters (agent_id, seq);
  CREATE INDEX dead_letters_source_seq ON dead_letters (source_id, seq);
  CREATE INDEX dead_letters_reason_seq ON dead_letters (reason, seq);
  CREATE INDEX dead_letters_ts ON dead_letters (ts_ms);
  CREATE INDEX dead_letters_event ON dead_letters (event_id);

  CREATE TABLE audit (
    seq       bigint PRIMARY KEY,
    ts        text NOT NULL,
    ts_ms     bigint NOT NULL,
    kind      text NOT NULL,
    actor     text NOT NULL,
    agent_id  text,
    data      text NOT NULL,
    prev_hash text NOT NULL,
    hash      text NOT NULL
  );
  CREATE INDEX audit_kind_seq ON audit (kind, seq);
  CREATE INDEX audit_agent_seq ON audit (agent_id, seq);
  CREATE INDEX audit_ts ON audit (ts_ms);

  CREATE TABLE fingerprints (
    agent_id    text NOT NULL,
    source_id   text NOT NULL,
    fingerprint text NOT NULL,
    event_id    text NOT NULL,
    seen_ms     bigint NOT NULL,
    PRIMARY KEY (agent_id, source_id, fingerprint)
  );
  CREATE INDEX fingerprints_seen ON fingerprints (seen_ms);

  -- The one row every write that appends to the audit chain locks first (FOR UPDATE): appends from
  -- all replicas are serialised on it, so seq is gapless, commit order is seq order, and the chain
  -- never forks. It also carries the last seq and ts of events and dead letters, which are only
  -- inserted under the same lock (ts non-decreasing in seq, as pages need).
  CREATE TABLE chain_head (
    id          integer PRIMARY KEY CHECK (id = 1),
    audit_seq   bigint NOT NULL,
    audit_hash  text NOT NULL,
    audit_ts_ms bigint,
    event_seq   bigint NOT NULL,
    event_ts_ms bigint,
    dl_seq      bigint NOT NULL,
    dl_ts_ms    bigint
  );
  INSERT INTO chain_head (id, audit_seq, audit_hash, event_seq, dl_seq) VALUES (1, 0, '${GENESIS_HASH}', 0, 0);

  CREATE TABLE audit_export_cursors (
    exporter_id text PRIMARY KEY,
    last_seq    bigint NOT NULL,
    updated_ms  bigint NOT NULL
  );

  -- The leader lease (contract §16.4): one row, held by one replica until until_ms.
  CREATE TABLE leader_lease (
    name     text PRIMARY KEY,
    holder   text NOT NULL,
    until_ms bigint NOT NULL
  );

  CREATE TABLE write_probe (id integer PRIMARY KEY CHECK (id = 1), at_ms bigint NOT NULL);
  `,
  // 2: a pager's patience. due_ms: an accepted event whose delivery failed waits for it before it is
  // claimed again (null: due now). delivery: what earlier rounds left, per channel, as the runtime
  // wrote it (runtime/dispatch/delivery-state.ts).
  `
  ALTER TABLE events ADD COLUMN due_ms bigint;
  ALTER TABLE events ADD COLUMN delivery text;
  `,
  // 3: the story of an event (contract §20.3): which audit rows concern which event, filled by a
  // trigger from the row's data (`eventId`, and each string of `eventIds`) as rows are appended
  // (however the writer batches them), and backfilled here. A story is then an index lookup whatever
  // the chain's length. jsonb refuses the \u0000 escape that text data may hold: it is read as
  // U+FFFD for this purpose only (the stored text, and so the hash, are untouched).
  `
  CREATE TABLE audit_events (
    event_id text NOT NULL,
    seq      bigint NOT NULL,
    PRIMARY KEY (event_id, seq)
  );
  CREATE FUNCTION audit_event_ids(data text) RETURNS SETOF text LANGUAGE sql IMMUTABLE AS $$
    WITH d AS (SELECT replace(data, '\\u0000', '\\ufffd')::jsonb AS j)
    SELECT j ->> 'eventId' FROM d WHERE jsonb_typeof(j -> 'eventId') = 'string'
    UNION
    SELECT e FROM d, jsonb_array_elements_text(CASE WHEN jsonb_typeof(j -> 'eventIds') = 'array' THEN j -> 'eventIds' ELSE '[]'::jsonb END) e
      WHERE e IS NOT NULL
  $$;
  CREATE FUNCTION audit_events_fill() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO audit_events (event_id, seq) SELECT id, NEW.seq FROM audit_event_ids(NEW.data) id ON CONFLICT DO NOTHING;
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER audit_events_fill AFTER INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_events_fill();
  INSERT INTO audit_events (event_id, seq) SELECT id, a.seq FROM audit a, audit_event_ids(a.data) id ON CONFLICT DO NOTHING;
  `,
  // 4: on-call (contract §17.4): pages and their timers, the notification outbox, overrides, silences, heartbeats.
  PG_ONCALL_MIGRATION,
  // 5: events may be \`suppressed\` (contract §17.8), and schedules get their handoff timers (§17.6): stored finished because every alert matched a live
  // silence. The CHECK is widened in place; retention's partial index covers the new finished status.
  `
  ALTER TABLE events DROP CONSTRAINT events_status_check;
  ALTER TABLE events ADD CONSTRAINT events_status_check
    CHECK (status IN ('accepted', 'processing', 'processed', 'dead-lettered', 'suppressed'));
  DROP INDEX events_done_ts;
  CREATE INDEX events_done_ts ON events (ts_ms) WHERE status IN ('processed', 'dead-lettered', 'suppressed');
  CREATE INDEX events_status_seq ON events (status, seq);
  -- Each schedule's handoff timer (§17.6 schedule.handoff): when its answer next changes; null: not within the horizon.
  CREATE TABLE schedule_handoffs (
    agent_id    text NOT NULL,
    schedule_id text NOT NULL,
    next_ms     bigint,
    PRIMARY KEY (agent_id, schedule_id)
  );
  `,
  // 6: where a Telegram bot's getUpdates goes on from (contract §21.5), kept by the leader that polls.
  PG_POLL_OFFSETS_TABLE,
  // 7: what pages' answers rest on (issue 33): each incident key's latest resolve, in receive order.
  PG_ONCALL_INTEGRITY_MIGRATION,
  // 8: receipts kept with their pages while the vendor repeats the message (contract §21.3, Pushover's emergency priority).
  PG_RECEIPTS_MIGRATION,
  // 9: each outbox row's channel, and a page's pending notifications in order, read by each claim of the outbox (store/outbox-order.ts).
  PG_OUTBOX_ORDER_INDEX,
  // 10: reports (contract §23): the page kinds' audit rows in seq order, the window's pages without their bodies.
  PG_REPORT_MIGRATION,
  // 11: the report cache's checkpoint (contract §23.2): each kept page's folded facts and the seq they are folded through.
  PG_REPORT_FACTS_MIGRATION,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to this svc's schema, or refuses a newer one. Runs in one transaction under
 * an advisory lock: DDL is transactional in PostgreSQL, so a failed migration leaves nothing behind.
 */
export async function migrate(client: pg.ClientBase): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_version (
      id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`);
    const rows = (await client.query<{ version: number }>('SELECT version FROM schema_version WHERE id = 1')).rows;
    const from = rows[0]?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new RuntimeError('ESTORE_SCHEMA',
        `store schema version ${from} is newer than this svc understands (${SCHEMA_VERSION}); upgrade svc on this replica`);
    }
    for (const sql of MIGRATIONS.slice(from)) await client.query(sql);
    if (from !== SCHEMA_VERSION) {
      await client.query(`INSERT INTO schema_version (id, version) VALUES (1, $1)
        ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = now()`, [SCHEMA_VERSION]);
    }
    await client.query('COMMIT');
    return { from, to: SCHEMA_VERSION };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
