/**
 * The report cache's checkpoint on PostgreSQL (../report-facts.ts): migration 11's two tables, the
 * save (its own transaction, the mark row locked FOR UPDATE: replicas each keep a cache and save,
 * and one that is behind must not overwrite a newer checkpoint) and the chunked reads.
 */
import type pg from 'pg';
import type { FactsMark, FactsSave, FactsSaveOutcome, ReportFactsStore } from '../report-facts.js';
import { FACTS_WRITE_ROWS, loadFacts } from '../report-facts.js';

/** Migration 11 (contract §23.2): each kept page's folded facts, and the one mark they are folded through. */
export const PG_REPORT_FACTS_MIGRATION = `
  CREATE TABLE report_facts (
    page_id   text PRIMARY KEY,
    opened_ms bigint NOT NULL,
    facts     text NOT NULL
  );
  CREATE INDEX report_facts_opened ON report_facts (opened_ms);
  CREATE TABLE report_facts_mark (
    id         integer PRIMARY KEY CHECK (id = 1),
    seq        bigint NOT NULL,
    version    integer NOT NULL,
    written_ms bigint NOT NULL
  );
`;

type MarkRow = { seq: string; version: number; written_ms: string };
const toMark = (r: MarkRow | undefined): FactsMark | null =>
  (r === undefined ? null : { seq: Number(r.seq), version: r.version, writtenAtMs: Number(r.written_ms) });

async function saveIn(client: pg.PoolClient, save: FactsSave): Promise<FactsSaveOutcome> {
  // The mark row exists before it is locked (a first save of two replicas at once: one inserts, the other waits on its lock).
  await client.query('INSERT INTO report_facts_mark (id, seq, version, written_ms) VALUES (1, -1, 0, 0) ON CONFLICT (id) DO NOTHING');
  const stored = toMark((await client.query<MarkRow>('SELECT seq, version, written_ms FROM report_facts_mark WHERE id = 1 FOR UPDATE')).rows[0]);
  // seq -1: the row just inserted, no checkpoint yet.
  const had = stored !== null && stored.seq >= 0 ? stored : null;
  if (had !== null && had.seq >= save.mark.seq) return 'behind';
  if (had !== null && had.version !== save.mark.version && !save.full) return 'other-version';
  if (save.full) await client.query('DELETE FROM report_facts');
  for (let i = 0; i < save.pages.length; i += FACTS_WRITE_ROWS) {
    const part = save.pages.slice(i, i + FACTS_WRITE_ROWS);
    await client.query(`INSERT INTO report_facts (page_id, opened_ms, facts) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
      ON CONFLICT (page_id) DO UPDATE SET opened_ms = excluded.opened_ms, facts = excluded.facts`,
    [part.map((p) => p.pageId), part.map((p) => p.openedAtMs), part.map((p) => p.facts)]);
  }
  await client.query('DELETE FROM report_facts WHERE opened_ms < $1', [save.keepFromMs]);
  await client.query('UPDATE report_facts_mark SET seq = $1, version = $2, written_ms = $3 WHERE id = 1',
    [save.mark.seq, save.mark.version, save.mark.writtenAtMs]);
  return 'saved';
}

export function postgresReportFacts(pool: pg.Pool): ReportFactsStore {
  return {
    async save(save) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const outcome = await saveIn(client, save);
        // Refused: the seq -1 mark row (if this inserted it) goes with the rollback.
        await client.query(outcome === 'saved' ? 'COMMIT' : 'ROLLBACK');
        client.release();
        return outcome;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }
    },
    load: (onLines) => loadFacts({
      async mark() {
        const r = (await pool.query<MarkRow>('SELECT seq, version, written_ms FROM report_facts_mark WHERE id = 1 AND seq >= 0')).rows[0];
        return toMark(r);
      },
      async chunk(afterPageId, limit) {
        const { rows } = await pool.query<{ text: string | null; last: string | null }>(`SELECT string_agg(page_id || E'\\t' || opened_ms::text
          || E'\\t' || facts, E'\\n') AS text, max(page_id) AS last FROM (SELECT page_id, opened_ms, facts FROM report_facts
          WHERE page_id > $1 ORDER BY page_id LIMIT $2) f`, [afterPageId, limit]);
        return { text: rows[0]?.text ?? '', lastPageId: rows[0]?.last ?? null };
      },
    }, onLines),
  };
}
