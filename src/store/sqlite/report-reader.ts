/**
 * A report's reads on SQLite (../report-rows.ts), in the reader thread: each answer is one text, so a
 * chunk of 50,000 rows costs one crossing into JavaScript instead of one per row. Statements are
 * prepared on first use (a read-only store of an older schema still opens).
 */
import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';
import type { ReportWindow } from '../report-rows.js';
import { reportLineSql } from '../report-rows.js';
import { REPORT_ROWS_WHERE } from './report-schema.js';

export interface ReportReader {
  reportPageLines(window: ReportWindow): string;
  reportPageLinesOf(ids: readonly string[]): string;
  reportFirstSeq(sinceMs: number): number | null;
  reportAuditLines(afterSeq: number, limit: number): { text: string; lastSeq: number | null };
  reportEventPayloads(ids: readonly string[]): Array<{ id: string; payloadText: string }>;
}

const PAGE_LINE = `id || char(9) || agent_id || char(9) || policy_id || char(9) || ts_ms`;

export function createReportReader(db: Database.Database): ReportReader {
  const stmt = statementCache(db);
  return {
    reportPageLines: (w) => (stmt(`SELECT group_concat(${PAGE_LINE}, char(10)) FROM pages INDEXED BY pages_report
      WHERE ts_ms >= ? AND ts_ms < ? AND (? IS NULL OR agent_id = ?)`).pluck().get(w.sinceMs, w.untilMs, w.agent, w.agent) as string | null) ?? '',
    reportPageLinesOf: (ids) => (stmt(`SELECT group_concat(${PAGE_LINE}, char(10)) FROM pages WHERE id IN (SELECT value FROM json_each(?))`)
      .pluck().get(JSON.stringify(ids)) as string | null) ?? '',
    reportFirstSeq: (sinceMs) => (stmt('SELECT seq FROM audit WHERE ts_ms >= ? ORDER BY ts_ms, seq LIMIT 1').pluck().get(sinceMs) as number | undefined) ?? null,
    reportAuditLines: (afterSeq, limit) => {
      // INDEXED BY: the line must come out of the index (the planner otherwise prefers audit_kind_seq and a
      // sort, parsing every row's data); a store without the index fails here instead of taking minutes.
      // The lines come in the index's seq order; an ORDER BY in group_concat sorted them again (3× the time).
      const [text, lastSeq] = stmt(`SELECT group_concat(line, char(10)), max(seq) FROM (SELECT seq, ${reportLineSql('sqlite')} AS line
        FROM audit INDEXED BY audit_report WHERE ${REPORT_ROWS_WHERE} AND seq > ? ORDER BY seq LIMIT ?)`).raw().get(afterSeq, limit) as
        [string | null, number | null];
      return { text: text ?? '', lastSeq };
    },
    reportEventPayloads: (ids) => (stmt('SELECT id, payload FROM events WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(ids)) as Array<{ id: string; payload: string }>).map((r) => ({ id: r.id, payloadText: r.payload })),
  };
}
