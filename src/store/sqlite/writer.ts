/**
 * The write side of the SQLite store, synchronous, on the one connection that writes (it runs in the
 * store's writer thread, store-worker.ts). Each operation here runs inside a transaction the caller
 * holds; the worker puts many of them in one transaction (group commit), each in its own savepoint —
 * except a run of ingests, written together in one (ingest-batch.ts).
 */
import type Database from 'better-sqlite3';
import type { AuditRow, NewAuditEntry, StoredAuditRow } from '../../audit/audit-row.js';
import { parseStoredAuditRow } from '../../audit/audit-row.js';
import { EMPTY_AUDIT_HEAD, nextAuditRow, stampMs as stamp } from '../../audit/next-audit-row.js';
import type {
  ClaimedEvent, ClaimRef, ClaimRequest, Completion, CompletionResult, DeadLetterSelection, IngestResult, NewEvent,
  ReplayResult, ReplayVia, RetentionPolicy,
} from '../store.js';
import { FINISHED_EVENT_STATUSES_SQL } from '../store.js';
import { EVENT_COLS, toEvent } from '../rows.js';
import { completionUpdate, planCompletion, replayAudit } from '../write-plans.js';
import { newRecordId } from '../record-id.js';
import { createIngestBatch } from './ingest-batch.js';
import type { IngestRequest } from './ingest-batch.js';

export interface Writer {
  ingestEvent(event: NewEvent, nowMs: number): IngestResult;
  /** Ingests written together (ingest-batch.ts), each with the outcome it would have alone, in order. */
  ingestEvents(requests: readonly IngestRequest[]): IngestResult[];
  claimEvents(request: ClaimRequest): ClaimedEvent[];
  renewLeases(claims: readonly ClaimRef[], leaseMs: number, nowMs: number): ClaimRef[];
  completeEvents(completions: readonly Completion[], nowMs: number): CompletionResult[];
  releaseClaims(ownerPrefix: string): number;
  replayDeadLetters(selection: DeadLetterSelection, actor: string, nowMs: number, via?: ReplayVia): ReplayResult;
  appendAudit(entry: NewAuditEntry, nowMs: number): AuditRow;
  advanceExportCursor(exporterId: string, seq: number, nowMs: number): void;
  prune(policy: RetentionPolicy): { events: number; deadLetters: number; fingerprints: number };
  probeWrite(nowMs: number): void;
}

export function createWriter(db: Database.Database, { windowMs }: { windowMs: number }): Writer {
  const ingestBatch = createIngestBatch(db, { windowMs });
  const st = {
    claimable: db.prepare<[{ agent: string; now: number; limit: number }], { seq: number; bytes: number | null }>(
      `SELECT seq, octet_length(payload) AS bytes FROM events
       WHERE agent_id = @agent AND status IN ('accepted', 'processing')
         AND (status = 'accepted' AND (due_ms IS NULL OR due_ms <= @now) OR status = 'processing' AND lease_until_ms <= @now)
       ORDER BY seq LIMIT @limit`),
    claim: db.prepare<[string, number, number], Record<string, unknown>>(
      `UPDATE events SET status = 'processing', owner = ?, lease_until_ms = ?, attempt = attempt + 1, due_ms = NULL WHERE seq = ?
       RETURNING ${EVENT_COLS}, attempt, delivery`),
    renew: db.prepare<[number, string, string, number]>(
      `UPDATE events SET lease_until_ms = ? WHERE id = ? AND owner = ? AND attempt = ? AND status = 'processing'`),
    finish: db.prepare<[string, number | null, string | null, string, string, number]>(
      `UPDATE events SET status = ?, owner = NULL, lease_until_ms = NULL, due_ms = ?, delivery = coalesce(?, delivery)
       WHERE id = ? AND owner = ? AND attempt = ? AND status = 'processing'`),
    eventForLetter: db.prepare<[string], { agent_id: string; source_id: string; payload: string }>(
      'SELECT agent_id, source_id, payload FROM events WHERE id = ?'),
    releaseOwner: db.prepare<[number, string]>(
      `UPDATE events SET status = 'accepted', owner = NULL, lease_until_ms = NULL
       WHERE status = 'processing' AND substr(owner, 1, ?) = ?`),
    lastDeadLetterTs: db.prepare<[], { ts_ms: number }>('SELECT ts_ms FROM dead_letters ORDER BY seq DESC LIMIT 1'),
    insertDeadLetter: db.prepare<[string, number, string, string, string, string, string, number, string]>(
      `INSERT INTO dead_letters (id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    deadLetterById: db.prepare<[string], { id: string; event_id: string; agent_id: string; source_id: string; reason: string }>(
      // A letter replayed once is done: its event, failing again, has a new letter (the one to replay).
      'SELECT id, event_id, agent_id, source_id, reason FROM dead_letters WHERE id = ? AND replayed_ms IS NULL'),
    // Named parameters: better-sqlite3 binds `?1`-style numbered ones by name, so positional
    // arguments would be refused ("Too many parameter values").
    deadLettersToReplay: db.prepare<[{ source: string | null; reason: string | null; after: number; limit: number }],
      { seq: number; id: string; event_id: string; agent_id: string; source_id: string; reason: string }>(
      `SELECT seq, id, event_id, agent_id, source_id, reason FROM dead_letters
       WHERE replayed_ms IS NULL AND seq > @after AND (@source IS NULL OR source_id = @source) AND (@reason IS NULL OR reason = @reason)
       ORDER BY seq LIMIT @limit`),
    requeue: db.prepare<[string]>(
      `UPDATE events SET status = 'accepted', owner = NULL, lease_until_ms = NULL, due_ms = NULL WHERE id = ? AND status = 'dead-lettered'`),
    markReplayed: db.prepare<[number, string]>('UPDATE dead_letters SET replayed_ms = ? WHERE id = ?'),
    auditHead: db.prepare<[], { seq: number; hash: string; ts_ms: number }>('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1'),
    insertAudit: db.prepare<[number, string, number, string, string, string | null, string, string, string]>(
      `INSERT INTO audit (seq, ts, ts_ms, kind, actor, agent_id, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // The WHERE keeps the max in one statement: no read-modify-write race with another process.
    advanceExportCursor: db.prepare<[string, number, number]>(
      `INSERT INTO audit_export_cursors (exporter_id, last_seq, updated_ms) VALUES (?, ?, ?)
       ON CONFLICT (exporter_id) DO UPDATE SET last_seq = excluded.last_seq, updated_ms = excluded.updated_ms
       WHERE excluded.last_seq > audit_export_cursors.last_seq`),
    probe: db.prepare<[number]>('INSERT INTO write_probe (id, at_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at_ms = excluded.at_ms'),
    pruneFingerprints: db.prepare<[number, number]>(
      'DELETE FROM fingerprints WHERE rowid IN (SELECT rowid FROM fingerprints WHERE seen_ms <= ? ORDER BY seen_ms LIMIT ?)'),
    pruneDeadLetters: db.prepare<[number, number]>(
      'DELETE FROM dead_letters WHERE seq IN (SELECT seq FROM dead_letters WHERE ts_ms < ? ORDER BY ts_ms LIMIT ?)'),
    // A dead-lettered event stays while its dead letter does (the letter points at it). Fingerprints
    // point at events younger than the idempotency window, far younger than any retention (at least
    // an hour, config/store.ts), and are pruned first.
    // An incident's last resolve outlives the events it orders: a firing older than it was received
    // before it, and goes with the same retention (issue 33).
    pruneResolves: db.prepare<[number, number]>(
      `DELETE FROM incident_resolves WHERE (agent_id, incident_key) IN (
         SELECT agent_id, incident_key FROM incident_resolves WHERE ts_ms < ? ORDER BY ts_ms LIMIT ?)`),
    pruneEvents: db.prepare<[number, number]>(
      `DELETE FROM events WHERE seq IN (
         SELECT seq FROM events WHERE ts_ms < ? AND status IN (${FINISHED_EVENT_STATUSES_SQL})
           AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.event_id = events.id)
         ORDER BY ts_ms LIMIT ?)`),
  };

  /**
   * Appends one row, as audit/next-audit-row.ts plans it after the stored head. Returns the stored
   * row; callers that need `data` parse its text.
   */
  const appendStored = (entry: NewAuditEntry, nowMs: number): StoredAuditRow => {
    const head = st.auditHead.get();
    const { tsMs, ...row } = nextAuditRow(head === undefined ? EMPTY_AUDIT_HEAD : { seq: head.seq, hash: head.hash, tsMs: head.ts_ms }, entry, nowMs);
    st.insertAudit.run(row.seq, row.ts, tsMs, row.kind, row.actor, row.agentId, row.dataText, row.prevHash, row.hash);
    return row;
  };
  const appendAudit = (entry: NewAuditEntry, nowMs: number): AuditRow => parseStoredAuditRow(appendStored(entry, nowMs));

  /** Persists a completion's plan (write-plans.ts); the event's own update is `finish`, already run. */
  const complete = db.transaction((c: Completion, nowMs: number): CompletionResult => {
    const update = completionUpdate(c);
    const { changes } = st.finish.run(update.status, update.dueMs, update.delivery, c.claim.eventId, c.claim.owner, c.claim.attempt);
    if (changes !== 1) return { ok: false, reason: 'claim-lost' };
    // The event is read only when a dead letter needs its payload.
    const event = c.outcome === 'dead-lettered' ? st.eventForLetter.get(c.claim.eventId) : undefined;
    if (c.outcome === 'dead-lettered' && event === undefined) throw new Error('dead letter for an event that is gone');
    const plan = planCompletion(c, { agentId: event?.agent_id ?? '', sourceId: event?.source_id ?? '', payloadText: event?.payload ?? '' }, newRecordId(nowMs));
    const d = plan.deadLetter;
    if (d !== null) {
      const tsMs = stamp(nowMs, st.lastDeadLetterTs.get()?.ts_ms);
      st.insertDeadLetter.run(d.id, tsMs, d.agentId, d.sourceId, d.eventId, d.reason, d.error, d.attempts, d.payloadText);
    }
    for (const entry of plan.audit) appendStored(entry, nowMs);
    return plan.result;
  });

  return {
    ingestEvent(event, nowMs) {
      return ingestBatch([{ event, nowMs }])[0] as IngestResult;
    },

    ingestEvents: ingestBatch,

    claimEvents(r) {
      const candidates = st.claimable.all({ agent: r.agentId, now: r.nowMs, limit: Math.max(1, r.limit) });
      const claimed: ClaimedEvent[] = [];
      let bytes = 0;
      const leaseUntilMs = r.nowMs + r.leaseMs;
      for (const c of candidates) {
        if (claimed.length > 0 && bytes + (c.bytes ?? 0) > r.maxBytes) break;
        bytes += c.bytes ?? 0;
        const row = st.claim.get(r.owner, leaseUntilMs, c.seq);
        if (row === undefined) continue;
        const { seq: _seq, ...event } = toEvent(row, false);
        const delivery = typeof row.delivery === 'string' ? row.delivery : null;
        claimed.push({ event, claim: { eventId: event.id, owner: r.owner, attempt: Number(row.attempt) }, leaseUntilMs, delivery });
      }
      return claimed;
    },

    renewLeases(claims, leaseMs, nowMs) {
      return claims.filter((c) => st.renew.run(nowMs + leaseMs, c.eventId, c.owner, c.attempt).changes !== 1);
    },

    completeEvents(completions, nowMs) {
      return completions.map((c) => complete(c, nowMs));
    },

    releaseClaims(ownerPrefix) {
      return st.releaseOwner.run(ownerPrefix.length, ownerPrefix).changes;
    },

    replayDeadLetters(selection, actor, nowMs, via) {
      const chunk = selection.ids === undefined
        ? st.deadLettersToReplay.all({ source: selection.sourceId ?? null, reason: selection.reason ?? null, after: selection.afterSeq ?? 0,
          limit: selection.limit ?? -1 })
        : null;
      const letters = chunk ?? (selection.ids ?? []).map((id) => st.deadLetterById.get(id) ?? id);
      const replayed: string[] = [];
      const missing: string[] = [];
      for (const letter of letters) {
        if (typeof letter === 'string') {
          missing.push(letter);
          continue;
        }
        if (st.requeue.run(letter.event_id).changes !== 1) {
          missing.push(letter.id); // its event was replayed already, or is gone
          continue;
        }
        st.markReplayed.run(nowMs, letter.id);
        appendStored(replayAudit(letter, actor, via), nowMs);
        replayed.push(letter.id);
      }
      const last = chunk?.[chunk.length - 1];
      return { replayed, missing, ...(selection.limit !== undefined && last !== undefined ? { lastSeq: last.seq } : {}) };
    },

    appendAudit,

    advanceExportCursor(exporterId, seq, nowMs) {
      if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`export cursor must be a non-negative integer, got ${seq}`);
      st.advanceExportCursor.run(exporterId, seq, nowMs);
    },

    probeWrite(nowMs) {
      st.probe.run(nowMs);
    },

    prune(policy) {
      const fingerprints = policy.fingerprintsBeforeMs === null ? 0 : st.pruneFingerprints.run(policy.fingerprintsBeforeMs, policy.batch).changes;
      const deadLetters = policy.deadLettersBeforeMs === null ? 0 : st.pruneDeadLetters.run(policy.deadLettersBeforeMs, policy.batch).changes;
      const events = policy.eventsBeforeMs === null ? 0 : st.pruneEvents.run(policy.eventsBeforeMs, policy.batch).changes;
      if (policy.eventsBeforeMs !== null) st.pruneResolves.run(policy.eventsBeforeMs, policy.batch);
      return { events, deadLetters, fingerprints };
    },
  };
}
