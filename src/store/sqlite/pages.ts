/**
 * Keyset pages over a table's seq (contract §5, §11.4): `limit + 1` rows tell whether a next page
 * exists, since/until become seq bounds through the ts_ms index (exact because writes keep ts_ms
 * non-decreasing in seq), and a page stops early once its rows carry PAGE_BYTE_BUDGET bytes of
 * payload or data text. A page costs the same at 10 million rows as at 1,000.
 */
import type Database from 'better-sqlite3';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../cursor.js';
import type { Page, PageQuery } from '../store.js';
import { PAGE_BYTE_BUDGET } from '../store.js';
import type { PageSpec, PagedTable } from '../page-spec.js';

interface Seq { seq: number }

export interface Pager {
  page<T>(spec: PageSpec<T>, q: PageQuery): Page<T>;
}

export function createPager(db: Database.Database, budget = PAGE_BYTE_BUDGET): Pager {
  const tsBounds = new Map<PagedTable, { low: Database.Statement<[number], Seq>; high: Database.Statement<[number], Seq> }>();
  const bounds = (t: PagedTable): { low: Database.Statement<[number], Seq>; high: Database.Statement<[number], Seq> } => {
    let b = tsBounds.get(t);
    if (b === undefined) {
      b = {
        low: db.prepare<[number], Seq>(`SELECT seq FROM ${t} WHERE ts_ms >= ? ORDER BY ts_ms ASC, seq ASC LIMIT 1`),
        high: db.prepare<[number], Seq>(`SELECT seq FROM ${t} WHERE ts_ms <= ? ORDER BY ts_ms DESC, seq DESC LIMIT 1`),
      };
      tsBounds.set(t, b);
    }
    return b;
  };
  // One prepared statement per query shape (filters present, bounds, order), each prepared on first use.
  const statements = new Map<string, Database.Statement<unknown[], Record<string, unknown>>>();

  return {
    page<T>(spec: PageSpec<T>, q: PageQuery): Page<T> {
      if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new RangeError('page limit must be a positive integer');
      const where: string[] = [];
      const params: unknown[] = [];
      for (const [column, value] of spec.filters) {
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
        const low = bounds(spec.table).low.get(q.sinceMs);
        if (low === undefined) return { items: [], nextCursor: null };
        // The unary + keeps the planner on the seq range instead of the ts_ms index.
        where.push('seq >= ?', '+ts_ms >= ?');
        params.push(low.seq, q.sinceMs);
      }
      if (q.untilMs !== null) {
        const high = bounds(spec.table).high.get(q.untilMs);
        if (high === undefined) return { items: [], nextCursor: null };
        where.push('seq <= ?', '+ts_ms <= ?');
        params.push(high.seq, q.untilMs);
      }
      const sql = `SELECT ${spec.cols}, octet_length(${spec.bytesColumn}) AS _bytes FROM ${spec.table}`
        + `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
      params.push(q.limit + 1);
      let stmt = statements.get(sql);
      if (stmt === undefined) {
        stmt = db.prepare<unknown[], Record<string, unknown>>(sql);
        statements.set(sql, stmt);
      }
      const items: T[] = [];
      let lastSeq: number | null = null;
      let bytes = 0;
      let more = false;
      for (const row of stmt.iterate(...params)) {
        const size = typeof row._bytes === 'number' ? row._bytes : 0;
        if (items.length === q.limit || (items.length > 0 && bytes + size > budget)) {
          more = true;
          break;
        }
        bytes += size;
        items.push(spec.map(row));
        lastSeq = typeof row.seq === 'number' ? row.seq : lastSeq;
      }
      return { items, nextCursor: more && lastSeq !== null ? encodeCursor({ key: lastSeq, order: q.order }) : null };
    },
  };
}
