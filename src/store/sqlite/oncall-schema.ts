/**
 * The SQLite tables of on-call (contract §17.4), one migration step of schema.ts. A page is a row with
 * its record as JSON (`body`) and the columns the queries need beside it: the open-key index makes a
 * second open page for one incident impossible, `due_ms` is the timer queue (the earliest of the
 * page's timers), `version` fences plans. Notifications are an outbox the page notifier drains.
 */
export const ONCALL_MIGRATION = `
  CREATE TABLE pages (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    ts_ms        INTEGER NOT NULL,
    agent_id     TEXT NOT NULL,
    incident_key TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('triggered', 'acknowledged', 'resolved')),
    policy_id    TEXT NOT NULL,
    due_ms       INTEGER,
    timer_owner  TEXT,
    timer_lease_ms INTEGER,
    version      INTEGER NOT NULL,
    body         TEXT NOT NULL
  );
  CREATE UNIQUE INDEX pages_open_key ON pages (agent_id, incident_key) WHERE state <> 'resolved';
  CREATE INDEX pages_key_seq ON pages (agent_id, incident_key, seq);
  CREATE INDEX pages_due ON pages (due_ms) WHERE due_ms IS NOT NULL;
  CREATE INDEX pages_agent_seq ON pages (agent_id, seq);
  CREATE INDEX pages_state_seq ON pages (state, seq);
  CREATE INDEX pages_policy_seq ON pages (policy_id, seq);
  CREATE INDEX pages_ts ON pages (ts_ms);

  CREATE TABLE page_audit (
    page_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (page_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE page_notifications (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id   TEXT NOT NULL UNIQUE,
    page_id       TEXT,
    agent_id      TEXT NOT NULL,
    kind          TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'cancelled', 'failed')),
    created_ms    INTEGER NOT NULL,
    not_before_ms INTEGER NOT NULL,
    owner         TEXT,
    attempt       INTEGER NOT NULL DEFAULT 0,
    error         TEXT,
    body          TEXT NOT NULL
  );
  CREATE INDEX page_notifications_pending ON page_notifications (not_before_ms) WHERE status = 'pending';

  CREATE TABLE oncall_overrides (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    schedule_id TEXT NOT NULL,
    person_id   TEXT NOT NULL,
    from_ms     INTEGER NOT NULL,
    to_ms       INTEGER NOT NULL,
    created_ms  INTEGER NOT NULL,
    created_by  TEXT NOT NULL
  );
  CREATE INDEX oncall_overrides_to ON oncall_overrides (to_ms);

  CREATE TABLE silences (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    agent_id   TEXT,
    matchers   TEXT NOT NULL,
    starts_ms  INTEGER NOT NULL,
    ends_ms    INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    created_by TEXT NOT NULL,
    expired_ms INTEGER
  );
  CREATE INDEX silences_ends ON silences (ends_ms);

  CREATE TABLE heartbeats (
    agent_id     TEXT NOT NULL,
    heartbeat_id TEXT NOT NULL,
    last_seen_ms INTEGER NOT NULL,
    PRIMARY KEY (agent_id, heartbeat_id)
  );
`;

/** Migration 9: where each vendor update feed is read from next (a Telegram bot's getUpdates offset, §21.5). */
export const POLL_OFFSETS_TABLE = `
  CREATE TABLE poll_offsets (
    feed        TEXT PRIMARY KEY,
    next_offset INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

/** Migration 8: what openPageCounts reads (oncall-reader.ts), the open pages' agent and state only. */
export const OPEN_PAGE_COUNTS_INDEX = `
  CREATE INDEX pages_open_state ON pages (agent_id, state) WHERE state <> 'resolved';
`;

/**
 * Migration 10 (issue 33), what pages' answers and stories rest on:
 * - the latest resolve of each incident key, by the receive order (events.seq) of the event that
 *   resolved it, so a firing received before it cannot open a page after it however late its triage
 *   ends (store.ts noteResolve, PagePlan.firingEventId);
 * - an event's story and a page's timeline read from the hashed rows themselves (../story-rows.ts):
 *   the unhashed tables audit_events and page_audit (and the trigger filling the first) give way to
 *   indexes of the audit table over the `eventId` and `pageId` its rows' data name — the expressions
 *   are namesRef's, which the queries use, so each lookup is an index search;
 * - the requests already answered while a replay of them could still arrive (store.ts claimOnce: a
 *   signed Slack click is valid for 300 s, and acting twice escalates twice).
 */
export const ONCALL_INTEGRITY_MIGRATION = `
  CREATE TABLE incident_resolves (
    agent_id     TEXT NOT NULL,
    incident_key TEXT NOT NULL,
    event_seq    INTEGER NOT NULL,
    event_id     TEXT NOT NULL,
    ts_ms        INTEGER NOT NULL,
    PRIMARY KEY (agent_id, incident_key)
  ) WITHOUT ROWID;
  CREATE INDEX incident_resolves_ts ON incident_resolves (ts_ms);

  DROP TRIGGER audit_events_fill;
  DROP TABLE audit_events;
  DROP TABLE page_audit;
  CREATE INDEX audit_event_ref ON audit (json_extract(data, '$.eventId')) WHERE json_valid(data) AND json_type(data, '$.eventId') = 'text';
  CREATE INDEX audit_page_ref ON audit (json_extract(data, '$.pageId')) WHERE json_valid(data) AND json_type(data, '$.pageId') = 'text';

  CREATE TABLE answer_once (
    key      TEXT PRIMARY KEY,
    until_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX answer_once_until ON answer_once (until_ms);
`;

/**
 * Migration 12: the outbox knows each row's channel (rows written before have none: they are read
 * from their body), and a page's pending notifications are indexed in order. A claim of the outbox
 * passes over the channels its sender has no room for in SQL, and reads each page's pending rows to
 * keep one page's messages to a channel in order (store/outbox-order.ts).
 */
export const OUTBOX_ORDER_INDEX = `
  ALTER TABLE page_notifications ADD COLUMN channel_id TEXT;
  CREATE INDEX page_notifications_page_pending ON page_notifications (page_id, seq) WHERE status = 'pending';
`;
