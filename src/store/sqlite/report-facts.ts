/**
 * The report cache's checkpoint on SQLite (../report-facts.ts): migration 14's two tables, the
 * writer's save (one savepoint of the writer's transaction: the one writer is the mark's lock) and
 * the reader's chunks.
 */
import type Database from 'better-sqlite3';
import { statementCache } from './statement-cache.js';
import type { FactsMark, FactsSave, FactsSaveOutcome } from '../report-facts.js';

/** Migration 14 (contract §23.2): each kept page's folded facts, and the one mark they are folded through. */
export const REPORT_FACTS_MIGRATION = `
  CREATE TABLE report_facts (
    page_id   TEXT PRIMARY KEY,
    opened_ms INTEGER NOT NULL,
    facts     TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX report_facts_opened ON report_facts (opened_ms);
  CREATE TABLE report_facts_mark (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    seq        INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    written_ms INTEGER NOT NULL
  );
`;

export interface ReportFactsWriter { saveReportFacts(save: FactsSave): FactsSaveOutcome }
export interface ReportFactsReader {
  reportFactsMark(): FactsMark | null;
  reportFactsChunk(afterPageId: string, limit: number): { text: string; lastPageId: string | null };
}

type MarkRow = { seq: number; version: number; written_ms: number };
const toMark = (r: MarkRow | undefined): FactsMark | null => (r === undefined ? null : { seq: r.seq, version: r.version, writtenAtMs: r.written_ms });

export function createReportFactsWriter(db: Database.Database): ReportFactsWriter {
  let st: { mark: Database.Statement<[], MarkRow>; upsert: Database.Statement<[string, number, string]>; clear: Database.Statement;
    prune: Database.Statement<[number]>; setMark: Database.Statement<[number, number, number]> } | null = null;
  return {
    saveReportFacts(save) {
      st ??= {
        mark: db.prepare('SELECT seq, version, written_ms FROM report_facts_mark WHERE id = 1'),
        upsert: db.prepare(`INSERT INTO report_facts (page_id, opened_ms, facts) VALUES (?, ?, ?)
          ON CONFLICT (page_id) DO UPDATE SET opened_ms = excluded.opened_ms, facts = excluded.facts`),
        clear: db.prepare('DELETE FROM report_facts'),
        prune: db.prepare('DELETE FROM report_facts WHERE opened_ms < ?'),
        setMark: db.prepare(`INSERT INTO report_facts_mark (id, seq, version, written_ms) VALUES (1, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, version = excluded.version, written_ms = excluded.written_ms`),
      };
      const stored = toMark(st.mark.get());
      if (stored !== null && stored.seq >= save.mark.seq) return 'behind';
      if (stored !== null && stored.version !== save.mark.version && !save.full) return 'other-version';
      if (save.full) st.clear.run();
      for (const p of save.pages) st.upsert.run(p.pageId, p.openedAtMs, p.facts);
      st.prune.run(save.keepFromMs);
      st.setMark.run(save.mark.seq, save.mark.version, save.mark.writtenAtMs);
      return 'saved';
    },
  };
}

export function createReportFactsReader(db: Database.Database): ReportFactsReader {
  const stmt = statementCache(db);
  return {
    reportFactsMark: () => toMark(stmt('SELECT seq, version, written_ms FROM report_facts_mark WHERE id = 1').get() as MarkRow | undefined),
    reportFactsChunk: (afterPageId, limit) => {
      const [text, last] = stmt(`SELECT group_concat(page_id || char(9) || opened_ms || char(9) || facts, char(10)), max(page_id)
        FROM (SELECT page_id, opened_ms, facts FROM report_facts WHERE page_id > ? ORDER BY page_id LIMIT ?)`).raw().get(afterPageId, limit) as
        [string | null, string | null];
      return { text: text ?? '', lastPageId: last };
    },
  };
}
