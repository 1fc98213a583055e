import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { accept, ev, q, storeContract } from '../../../test/support/store-contract.js';
import { STORY_COLS, pageStoryFrom, storyFrom, timelineSql } from '../story-rows.js';
import { OPEN_PAGE_COUNTS_SQL } from './oncall-reader.js';
import { openDatabase } from './schema.js';
import { openSqliteStore } from './sqlite-store.js';

const T0 = Date.UTC(2026, 0, 1);
const root = mkdtempSync(join(tmpdir(), 'svc-sqlite-store-'));
// The contract's tests with the store's default settings share one file, emptied per test
// (test/support/shared-store.ts): a new file costs two threads and, on a loaded host, a second or
// more; none of those tests is about the file. Settings of a test's own get a file of their own.
const shared = sharedSqliteStore('svc-sqlite-contract-');
after(async () => {
  await shared.close();
  rmSync(root, { recursive: true, force: true });
});
let count = 0;
const freshPath = (): string => join(root, `db-${++count}`, 'svc.db');
let last = freshPath();

storeContract('sqlite store', {
  open: (opts) => {
    if (opts === undefined || Object.keys(opts).length === 0) {
      last = shared.path;
      return shared.fresh();
    }
    last = freshPath();
    return openSqliteStore({ path: last, ...opts });
  },
  openAgain: () => openSqliteStore({ path: last }),
  settings: () => ({ kind: 'sqlite', path: last, leaseMs: 60_000, retention: { eventsMs: null, deadLettersMs: null } }),
  tamperAudit: (seq, dataText = '{"tampered":true}') => {
    const db = new Database(last);
    try {
      db.prepare('UPDATE audit SET data = ? WHERE seq = ?').run(dataText, seq);
    } finally {
      db.close();
    }
    return Promise.resolve();
  },
  damageOncall: (table, key, body) => {
    edit(last, `UPDATE ${table} SET body = ? WHERE ${table === 'pages' ? 'id' : 'delivery_id'} = ?`, body, key);
    return Promise.resolve();
  },
  emptyTablesBut: (keep) => {
    const db = new Database(last);
    try {
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
      db.pragma('foreign_keys = OFF');
      for (const { name } of tables) if (!keep.includes(name)) db.exec(`DELETE FROM "${name}"`);
    } finally {
      db.close();
    }
    return Promise.resolve();
  },
  replicas: false,
});

/** Runs SQL on the store file behind the store's back, as an operator with the sqlite3 shell would. */
function edit(path: string, sql: string, ...params: unknown[]): void {
  const db = new Database(path);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

describe('sqlite store: the writer connection', () => {
  it('keeps temporary data (the savepoint journals of a group commit) in memory, not in a file per commit', () => {
    const path = freshPath();
    const db = openDatabase(path); // what the writer thread opens (store-worker.ts)
    try {
      assert.equal(db.pragma('temp_store', { simple: true }), 2); // 2 = MEMORY
      assert.equal(db.pragma('synchronous', { simple: true }), 2); // 2 = FULL: a 202 is on disk
    } finally {
      db.close();
    }
  });
});

describe('sqlite store: on-call reads', () => {
  it('counts open pages from the index of open pages alone, never their rows (their bodies made it ≈30 ms at 10,000)', () => {
    const db = openDatabase(':memory:');
    try {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${OPEN_PAGE_COUNTS_SQL}`).all() as Array<{ detail: string }>).map((r) => r.detail);
      assert.deepEqual(plan, ['SCAN pages USING COVERING INDEX pages_open_state']);
    } finally {
      db.close();
    }
  });

  it('a story and a page\'s timeline are searches of the indexes over what the rows name, never a scan of the chain', () => {
    const db = openDatabase(':memory:');
    try {
      const plan = (sql: string): string[] => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('x', 1) as Array<{ detail: string }>).map((r) => r.detail);
      assert.deepEqual(plan(`SELECT ${STORY_COLS} ${storyFrom('sqlite', '?')} LIMIT ?`).filter((d) => d.includes(' a ')),
        ['SEARCH a USING INDEX audit_event_ref (<expr>=?)']);
      assert.deepEqual(plan(`SELECT ${STORY_COLS} ${pageStoryFrom('sqlite', '?')} LIMIT ?`).filter((d) => d.includes(' a ')),
        ['SEARCH a USING INDEX audit_page_ref (<expr>=?)']);
      assert.deepEqual((db.prepare(`EXPLAIN QUERY PLAN ${timelineSql('sqlite', 'seq', '?')}`).all('x') as Array<{ detail: string }>).map((r) => r.detail),
        ['SEARCH audit USING INDEX audit_page_ref (<expr>=?)'], 'in seq order as the index keeps them');
    } finally {
      db.close();
    }
  });
});

describe('sqlite store: the file', () => {
  it('a file that is not a database is refused, named, and left untouched', async () => {
    const dir = join(root, 'notdb');
    mkdirSync(dir);
    const path = join(dir, 'svc.db');
    writeFileSync(path, 'these are my notes, not a database\n', { mode: 0o644 });
    const before = statSync(path);
    await assert.rejects(openSqliteStore({ path }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ESTORE_NOT_DATABASE');
      assert.match(err.message, new RegExp(path.replace(/[/.]/g, '\\$&')));
      return true;
    });
    assert.equal(readFileSync(path, 'utf8'), 'these are my notes, not a database\n');
    assert.equal(statSync(path).mtimeMs, before.mtimeMs);
    assert.equal(existsSync(`${path}-wal`), false);
  });

  it('is created 0600, and a store of schema version 2 is upgraded in place with its rows', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    const id = await accept(store);
    await store.close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
    // Back to what an svc of schema version 2 left on disk.
    const db = new Database(path);
    db.exec(`DROP INDEX events_claimable; DROP INDEX events_backlog;
      ALTER TABLE events DROP COLUMN owner; ALTER TABLE events DROP COLUMN lease_until_ms; ALTER TABLE events DROP COLUMN attempt;
      ALTER TABLE events DROP COLUMN due_ms; ALTER TABLE events DROP COLUMN delivery;
      DROP INDEX dead_letters_event; ALTER TABLE dead_letters DROP COLUMN replayed_ms; DROP TABLE write_probe;
      CREATE INDEX events_pending ON events (seq) WHERE status IN ('accepted', 'processing');
      DROP INDEX audit_event_ref; DROP INDEX audit_page_ref;
      DROP TABLE pages; DROP TABLE page_notifications; DROP TABLE oncall_overrides; DROP TABLE silences;
      DROP TABLE heartbeats; DROP TABLE schedule_handoffs; DROP TABLE incident_resolves; DROP TABLE answer_once; DROP TABLE poll_offsets; DROP TABLE page_receipts;
      DROP INDEX audit_report; DROP TABLE report_facts; DROP TABLE report_facts_mark;`);
    db.pragma('user_version = 2');
    db.close();
    const upgraded = await openSqliteStore({ path });
    const [claimed] = await upgraded.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 5, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 });
    assert.deepEqual([claimed?.event.id, claimed?.claim.attempt, claimed?.delivery], [id, 1, null]);
    assert.equal((await upgraded.verifyAudit()).ok, true);
    // The story is read from the rows already there.
    assert.deepEqual((await upgraded.eventStory(id)).map((r) => r.kind), ['event.accepted']);
    await upgraded.close();
    const check = new Database(path, { readonly: true });
    assert.equal(check.pragma('user_version', { simple: true }), 14);
    check.close();
  });

  it('a store of schema version 6 (events without `suppressed`) is rebuilt in place: rows, seq counter, indexes and foreign keys kept', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    const kept = await accept(store, ev({ fingerprint: 'fp-1' }), T0);
    const lettered = await accept(store, ev(), T0 + 1);
    const [c] = await store.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 1, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 + 2 });
    assert.ok(c !== undefined && c.event.id === kept);
    await store.completeEvents([{ claim: c.claim, outcome: 'processed', audit: [], delivery: '{"rounds":1}' }], T0 + 3);
    const [d] = await store.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 1, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 + 4 });
    assert.ok(d !== undefined && d.event.id === lettered);
    await store.completeEvents([{ claim: d.claim, outcome: 'dead-lettered', deadLetter: { reason: 'r', error: 'e', attempts: 1 }, audit: [] }], T0 + 5);
    const gone = await accept(store, ev(), T0 + 6);
    await store.close();
    // Back to what an svc of schema version 6 left: the narrow CHECK, and a newest event deleted (the counter is past every row).
    const db = new Database(path);
    db.pragma('foreign_keys = OFF');
    db.exec(`DELETE FROM events WHERE id = '${gone}'; DROP TABLE schedule_handoffs; DROP INDEX pages_open_state; DROP TABLE incident_resolves; DROP TABLE answer_once; DROP TABLE poll_offsets; DROP TABLE page_receipts; DROP INDEX page_notifications_page_pending;
      ALTER TABLE page_notifications DROP COLUMN channel_id;
      DROP INDEX audit_report; DROP INDEX pages_report; DROP TABLE report_facts; DROP TABLE report_facts_mark; DROP INDEX audit_event_ref; DROP INDEX audit_page_ref;
      CREATE TABLE audit_events (event_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (event_id, seq)) WITHOUT ROWID;
      CREATE TRIGGER audit_events_fill AFTER INSERT ON audit BEGIN SELECT 1; END;
      CREATE TABLE page_audit (page_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (page_id, seq)) WITHOUT ROWID;
      CREATE TABLE old AS SELECT * FROM events;
      DROP TABLE events;
      CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, ts_ms INTEGER NOT NULL, agent_id TEXT NOT NULL,
        source_id TEXT NOT NULL, kind TEXT NOT NULL, fingerprint TEXT,
        status TEXT NOT NULL CHECK (status IN ('accepted', 'processing', 'processed', 'dead-lettered')), payload TEXT NOT NULL,
        owner TEXT, lease_until_ms INTEGER, attempt INTEGER NOT NULL DEFAULT 0, due_ms INTEGER, delivery TEXT);
      INSERT INTO events SELECT * FROM old; DROP TABLE old;
      UPDATE sqlite_sequence SET seq = 3 WHERE name = 'events';
      CREATE INDEX events_agent_seq ON events (agent_id, seq); CREATE INDEX events_source_seq ON events (source_id, seq);
      CREATE INDEX events_kind_seq ON events (kind, seq); CREATE INDEX events_ts ON events (ts_ms);
      CREATE INDEX events_claimable ON events (agent_id, seq) WHERE status IN ('accepted', 'processing');
      CREATE INDEX events_backlog ON events (agent_id, source_id) WHERE status IN ('accepted', 'processing');
      PRAGMA user_version = 6;`);
    assert.throws(() => db.prepare(`UPDATE events SET status = 'suppressed' WHERE id = ?`).run(kept), /CHECK constraint failed/);
    const rowsBefore = db.prepare('SELECT * FROM events ORDER BY seq').all();
    db.close();

    const upgraded = await openSqliteStore({ path });
    await upgraded.oncall.addSilence({ id: 's1', agentId: null, matchers: [], startsAtMs: T0, endsAtMs: T0 + 1e9, reason: 'x', createdBy: 'cli:t' }, T0);
    await upgraded.oncall.addSilence({ id: 's2', agentId: null, matchers: [{ label: 'alertname', op: '=', value: 'A' }], startsAtMs: T0,
      endsAtMs: T0 + 1e9, reason: 'x', createdBy: 'cli:t' }, T0);
    const r = await upgraded.ingestEvent(ev({ payloadText: '{"status":"firing","alerts":[{"labels":{"alertname":"A"}}]}' }), T0 + 10);
    assert.equal(r.outcome === 'accepted' && r.event.status, 'suppressed');
    assert.equal((await upgraded.verifyAudit()).ok, true);
    await upgraded.close();

    const after = new Database(path);
    try {
      assert.equal(after.pragma('user_version', { simple: true }), 14);
      const rows = after.prepare('SELECT * FROM events ORDER BY seq').all() as Array<{ seq: number; status: string }>;
      assert.deepEqual(rows.slice(0, -1), rowsBefore, 'every column of every row as it was');
      assert.equal(rows.at(-1)?.seq, 4, 'a seq once handed out (3, deleted) is never handed out again');
      const indexes = (after.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name`)
        .all() as Array<{ name: string }>).map((x) => x.name);
      assert.deepEqual(indexes, ['events_agent_seq', 'events_backlog', 'events_claimable', 'events_kind_seq', 'events_source_seq', 'events_status_seq', 'events_ts']);
      assert.deepEqual(after.pragma('foreign_key_check'), []);
      after.pragma('foreign_keys = ON');
      assert.throws(() => after.prepare(`INSERT INTO fingerprints (agent_id, source_id, fingerprint, event_id, seen_ms) VALUES ('a', 's', 'f', 'nope', 1)`).run(),
        /FOREIGN KEY constraint failed/, 'fingerprints still refer to the rebuilt events');
      assert.deepEqual((after.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).all() as Array<{ name: string }>).map((x) => x.name),
        [], 'no index table beside the chain: stories and timelines are read from its rows');
    } finally {
      after.close();
    }
  });

  it('a schema newer than this svc is refused', async () => {
    const path = freshPath();
    await (await openSqliteStore({ path })).close();
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    await assert.rejects(openSqliteStore({ path }), /schema version 99 is newer/);
  });

  it('a backup taken while writes go on is a store of its own that verifies', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    for (let i = 0; i < 200; i++) await accept(store, ev({ payloadText: `{"i":${i}}` }), T0 + i);
    const copy = join(root, `backup-${count}.db`);
    const writes = Promise.all(Array.from({ length: 100 }, (_, i) => accept(store, ev(), T0 + 1000 + i)));
    const { bytes } = await store.backup(copy);
    await writes;
    await store.close();
    assert.ok(bytes > 0 && statSync(copy).size === bytes);
    const restored = await openSqliteStore({ path: copy });
    const v = await restored.verifyAudit();
    assert.equal(v.ok, true);
    assert.ok(v.checked >= 200, `the copy holds at least what was there when it started (${v.checked})`);
    await restored.close();
  });
});

describe('sqlite store: rows that cannot be decoded', () => {
  it('are listed with corrupt: true and their readable fields; the rest of the page is intact', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    const good = await accept(store, ev({ payloadText: '{"ok":true}' }));
    const bad = await accept(store);
    const typeBad = await accept(store);
    edit(path, "UPDATE events SET payload = '{\"half\": ' WHERE id = ?", bad);
    edit(path, 'UPDATE events SET ts_ms = ? WHERE id = ?', 'yesterday', typeBad);
    const items = (await store.listEvents(q({ order: 'asc' }), {})).items;
    assert.deepEqual(items.map((e) => [e.id, e.corrupt ?? false, e.payloadText]),
      [[good, false, '{"ok":true}'], [bad, true, null], [typeBad, true, '{"n":1}']]);
    assert.equal(items[2]?.ts, '');
    edit(path, "UPDATE audit SET data = 'not json' WHERE seq = 2");
    const audit = (await store.listAudit(q({ order: 'asc' }), {})).items;
    assert.deepEqual(audit.map((r) => [r.seq, r.corrupt ?? false, r.dataText === null]), [[1, false, false], [2, true, true], [3, false, false]]);
    const v = await store.verifyAudit();
    assert.deepEqual([v.ok, v.firstBadSeq, v.problem], [false, 2, 'hash-mismatch']);
    await store.close();
  });
});

describe('read-only store (offline verification and backup)', () => {
  const digest = async (path: string): Promise<string> => (await import('node:crypto')).createHash('sha256').update(readFileSync(path)).digest('hex');
  const filesBeside = async (path: string): Promise<string[]> => (await import('node:fs')).readdirSync(join(path, '..')).sort();

  it('verifies a backup of an older schema without changing a byte, and names the first bad seq', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    for (let i = 0; i < 30; i++) await store.appendAudit({ kind: 'test.row', actor: 't', agentId: null, data: { i } }, T0 + i);
    const backup = join(root, `backup-${++count}.db`);
    await store.backup(backup);
    await store.close();
    // Make the copy look like schema version 1: the later migrations' objects gone.
    const db = new Database(backup);
    db.exec('DROP TABLE audit_export_cursors; DROP TABLE write_probe; DROP INDEX events_backlog; PRAGMA user_version = 1');
    db.close();
    const before = await digest(backup);
    const ro = await openSqliteStore({ path: backup, readOnly: true });
    const ok = await ro.verifyAudit();
    assert.equal(ok.ok, true);
    assert.equal(ok.headSeq, 30);
    await assert.rejects(ro.appendAudit({ kind: 'x', actor: 'x', agentId: null, data: {} }, T0), /read-only/);
    await ro.close();
    assert.equal(await digest(backup), before, 'verification changed the file');
    assert.deepEqual([existsSync(`${backup}-wal`), existsSync(`${backup}-shm`), existsSync(`${backup}-journal`)], [false, false, false]);

    edit(backup, "UPDATE audit SET data = '{\"i\":99}' WHERE seq = 17");
    const tampered = await openSqliteStore({ path: backup, readOnly: true });
    const bad = await tampered.verifyAudit();
    await tampered.close();
    assert.equal(bad.ok, false);
    assert.equal(bad.firstBadSeq, 17);
    assert.equal(bad.problem, 'hash-mismatch');
  });

  it('a backup is one self-contained file; a stopped store is left as found; a missing or foreign file is refused', async () => {
    const path = freshPath();
    const store = await openSqliteStore({ path });
    await store.ingestEvent(ev({ fingerprint: 'fp-1' }), T0);
    const backup = join(root, `self-${++count}.db`);
    await store.backup(backup);
    await store.close();
    assert.equal(existsSync(`${backup}-wal`), false);
    assert.equal(new Database(backup, { readonly: true }).pragma('journal_mode', { simple: true }), 'delete');
    const before = await filesBeside(path);
    const ro = await openSqliteStore({ path, readOnly: true });
    assert.equal((await ro.listEvents(q(), {})).items.length, 1);
    const copy = join(root, `offline-${++count}.db`);
    await ro.backup(copy);
    await ro.close();
    assert.deepEqual(await filesBeside(path), before);
    const again = await openSqliteStore({ path: copy, readOnly: true });
    assert.equal((await again.listEvents(q(), {})).items.length, 1);
    await again.close();
    await assert.rejects(openSqliteStore({ path: join(root, 'nope.db'), readOnly: true }), /no store file/);
    const foreign = join(root, `foreign-${++count}.db`);
    writeFileSync(foreign, 'hello, not a database');
    await assert.rejects(openSqliteStore({ path: foreign, readOnly: true }), /not an SQLite database/);
  });
});
