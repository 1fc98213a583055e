/**
 * Ingests of one group commit written together (SQLite writer thread, store-worker.ts): the heads they
 * follow (last event time, audit chain head) and the live silences read once, each event planned in
 * order by store/write-plans.ts exactly as alone — a fingerprint accepted earlier in the batch makes a
 * later one a duplicate — then the batch's event, fingerprint and audit rows written with one
 * multi-row INSERT per table (per chunk of CHUNK_ROWS). The caller holds the transaction and one
 * savepoint around the whole batch; a statement that fails throws, and the caller replays the batch
 * one ingest per savepoint so that only the bad one fails.
 *
 * Why: per ingest, a savepoint (whose journal rewrote every page it touched) and up to seven
 * statements — three of them reads of the two heads and the silences — were most of the writer
 * thread's work besides the fsync (docs/performance.md, "Foundation").
 */
import { newRecordId } from '../record-id.js';
import type Database from 'better-sqlite3';
import { EMPTY_AUDIT_HEAD, headAfter, nextAuditRow, stampMs } from '../../audit/next-audit-row.js';
import type { AuditHead, PlannedAuditRow } from '../../audit/next-audit-row.js';
import type { IngestResult, NewEvent } from '../store.js';
import { suppressingSilences } from '../suppression.js';
import type { SeenFingerprint } from '../write-plans.js';
import { planIngest } from '../write-plans.js';
import { toStoredSilence } from '../oncall-rows.js';

/** One ingest as the store's `ingestEvent` takes it. */
export interface IngestRequest {
  event: NewEvent;
  nowMs: number;
}

/** Most rows per INSERT: 64 audit rows bind 576 values, far below SQLite's limit of 32,766. */
const CHUNK_ROWS = 64;

/** Rows of one table, flattened: the values of row i are at i × columns … (i + 1) × columns − 1. */
type Values = (string | number | null)[];

/**
 * `INSERT … VALUES (…), (…)` for `n` rows, prepared once per row count and kept: a batch of any size
 * is written with at most CHUNK_ROWS distinct statements per table. The rows come flat, as the
 * statement binds them (an array per row, flattened per batch, was ≈2 % of the writer's time).
 */
function multiRowInsert(db: Database.Database, head: string, columns: number, tail = ''): (values: Values) => void {
  const prepared = new Map<number, Database.Statement<unknown[]>>();
  const one = `(${new Array<string>(columns).fill('?').join(', ')})`;
  const statement = (n: number): Database.Statement<unknown[]> => {
    let st = prepared.get(n);
    if (st === undefined) {
      st = db.prepare<unknown[]>(`${head} VALUES ${new Array<string>(n).fill(one).join(', ')}${tail}`);
      prepared.set(n, st);
    }
    return st;
  };
  const chunk = CHUNK_ROWS * columns;
  return (values) => {
    if (values.length % columns !== 0) throw new Error(`${values.length} values do not make rows of ${columns}`);
    for (let at = 0; at < values.length; at += chunk) {
      const part = values.length <= chunk ? values : values.slice(at, at + chunk); // one chunk: no copy
      statement(part.length / columns).run(...part);
    }
  };
}

const fpKey = (agentId: string, sourceId: string, fingerprint: string): string => `${agentId}\u0000${sourceId}\u0000${fingerprint}`;

export type IngestBatch = (requests: readonly IngestRequest[]) => IngestResult[];

export function createIngestBatch(db: Database.Database, { windowMs }: { windowMs: number }): IngestBatch {
  const st = {
    findFingerprint: db.prepare<[string, string, string], { event_id: string; seen_ms: number }>(
      'SELECT event_id, seen_ms FROM fingerprints WHERE agent_id = ? AND source_id = ? AND fingerprint = ?'),
    lastEventTs: db.prepare<[], { ts_ms: number }>('SELECT ts_ms FROM events ORDER BY seq DESC LIMIT 1'),
    auditHead: db.prepare<[], { seq: number; hash: string; ts_ms: number }>('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1'),
    // Every silence that may be live for some ingest of the batch; each event's own filter (agent,
    // start and end against its time) is silence-match.ts's, as on PostgreSQL.
    liveSilences: db.prepare<[number], Record<string, unknown>>('SELECT * FROM silences WHERE ends_ms > ? ORDER BY seq'),
  };
  const insertEvents = multiRowInsert(db, 'INSERT INTO events (id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt)', 9);
  // Rows apply in order, so a fingerprint written twice in one statement keeps the later event.
  const upsertFingerprints = multiRowInsert(db, 'INSERT INTO fingerprints (agent_id, source_id, fingerprint, event_id, seen_ms)', 5,
    ' ON CONFLICT (agent_id, source_id, fingerprint) DO UPDATE SET event_id = excluded.event_id, seen_ms = excluded.seen_ms');
  const insertAudit = multiRowInsert(db, 'INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash)', 9);

  return (requests) => {
    const seen = new Map<string, SeenFingerprint | undefined>();
    const lookup = (e: NewEvent): SeenFingerprint | undefined => {
      if (e.fingerprint === null) return undefined;
      const key = fpKey(e.agentId, e.sourceId, e.fingerprint);
      if (seen.has(key)) return seen.get(key);
      const found = st.findFingerprint.get(e.agentId, e.sourceId, e.fingerprint);
      const s = found === undefined ? undefined : { eventId: found.event_id, seenMs: found.seen_ms };
      seen.set(key, s);
      return s;
    };
    let silences: ReturnType<typeof toStoredSilence>[] | null = null;
    const liveSilences = (): ReturnType<typeof toStoredSilence>[] => {
      silences ??= st.liveSilences.all(Math.min(...requests.map((r) => r.nowMs))).map(toStoredSilence);
      return silences;
    };
    let lastTsMs: number | undefined = st.lastEventTs.get()?.ts_ms;
    const stored = st.auditHead.get();
    let head: AuditHead = stored === undefined ? EMPTY_AUDIT_HEAD : { seq: stored.seq, hash: stored.hash, tsMs: stored.ts_ms };

    const events: Values = [];
    const fingerprints: Values = [];
    const audit: Values = [];
    const results = requests.map(({ event: e, nowMs }): IngestResult => {
      const tsMs = stampMs(nowMs, lastTsMs);
      const plan = planIngest(e, { id: newRecordId(nowMs), nowMs, tsMs, windowMs, seen: lookup(e),
        silencedBy: () => suppressingSilences(liveSilences().filter((s) => s.agentId === null || s.agentId === e.agentId), e.agentId, e.payloadText, nowMs) });
      if (plan.outcome === 'duplicate') return plan;
      const { event: ev, fingerprint: f } = plan;
      lastTsMs = tsMs;
      events.push(ev.id, ev.tsMs, ev.agentId, ev.sourceId, ev.kind, ev.fingerprint, ev.status, ev.payloadText, 0);
      if (f !== null) {
        fingerprints.push(f.agentId, f.sourceId, f.fingerprint, f.eventId, f.seenMs);
        seen.set(fpKey(f.agentId, f.sourceId, f.fingerprint), { eventId: f.eventId, seenMs: f.seenMs });
      }
      for (const entry of plan.audit) {
        const row: PlannedAuditRow = nextAuditRow(head, entry, nowMs);
        audit.push(row.seq, row.ts, row.tsMs, row.kind, row.actor, row.agentId, row.dataText, row.prevHash, row.hash);
        head = headAfter(row);
      }
      const { tsMs: _tsMs, ...event } = ev;
      return { outcome: 'accepted', event };
    });
    insertEvents(events);
    upsertFingerprints(fingerprints);
    insertAudit(audit);
    return results;
  };
}
