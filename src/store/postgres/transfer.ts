/** `StoreTransfer` on PostgreSQL: keyset reads, and imports as head-holding transactions. */
import type pg from 'pg';
import type { StoreTransfer, TransferDeadLetter, TransferEvent } from '../transfer.js';
import type { ChainWriter } from './chain-writer.js';

export function createPgTransfer(pool: pg.Pool, writer: ChainWriter): StoreTransfer {
  return {
    async readEvents(afterSeq, limit) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload, attempt FROM events
         WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
      return rows.map((r): TransferEvent => ({ seq: Number(r.seq), id: String(r.id), tsMs: Number(r.ts_ms), agentId: String(r.agent_id),
        sourceId: String(r.source_id), kind: String(r.kind), fingerprint: typeof r.fingerprint === 'string' ? r.fingerprint : null,
        status: (r.status === 'processing' ? 'accepted' : r.status) as TransferEvent['status'], payloadText: String(r.payload), attempt: Number(r.attempt) }));
    },
    async readDeadLetters(afterSeq, limit) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT seq, id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload, replayed_ms FROM dead_letters
         WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
      return rows.map((r): TransferDeadLetter => ({ seq: Number(r.seq), id: String(r.id), tsMs: Number(r.ts_ms), agentId: String(r.agent_id),
        sourceId: String(r.source_id), eventId: String(r.event_id), reason: String(r.reason), error: String(r.error),
        attempts: Number(r.attempts), payloadText: String(r.payload), replayedMs: r.replayed_ms === null ? null : Number(r.replayed_ms) }));
    },
    async readFingerprints(sinceMs, after, limit) {
      const { rows } = await pool.query<{ agent_id: string; source_id: string; fingerprint: string; event_id: string; seen_ms: number }>(
        `SELECT agent_id, source_id, fingerprint, event_id, seen_ms FROM fingerprints
         WHERE seen_ms >= $1 AND ($2::text IS NULL OR (agent_id, source_id, fingerprint) > ($2, $3, $4))
         ORDER BY agent_id, source_id, fingerprint LIMIT $5`, [sinceMs, after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, limit]);
      return rows.map((r) => ({ agentId: r.agent_id, sourceId: r.source_id, fingerprint: r.fingerprint, eventId: r.event_id, seenMs: r.seen_ms }));
    },
    async readExportCursors() {
      const { rows } = await pool.query<{ exporter_id: string; last_seq: number; updated_ms: number }>(
        'SELECT exporter_id, last_seq, updated_ms FROM audit_export_cursors ORDER BY exporter_id');
      return rows.map((r) => ({ exporterId: r.exporter_id, lastSeq: r.last_seq, updatedMs: r.updated_ms }));
    },
    async isEmpty() {
      const { rows } = await pool.query<{ n: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM events) AND NOT EXISTS (SELECT 1 FROM dead_letters)
        AND NOT EXISTS (SELECT 1 FROM audit) AS n`);
      return rows[0]?.n === true;
    },
    importRows(batch) {
      return writer.solo(async (tx) => {
        for (const e of batch.events ?? []) tx.insertEvent({ ...e, status: e.status === 'processing' ? 'accepted' : e.status });
        for (const d of batch.deadLetters ?? []) tx.insertDeadLetter(d);
        for (const f of batch.fingerprints ?? []) tx.upsertFingerprint(f);
        for (const row of batch.audit ?? []) tx.appendStored(row);
        for (const c of batch.cursors ?? []) {
          await tx.client.query(`INSERT INTO audit_export_cursors (exporter_id, last_seq, updated_ms) VALUES ($1, $2, $3)
            ON CONFLICT (exporter_id) DO UPDATE SET last_seq = GREATEST(audit_export_cursors.last_seq, excluded.last_seq),
            updated_ms = excluded.updated_ms`, [c.exporterId, c.lastSeq, c.updatedMs]);
        }
      });
    },
  };
}
