/**
 * A transaction that holds the chain head (contract §16.3): it begins by locking the one
 * `chain_head` row, so appends from every replica are serialised and the chain is gapless and never
 * forks; commit order is seq order, which is what lets exporters and verifiers stream by seq.
 *
 * Rows are computed in JS while the lock is held (seq, timestamps non-decreasing in seq and hashes,
 * as audit/next-audit-row.ts plans them) and written at the end in ONE statement of `unnest` arrays,
 * whatever the number of operations in the transaction: a batch of many ingests and completions costs
 * the same few round trips as one.
 */
import type pg from 'pg';
import type { NewAuditEntry, StoredAuditRow } from '../../audit/audit-row.js';
import { storedRowHashMatches } from '../../audit/chain.js';
import { nextAuditRow, stampMs as stamp } from '../../audit/next-audit-row.js';
import type { EventStatus } from '../store.js';

export interface Head {
  auditSeq: number;
  auditHash: string;
  auditTsMs: number | null;
  eventSeq: number;
  eventTsMs: number | null;
  dlSeq: number;
  dlTsMs: number | null;
}

export interface EventRow {
  seq: number; id: string; tsMs: number; agentId: string; sourceId: string; kind: string; fingerprint: string | null;
  status: EventStatus; payloadText: string; attempt: number;
}

export interface DeadLetterRow {
  seq: number; id: string; tsMs: number; agentId: string; sourceId: string; eventId: string; reason: string; error: string;
  attempts: number; payloadText: string; replayedMs: number | null;
}

/** A statement to send with the commit (page-writes.ts): its rows come back once the batch committed. */
export interface Statement { sql: string; params: unknown[] }

export interface FingerprintRow { agentId: string; sourceId: string; fingerprint: string; eventId: string; seenMs: number }

export interface ChainTx {
  readonly client: pg.PoolClient;
  readonly head: Readonly<Head>;
  /** Appends a new row to the chain (written at commit); returns it as stored. */
  append(entry: NewAuditEntry, nowMs: number): StoredAuditRow;
  /** Appends a row hashed elsewhere (`svc store copy`): it must continue the chain and hash right. */
  appendStored(row: StoredAuditRow): void;
  /** A new event (seq and ts assigned here unless given, as a copy does). */
  insertEvent(e: Omit<EventRow, 'seq'> & { seq?: number }): EventRow;
  insertDeadLetter(d: Omit<DeadLetterRow, 'seq'> & { seq?: number }): DeadLetterRow;
  upsertFingerprint(f: FingerprintRow): void;
  /** Where the pending rows stand; `undo(mark)` drops what was added after it (one operation failed alone). */
  mark(): unknown;
  undo(mark: unknown): void;
}

const HEAD_COLS = 'audit_seq, audit_hash, audit_ts_ms, event_seq, event_ts_ms, dl_seq, dl_ts_ms';

interface Pending {
  head: Head;
  audit: Array<StoredAuditRow & { tsMs: number }>;
  events: EventRow[];
  deadLetters: DeadLetterRow[];
  fingerprints: Map<string, FingerprintRow>;
}

/**
 * BEGIN and lock the head (one message, two statements). The query goes out before this returns, so
 * on a pipeline-mode connection the caller's next queries (fingerprint lookups, fencing) travel in
 * the same round trip; READ COMMITTED gives each statement a snapshot taken when it starts, which is
 * after the lock is granted, so they see everything the previous holder committed.
 */
export async function beginChainTx(client: pg.PoolClient):
  Promise<{ tx: ChainTx; commit: (alongside?: Statement | null) => Promise<Array<Record<string, unknown>>> }> {
  const results = await client.query(`BEGIN; SELECT ${HEAD_COLS} FROM chain_head WHERE id = 1 FOR UPDATE`) as unknown as pg.QueryResult[];
  const r = results[1]?.rows[0] as Record<string, number | string | null> | undefined;
  if (r === undefined) throw new Error('chain_head row missing: the schema was not migrated');
  const initial: Head = {
    auditSeq: Number(r.audit_seq), auditHash: String(r.audit_hash), auditTsMs: r.audit_ts_ms === null ? null : Number(r.audit_ts_ms),
    eventSeq: Number(r.event_seq), eventTsMs: r.event_ts_ms === null ? null : Number(r.event_ts_ms),
    dlSeq: Number(r.dl_seq), dlTsMs: r.dl_ts_ms === null ? null : Number(r.dl_ts_ms),
  };
  let p: Pending = { head: { ...initial }, audit: [], events: [], deadLetters: [], fingerprints: new Map() };
  /** What each upsertFingerprint replaced, so undo can put it back. */
  const fingerprintLog: Array<[string, FingerprintRow | undefined]> = [];

  const pushAudit = (row: StoredAuditRow, tsMs: number): void => {
    p.audit.push({ ...row, tsMs });
    p.head.auditSeq = row.seq;
    p.head.auditHash = row.hash;
    p.head.auditTsMs = tsMs;
  };

  const tx: ChainTx = {
    client,
    get head() { return p.head; },
    append(entry, nowMs) {
      // Planned by audit/next-audit-row.ts, as for the SQLite writer, after the head this lock holds.
      const { tsMs, ...row } = nextAuditRow({ seq: p.head.auditSeq, hash: p.head.auditHash, tsMs: p.head.auditTsMs }, entry, nowMs);
      pushAudit(row, tsMs);
      return row;
    },
    appendStored(row) {
      if (row.seq !== p.head.auditSeq + 1) throw new Error(`audit row ${row.seq} does not follow the head (${p.head.auditSeq})`);
      if (row.prevHash !== p.head.auditHash) throw new Error(`audit row ${row.seq} does not link to the head's hash`);
      if (!storedRowHashMatches(row)) throw new Error(`audit row ${row.seq} does not hash to its stored hash`);
      const tsMs = Date.parse(row.ts);
      if (!Number.isFinite(tsMs)) throw new Error(`audit row ${row.seq} has no valid ts`);
      pushAudit(row, stamp(tsMs, p.head.auditTsMs));
    },
    insertEvent(e) {
      const seq = e.seq ?? p.head.eventSeq + 1;
      const tsMs = e.seq === undefined ? stamp(e.tsMs, p.head.eventTsMs) : e.tsMs;
      const row: EventRow = { ...e, seq, tsMs };
      p.events.push(row);
      p.head.eventSeq = Math.max(p.head.eventSeq, seq);
      p.head.eventTsMs = Math.max(p.head.eventTsMs ?? -Infinity, tsMs);
      return row;
    },
    insertDeadLetter(d) {
      const seq = d.seq ?? p.head.dlSeq + 1;
      const tsMs = d.seq === undefined ? stamp(d.tsMs, p.head.dlTsMs) : d.tsMs;
      const row: DeadLetterRow = { ...d, seq, tsMs };
      p.deadLetters.push(row);
      p.head.dlSeq = Math.max(p.head.dlSeq, seq);
      p.head.dlTsMs = Math.max(p.head.dlTsMs ?? -Infinity, tsMs);
      return row;
    },
    upsertFingerprint(f) {
      // One row per key in the statement (ON CONFLICT may not touch a row twice): the last one wins.
      const key = `${f.agentId}\u0000${f.sourceId}\u0000${f.fingerprint}`;
      fingerprintLog.push([key, p.fingerprints.get(key)]);
      p.fingerprints.set(key, f);
    },
    mark() {
      // The fingerprints by their undo log's length: no copy of the map per operation.
      return { head: { ...p.head }, audit: p.audit.length, events: p.events.length, deadLetters: p.deadLetters.length,
        fingerprints: fingerprintLog.length };
    },
    undo(m) {
      const saved = m as { head: Head; audit: number; events: number; deadLetters: number; fingerprints: number };
      while (fingerprintLog.length > saved.fingerprints) {
        const [key, previous] = fingerprintLog.pop() as [string, FingerprintRow | undefined];
        if (previous === undefined) p.fingerprints.delete(key);
        else p.fingerprints.set(key, previous);
      }
      p = { head: { ...saved.head }, audit: p.audit.slice(0, saved.audit), events: p.events.slice(0, saved.events),
        deadLetters: p.deadLetters.slice(0, saved.deadLetters), fingerprints: p.fingerprints };
    },
  };

  // The writes and COMMIT go out together (one round trip when pipelined). A failed write leaves the
  // transaction aborted, and COMMIT then rolls it back: nothing of the batch is written. The first
  // failure in sending order is the one reported (those after it only say the transaction aborted).
  // `alongside` (a batch's page plans) goes first; its rows are returned.
  const commit = async (alongside?: Statement | null): Promise<Array<Record<string, unknown>>> => {
    const { sql, params } = writeStatement(p);
    const sent = await Promise.allSettled([alongside == null ? null : client.query<Record<string, unknown>>(alongside.sql, alongside.params),
      sql === null ? null : client.query(sql, params), client.query('COMMIT')]);
    for (const s of sent) if (s.status === 'rejected') throw s.reason;
    const first = sent[0];
    return first.status === 'fulfilled' && first.value !== null ? first.value.rows : [];
  };
  return { tx, commit };
}

/** Every pending row in one statement: one INSERT … SELECT FROM unnest(…) per table, and the head. */
function writeStatement(p: Pending): { sql: string | null; params: unknown[] } {
  const params: unknown[] = [];
  const $ = (values: unknown[], type: string): string => {
    params.push(values);
    return `$${params.length}::${type}[]`;
  };
  const ctes: string[] = [];
  if (p.events.length > 0) {
    const e = p.events;
    ctes.push(`INSERT INTO events (seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt)
      SELECT * FROM unnest(${$(e.map((r) => r.seq), 'bigint')}, ${$(e.map((r) => r.id), 'text')}, ${$(e.map((r) => r.tsMs), 'bigint')},
        ${$(e.map((r) => r.agentId), 'text')}, ${$(e.map((r) => r.sourceId), 'text')}, ${$(e.map((r) => r.kind), 'text')},
        ${$(e.map((r) => r.fingerprint), 'text')}, ${$(e.map((r) => r.status), 'text')}, ${$(e.map((r) => r.payloadText), 'text')},
        ${$(e.map((r) => r.attempt), 'int')})`);
  }
  if (p.deadLetters.length > 0) {
    const d = p.deadLetters;
    ctes.push(`INSERT INTO dead_letters (seq, id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload, replayed_ms)
      SELECT * FROM unnest(${$(d.map((r) => r.seq), 'bigint')}, ${$(d.map((r) => r.id), 'text')}, ${$(d.map((r) => r.tsMs), 'bigint')},
        ${$(d.map((r) => r.agentId), 'text')}, ${$(d.map((r) => r.sourceId), 'text')}, ${$(d.map((r) => r.eventId), 'text')},
        ${$(d.map((r) => r.reason), 'text')}, ${$(d.map((r) => r.error), 'text')}, ${$(d.map((r) => r.attempts), 'int')},
        ${$(d.map((r) => r.payloadText), 'text')}, ${$(d.map((r) => r.replayedMs), 'bigint')})`);
  }
  if (p.fingerprints.size > 0) {
    const f = [...p.fingerprints.values()];
    ctes.push(`INSERT INTO fingerprints (agent_id, source_id, fingerprint, event_id, seen_ms)
      SELECT * FROM unnest(${$(f.map((r) => r.agentId), 'text')}, ${$(f.map((r) => r.sourceId), 'text')},
        ${$(f.map((r) => r.fingerprint), 'text')}, ${$(f.map((r) => r.eventId), 'text')}, ${$(f.map((r) => r.seenMs), 'bigint')})
      ON CONFLICT (agent_id, source_id, fingerprint) DO UPDATE SET event_id = excluded.event_id, seen_ms = excluded.seen_ms`);
  }
  if (p.audit.length > 0) {
    const a = p.audit;
    ctes.push(`INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash)
      SELECT * FROM unnest(${$(a.map((r) => r.seq), 'bigint')}, ${$(a.map((r) => r.ts), 'text')}, ${$(a.map((r) => r.tsMs), 'bigint')},
        ${$(a.map((r) => r.kind), 'text')}, ${$(a.map((r) => r.actor), 'text')}, ${$(a.map((r) => r.agentId), 'text')},
        ${$(a.map((r) => r.dataText), 'text')}, ${$(a.map((r) => r.prevHash), 'text')}, ${$(a.map((r) => r.hash), 'text')})`);
  }
  if (ctes.length === 0) return { sql: null, params };
  const h = p.head;
  const headParams = [h.auditSeq, h.auditHash, h.auditTsMs, h.eventSeq, h.eventTsMs, h.dlSeq, h.dlTsMs];
  const base = params.length;
  params.push(...headParams);
  const sql = `WITH ${ctes.map((c, i) => `w${i} AS (${c})`).join(',\n')}
    UPDATE chain_head SET audit_seq = $${base + 1}, audit_hash = $${base + 2}, audit_ts_ms = $${base + 3}, event_seq = $${base + 4},
      event_ts_ms = $${base + 5}, dl_seq = $${base + 6}, dl_ts_ms = $${base + 7} WHERE id = 1`;
  return { sql, params };
}
