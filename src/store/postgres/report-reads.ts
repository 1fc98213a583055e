/**
 * A report's reads on PostgreSQL (../report-rows.ts): each chunk is one text built by the database.
 * The line is built as the rows are read (an expression index cannot hand a value back here), from
 * `data` cast to json once per row. A chunk holding a row whose fields PostgreSQL cannot read as text
 * (a `\u0000` escape, which json text refuses; data that is not JSON at all cannot be written since the
 * audit_ref indexes of issue 33) is read again as stored and its lines built in JavaScript
 * (`reportLineOf`), so the answer is SQLite's.
 */
import type pg from 'pg';
import type { ReportReads } from '../report-rows.js';
import { REPORT_KINDS_SQL, reportLineOf, reportLineSql } from '../report-rows.js';

/** Schema step of schema.ts (contract §23): the page kinds' audit rows in seq order, and the window's pages without their bodies. */
export const PG_REPORT_MIGRATION = `
  CREATE INDEX audit_report_seq ON audit (seq) WHERE ${REPORT_KINDS_SQL};
  CREATE INDEX pages_report ON pages (ts_ms, agent_id, policy_id, id);
`;

const PAGE_LINE = `id || E'\\t' || agent_id || E'\\t' || policy_id || E'\\t' || ts_ms::text`;
const ROWS = `FROM audit WHERE ${REPORT_KINDS_SQL} AND seq > $1 ORDER BY seq LIMIT $2`;

/** SQLSTATE class 22, data exception: the cast of a row's data to json failed. */
const isDataException = (err: unknown): boolean => typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('22');

export function postgresReportReads(pool: pg.Pool): ReportReads {
  return {
    async pageLines(w) {
      const { rows } = await pool.query<{ text: string | null }>(`SELECT string_agg(${PAGE_LINE}, E'\\n')
        AS text FROM pages WHERE ts_ms >= $1 AND ts_ms < $2 AND ($3::text IS NULL OR agent_id = $3)`, [w.sinceMs, w.untilMs, w.agent]);
      return rows[0]?.text ?? '';
    },
    async pageLinesOf(ids) {
      const { rows } = await pool.query<{ text: string | null }>(`SELECT string_agg(${PAGE_LINE}, E'\\n') AS text FROM pages WHERE id = ANY($1::text[])`, [ids]);
      return rows[0]?.text ?? '';
    },
    async firstSeqSince(sinceMs) {
      const { rows } = await pool.query<{ seq: string }>('SELECT seq FROM audit WHERE ts_ms >= $1 ORDER BY ts_ms, seq LIMIT 1', [sinceMs]);
      return rows[0] === undefined ? null : Number(rows[0].seq);
    },
    async auditLines(afterSeq, limit) {
      try {
        const { rows } = await pool.query<{ text: string | null; last: string | null }>(`SELECT string_agg(${reportLineSql('postgres')}, E'\\n' ORDER BY seq)
          AS text, max(seq) AS last FROM (SELECT seq, ts_ms, kind, data::json AS d ${ROWS}) r`, [afterSeq, limit]);
        const row = rows[0];
        return { text: row?.text ?? '', lastSeq: row?.last == null ? null : Number(row.last) };
      } catch (err) {
        if (!isDataException(err)) throw err;
      }
      const { rows } = await pool.query<{ seq: string; ts_ms: string; kind: string; data: string }>(`SELECT seq, ts_ms, kind, data ${ROWS}`, [afterSeq, limit]);
      const lines = rows.map((r) => reportLineOf(Number(r.seq), Number(r.ts_ms), r.kind, r.data)).filter((l): l is string => l !== null);
      const last = rows.at(-1);
      return { text: lines.join('\n'), lastSeq: last === undefined ? null : Number(last.seq) };
    },
    async eventPayloads(ids) {
      const { rows } = await pool.query<{ id: string; payload: string }>('SELECT id, payload FROM events WHERE id = ANY($1::text[])', [ids]);
      return rows.map((r) => ({ id: r.id, payloadText: r.payload }));
    },
  };
}
