/**
 * The embedded store (contract §1): one SQLite file in WAL mode holding events, dead letters, the
 * audit chain and the idempotency fingerprints. better-sqlite3 is synchronous; the methods return
 * promises only to fill the async `Store` shape.
 */
import type { AuditRow, NewAuditEntry, StoredAuditRow } from '../audit/audit-row.js';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { canonicalJson, GENESIS_HASH, hashRow } from '../audit/chain.js';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from './cursor.js';
import { STORED_AUDIT_COLS } from './sqlite-audit-reader.js';
import { openDatabase } from './sqlite-schema.js';
import type { AuditFilter, DeadLetterFilter, DeadLetterRecord, EventFilter, EventRecord, EventStatus, IngestResult, NewDeadLetter, NewEvent, Page, PageQuery, Store } from './store.js';

// Re-exported: callers that only know the SQLite store import it from here.
export { InvalidCursorError };

export interface SqliteStoreOptions {
  path: string;
  clock: Clock;
}

/** Expired fingerprints are pruned on the first ingest after open and then every this many. */
const PRUNE_EVERY = 1000;
/** Rows deleted per prune, so one ingest never pays for a large backlog (it outpaces PRUNE_EVERY). */
const PRUNE_BATCH = 10_000;

interface EventRow {
  id: string; ts_ms: number; agent_id: string; source_id: string; kind: string;
  fingerprint: string | null; status: EventStatus; payload: string;
}
interface DeadLetterRow {
  id: string; ts_ms: number; agent_id: string; source_id: string; event_id: string;
  reason: string; error: string; attempts: number; payload: string;
}
interface AuditDbRow {
  seq: number; ts: string; kind: string; actor: string; agent_id: string | null;
  data: string; prev_hash: string; hash: string;
}
interface Seq { seq: number }

const EVENT_COLS = 'seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload';
const DEAD_LETTER_COLS = 'seq, id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload';
const AUDIT_COLS = 'seq, ts, kind, actor, agent_id, data, prev_hash, hash';

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id, ts: isoTs(r.ts_ms), agentId: r.agent_id, sourceId: r.source_id, kind: r.kind,
  fingerprint: r.fingerprint, status: r.status, payload: JSON.parse(r.payload) as unknown,
});
const toDeadLetter = (r: DeadLetterRow): DeadLetterRecord => ({
  id: r.id, ts: isoTs(r.ts_ms), agentId: r.agent_id, sourceId: r.source_id, eventId: r.event_id,
  reason: r.reason, error: r.error, attempts: r.attempts, payload: JSON.parse(r.payload) as unknown,
});
const toAudit = (r: AuditDbRow): AuditRow => ({
  seq: r.seq, ts: r.ts, kind: r.kind, actor: r.actor, agentId: r.agent_id,
  data: JSON.parse(r.data) as Record<string, unknown>, prevHash: r.prev_hash, hash: r.hash,
});

/** JSON text of a payload; `undefined` (no JSON form) is stored as null. */
const payloadText = (payload: unknown): string => JSON.stringify(payload) ?? 'null';

/** Runs synchronous work as a promise, so a throw becomes a rejection. */
const run = <T>(work: () => T): Promise<T> => new Promise<T>((resolve) => { resolve(work()); });

type Table = 'events' | 'dead_letters' | 'audit';

export function openSqliteStore(opts: SqliteStoreOptions): Store {
  const { clock } = opts;
  const db = openDatabase(opts.path);

  const st = {
    findFingerprint: db.prepare<[string, string, string], { event_id: string; seen_ms: number }>(
      'SELECT event_id, seen_ms FROM fingerprints WHERE agent_id = ? AND source_id = ? AND fingerprint = ?'),
    upsertFingerprint: db.prepare<[string, string, string, string, number]>(
      `INSERT INTO fingerprints (agent_id, source_id, fingerprint, event_id, seen_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (agent_id, source_id, fingerprint) DO UPDATE SET event_id = excluded.event_id, seen_ms = excluded.seen_ms`),
    pruneFingerprints: db.prepare<[number, number]>(
      `DELETE FROM fingerprints WHERE rowid IN
         (SELECT rowid FROM fingerprints WHERE seen_ms <= ? ORDER BY seen_ms LIMIT ?)`),
    lastEventTs: db.prepare<[], { ts_ms: number }>('SELECT ts_ms FROM events ORDER BY seq DESC LIMIT 1'),
    insertEvent: db.prepare<[string, number, string, string, string, string | null, EventStatus, string]>(
      `INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    pendingEvents: db.prepare<[], EventRow>(
      `SELECT ${EVENT_COLS} FROM events WHERE status IN ('accepted', 'processing') ORDER BY seq`),
    setEventStatus: db.prepare<[EventStatus, string]>('UPDATE events SET status = ? WHERE id = ?'),
    lastDeadLetterTs: db.prepare<[], { ts_ms: number }>('SELECT ts_ms FROM dead_letters ORDER BY seq DESC LIMIT 1'),
    insertDeadLetter: db.prepare<[string, number, string, string, string, string, string, number, string]>(
      `INSERT INTO dead_letters (id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    auditHead: db.prepare<[], { seq: number; hash: string; ts_ms: number }>(
      'SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1'),
    insertAudit: db.prepare<[number, string, number, string, string, string | null, string, string, string]>(
      `INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    auditChunk: db.prepare<[number, number], AuditDbRow>(
      `SELECT ${AUDIT_COLS} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`),
    auditStoredChunk: db.prepare<[number, number], StoredAuditRow>(
      `SELECT ${STORED_AUDIT_COLS} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`),
    exportCursor: db.prepare<[string], { last_seq: number }>(
      'SELECT last_seq FROM audit_export_cursors WHERE exporter_id = ?'),
    // The WHERE keeps the max in one statement: no read-modify-write race with another process.
    advanceExportCursor: db.prepare<[string, number, number]>(
      `INSERT INTO audit_export_cursors (exporter_id, last_seq, updated_ms) VALUES (?, ?, ?)
       ON CONFLICT (exporter_id) DO UPDATE SET last_seq = excluded.last_seq, updated_ms = excluded.updated_ms
       WHERE excluded.last_seq > audit_export_cursors.last_seq`),
  };

  // Since/until become seq bounds through the ts_ms index, so a time-filtered page is a seq range
  // scan like any other. Exact because writes keep ts_ms non-decreasing in seq (see `stamp`).
  const tsBounds = Object.fromEntries((['events', 'dead_letters', 'audit'] as const).map((t) => [t, {
    low: db.prepare<[number], Seq>(`SELECT seq FROM ${t} WHERE ts_ms >= ? ORDER BY ts_ms ASC, seq ASC LIMIT 1`),
    high: db.prepare<[number], Seq>(`SELECT seq FROM ${t} WHERE ts_ms <= ? ORDER BY ts_ms DESC, seq DESC LIMIT 1`),
  }])) as Record<Table, { low: Database.Statement<[number], Seq>; high: Database.Statement<[number], Seq> }>;

  // One prepared statement per query shape (filters present, bounds, order): at most a few
  // hundred, each prepared on first use.
  const pageStatements = new Map<string, Database.Statement<unknown[], unknown>>();

  /**
   * Timestamp of a new row: the clock, but never earlier than the table's last row, so ts_ms is
   * non-decreasing in seq even when the wall clock steps back or two processes share the file.
   */
  const stamp = (lastMs: number | undefined): number => Math.max(clock.now(), lastMs ?? -Infinity);

  /** Appends one audit row; callers hold an IMMEDIATE transaction, so the head read is the head. */
  const appendAuditRow = (entry: NewAuditEntry): AuditRow => {
    const head = st.auditHead.get();
    const tsMs = stamp(head?.ts_ms);
    // Stored as its canonical text and hashed from that text parsed back, so what verify
    // recomputes from the stored row is exactly what was hashed here.
    const dataText = canonicalJson(entry.data);
    const unhashed = {
      seq: (head?.seq ?? 0) + 1,
      ts: isoTs(tsMs),
      kind: entry.kind,
      actor: entry.actor,
      agentId: entry.agentId,
      data: JSON.parse(dataText) as Record<string, unknown>,
      prevHash: head?.hash ?? GENESIS_HASH,
    };
    const hash = hashRow(unhashed.prevHash, unhashed);
    st.insertAudit.run(unhashed.seq, unhashed.ts, tsMs, unhashed.kind, unhashed.actor, unhashed.agentId,
      dataText, unhashed.prevHash, hash);
    return { ...unhashed, hash };
  };

  let ingestsUntilPrune = 0;
  let pruneWindowMs = 0;

  const ingestTx = db.transaction((e: NewEvent, windowMs: number): IngestResult => {
    const now = clock.now();
    if (e.fingerprint !== null) {
      const seen = st.findFingerprint.get(e.agentId, e.sourceId, e.fingerprint);
      if (seen !== undefined && seen.seen_ms > now - windowMs) return { outcome: 'duplicate', eventId: seen.event_id };
    }
    const id = randomUUID();
    const tsMs = stamp(st.lastEventTs.get()?.ts_ms);
    const payload = payloadText(e.payload);
    st.insertEvent.run(id, tsMs, e.agentId, e.sourceId, e.kind, e.fingerprint, 'accepted', payload);
    if (e.fingerprint !== null) st.upsertFingerprint.run(e.agentId, e.sourceId, e.fingerprint, id, now);
    appendAuditRow({ kind: 'event.accepted', actor: `source:${e.sourceId}`, agentId: e.agentId,
      data: { eventId: id, sourceId: e.sourceId, fingerprint: e.fingerprint } });
    const event: EventRecord = { id, ts: isoTs(tsMs), agentId: e.agentId, sourceId: e.sourceId, kind: e.kind,
      fingerprint: e.fingerprint, status: 'accepted', payload: JSON.parse(payload) as unknown };
    return { outcome: 'accepted', event };
  });

  const deadLetterTx = db.transaction((l: NewDeadLetter): DeadLetterRecord => {
    const id = randomUUID();
    const tsMs = stamp(st.lastDeadLetterTs.get()?.ts_ms);
    const payload = payloadText(l.payload);
    st.insertDeadLetter.run(id, tsMs, l.agentId, l.sourceId, l.eventId, l.reason, l.error, l.attempts, payload);
    const updated = st.setEventStatus.run('dead-lettered', l.eventId);
    if (updated.changes !== 1) throw new Error(`dead letter for unknown event ${l.eventId}`);
    appendAuditRow({ kind: 'event.dead-lettered', actor: `agent:${l.agentId}`, agentId: l.agentId,
      data: { eventId: l.eventId, deadLetterId: id, reason: l.reason, attempts: l.attempts } });
    return { id, ts: isoTs(tsMs), agentId: l.agentId, sourceId: l.sourceId, eventId: l.eventId, reason: l.reason,
      error: l.error, attempts: l.attempts, payload: JSON.parse(payload) as unknown };
  });

  const auditTx = db.transaction(appendAuditRow);

  const pruneTx = db.transaction((olderThanMs: number) => st.pruneFingerprints.run(olderThanMs, PRUNE_BATCH));

  /** Keyset page over `table`'s seq (contract §5): `limit + 1` rows tell whether a next page exists. */
  const page = <R extends { seq: number }, T>(
    table: Table, cols: string, filters: Array<[column: string, value: string | undefined]>,
    q: PageQuery, map: (row: R) => T,
  ): Page<T> => {
    if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new RangeError(`page limit must be a positive integer`);
    const where: string[] = [];
    const params: unknown[] = [];
    for (const [column, value] of filters) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    if (q.cursor !== null) {
      const c = decodeCursor(q.cursor);
      if (!c.ok) throw new InvalidCursorError('malformed');
      if (c.order !== q.order) throw new InvalidCursorError(`issued for order=${c.order}`);
      where.push(q.order === 'asc' ? 'seq > ?' : 'seq < ?');
      params.push(c.key);
    }
    if (q.sinceMs !== null) {
      const low = tsBounds[table].low.get(q.sinceMs);
      if (low === undefined) return { items: [], nextCursor: null };
      // The unary + keeps the planner on the seq range instead of the ts_ms index.
      where.push('seq >= ?', '+ts_ms >= ?');
      params.push(low.seq, q.sinceMs);
    }
    if (q.untilMs !== null) {
      const high = tsBounds[table].high.get(q.untilMs);
      if (high === undefined) return { items: [], nextCursor: null };
      where.push('seq <= ?', '+ts_ms <= ?');
      params.push(high.seq, q.untilMs);
    }
    const sql = `SELECT ${cols} FROM ${table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`
      + ` ORDER BY seq ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
    params.push(q.limit + 1);
    let stmt = pageStatements.get(sql);
    if (stmt === undefined) {
      stmt = db.prepare<unknown[], unknown>(sql);
      pageStatements.set(sql, stmt);
    }
    const rows = stmt.all(...params) as R[];
    const more = rows.length > q.limit;
    if (more) rows.length = q.limit;
    const last = rows[rows.length - 1];
    return {
      items: rows.map(map),
      nextCursor: more && last !== undefined ? encodeCursor({ key: last.seq, order: q.order }) : null,
    };
  };

  let closed = false;

  /**
   * Group commit. With `synchronous=FULL` every commit waits for an fsync, so one transaction per
   * webhook caps ingest at the disk's sync rate. Ingests that arrive in the same turn of the event
   * loop are written in one IMMEDIATE transaction instead: each inside its own savepoint (a nested
   * better-sqlite3 transaction), so one bad event fails alone, and every promise settles only after
   * the shared COMMIT — a 202 still means the event is on disk.
   */
  interface PendingIngest { event: NewEvent; windowMs: number; resolve: (r: IngestResult) => void; reject: (e: unknown) => void }
  let pending: PendingIngest[] = [];
  type Outcome = { ok: true; result: IngestResult } | { ok: false; error: unknown };
  const ingestBatchTx = db.transaction((items: PendingIngest[]): Outcome[] => items.map((item) => {
    try {
      return { ok: true, result: ingestTx(item.event, item.windowMs) };
    } catch (error) {
      return { ok: false, error };
    }
  }));
  const flushIngests = (): void => {
    const items = pending;
    pending = [];
    let outcomes: Outcome[];
    try {
      if (closed) throw new Error('store closed');
      outcomes = ingestBatchTx.immediate(items);
    } catch (err) {
      for (const item of items) item.reject(err); // nothing of the batch was committed
      return;
    }
    let accepted = 0;
    items.forEach((item, i) => {
      const outcome = outcomes[i] as Outcome;
      if (!outcome.ok) return item.reject(outcome.error);
      if (outcome.result.outcome === 'accepted') accepted += 1;
      pruneWindowMs = Math.max(pruneWindowMs, item.windowMs);
      item.resolve(outcome.result);
    });
    ingestsUntilPrune -= accepted;
    if (accepted > 0 && ingestsUntilPrune <= 0) {
      ingestsUntilPrune = PRUNE_EVERY;
      try {
        pruneTx.immediate(clock.now() - pruneWindowMs);
      } catch {
        // The events are committed; an expired fingerprint left behind is harmless (the window
        // check compares seen_ms), so a failed prune only postpones the cleanup.
      }
    }
  };

  return {
    kind: 'sqlite',

    ingestEvent: (event, windowMs) => new Promise<IngestResult>((resolve, reject) => {
      if (closed) return reject(new Error('store closed'));
      pending.push({ event, windowMs, resolve, reject });
      if (pending.length === 1) setImmediate(flushIngests);
    }),

    pendingEvents: () => run(() => st.pendingEvents.all().map(toEvent)),

    setEventStatus: (eventId, status) => run(() => {
      const { changes } = st.setEventStatus.run(status, eventId);
      if (changes !== 1) throw new Error(`unknown event ${eventId}`);
    }),

    addDeadLetter: (letter) => run(() => deadLetterTx.immediate(letter)),

    appendAudit: (entry) => run(() => auditTx.immediate(entry)),

    listEvents: (q, f: EventFilter) => run(() => page<EventRow & Seq, EventRecord>('events', EVENT_COLS,
      [['agent_id', f.agent], ['source_id', f.source], ['kind', f.kind]], q, toEvent)),

    listDeadLetters: (q, f: DeadLetterFilter) => run(() => page<DeadLetterRow & Seq, DeadLetterRecord>(
      'dead_letters', DEAD_LETTER_COLS, [['agent_id', f.agent], ['source_id', f.source], ['reason', f.reason]],
      q, toDeadLetter)),

    listAudit: (q, f: AuditFilter) => run(() => page<AuditDbRow, AuditRow>('audit', AUDIT_COLS,
      [['kind', f.kind], ['agent_id', f.agent]], q, toAudit)),

    auditChunk: (afterSeq, limit) => run(() => st.auditChunk.all(afterSeq, limit).map(toAudit)),

    auditStoredChunk: (afterSeq, limit) => run(() => st.auditStoredChunk.all(afterSeq, limit)),

    auditHead: () => run(() => {
      const head = st.auditHead.get();
      return head === undefined ? null : { seq: head.seq, tsMs: head.ts_ms };
    }),

    exportCursor: (exporterId) => run(() => st.exportCursor.get(exporterId)?.last_seq ?? 0),

    advanceExportCursor: (exporterId, seq) => run(() => {
      if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`export cursor must be a non-negative integer, got ${seq}`);
      st.advanceExportCursor.run(exporterId, seq, clock.now());
    }),

    close: () => run(() => {
      if (closed) return;
      closed = true;
      db.close();
    }),
  };
}
