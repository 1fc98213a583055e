/**
 * Keyset pages and chain reads on PostgreSQL (contract §5, §11.4), the same semantics as the SQLite
 * pager: `limit + 1` keys say whether a next page exists, since/until become seq bounds through the
 * ts_ms index (exact: writes keep ts_ms non-decreasing in seq), and a page ends early once its rows
 * carry the byte budget. The budget is applied in the query: the first CTE reads only keys and sizes
 * (`octet_length` does not detoast), a running sum picks the rows, and only those are joined back for
 * their payloads. A page costs the same at 10 million rows as at 1,000.
 */
import type pg from 'pg';
import type { StoredAuditRow } from '../../audit/audit-row.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../cursor.js';
import type { Page, PageQuery, StoryRow } from '../store.js';
import { PAGE_BYTE_BUDGET, STORY_ROW_LIMIT } from '../store.js';
import type { PageSpec } from '../page-spec.js';
import { STORY_COLS, pageStoryFrom, pagesNamed, storyFrom, storyRowOf, withPageRows } from '../story-rows.js';
import { AUDIT_COLS, toStoredAudit } from '../rows.js';

export async function page<T>(pool: pg.Pool, spec: PageSpec<T>, q: PageQuery, budget = PAGE_BYTE_BUDGET): Promise<Page<T>> {
  if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new RangeError('page limit must be a positive integer');
  const where: string[] = [];
  const params: unknown[] = [];
  const $ = (v: unknown): string => { params.push(v); return `$${params.length}`; };
  for (const [column, value] of spec.filters) if (value !== undefined) where.push(`${column} = ${$(value)}`);
  if (q.cursor !== null) {
    const c = decodeCursor(q.cursor);
    if (!c.ok) throw new InvalidCursorError('malformed');
    if (c.order !== q.order) throw new InvalidCursorError(`issued for order=${c.order}`);
    where.push(`seq ${q.order === 'asc' ? '>' : '<'} ${$(c.key)}`);
  }
  const t = spec.table;
  if (q.sinceMs !== null) {
    const { rows } = await pool.query<{ seq: number }>(`SELECT seq FROM ${t} WHERE ts_ms >= $1 ORDER BY ts_ms, seq LIMIT 1`, [q.sinceMs]);
    if (rows[0] === undefined) return { items: [], nextCursor: null };
    where.push(`seq >= ${$(rows[0].seq)}`, `ts_ms >= ${$(q.sinceMs)}`);
  }
  if (q.untilMs !== null) {
    const { rows } = await pool.query<{ seq: number }>(`SELECT seq FROM ${t} WHERE ts_ms <= $1 ORDER BY ts_ms DESC, seq DESC LIMIT 1`, [q.untilMs]);
    if (rows[0] === undefined) return { items: [], nextCursor: null };
    where.push(`seq <= ${$(rows[0].seq)}`, `ts_ms <= ${$(q.untilMs)}`);
  }
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  const sql = `WITH k AS (
      SELECT seq, octet_length(${spec.bytesColumn}) AS b FROM ${t}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
      ORDER BY seq ${dir} LIMIT ${$(q.limit + 1)}),
    r AS (SELECT seq, row_number() OVER w AS rn, sum(b) OVER w AS run, count(*) OVER () AS total FROM k
      WINDOW w AS (ORDER BY seq ${dir} ROWS UNBOUNDED PRECEDING))
    SELECT ${spec.cols.split(', ').map((c) => `x.${c}`).join(', ')}, r.total FROM r JOIN ${t} x ON x.seq = r.seq
    WHERE r.rn <= ${$(q.limit)} AND (r.rn = 1 OR r.run <= ${$(budget)}) ORDER BY x.seq ${dir}`;
  const { rows } = await pool.query<Record<string, unknown>>(sql, params);
  const total = Number(rows[0]?.total ?? 0);
  const items = rows.map((row) => spec.map(row));
  const last = rows[rows.length - 1];
  const more = rows.length < total;
  return { items, nextCursor: more && last !== undefined ? encodeCursor({ key: Number(last.seq), order: q.order }) : null };
}

export async function readAudit(pool: pg.Pool, afterSeq: number, limit: number): Promise<StoredAuditRow[]> {
  const { rows } = await pool.query<Record<string, unknown>>(`SELECT ${AUDIT_COLS} FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  return rows.map((r) => {
    const { corrupt: _corrupt, ...row } = toStoredAudit(r);
    return row;
  });
}

/**
 * Store.eventStory: the rows naming the event (an index search over their data, ../story-rows.ts), each
 * with its predecessor's hash, then the rows of the pages those rows name, in one repeatable-read snapshot.
 */
export async function eventStory(pool: pg.Pool, eventId: string): Promise<StoryRow[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const read = async (from: string, id: string): Promise<StoryRow[]> =>
      (await client.query<Record<string, unknown>>(`SELECT ${STORY_COLS} ${from} LIMIT $2`, [id, STORY_ROW_LIMIT + 1])).rows.map(storyRowOf);
    const own = await read(storyFrom('postgres', '$1'), eventId);
    const pages: StoryRow[][] = [];
    for (const pageId of pagesNamed(own)) pages.push(await read(pageStoryFrom('postgres', '$1'), pageId));
    await client.query('COMMIT');
    return pages.length === 0 ? own : withPageRows(own, pages, STORY_ROW_LIMIT + 1);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The chain's last row as committed (the head row of chain-tx.ts moves in the same transactions). */
export async function auditHead(pool: pg.Pool): Promise<{ seq: number; hash: string; tsMs: number } | null> {
  const { rows } = await pool.query<{ seq: number; hash: string; ts_ms: number }>('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1');
  const head = rows[0];
  return head === undefined ? null : { seq: head.seq, hash: head.hash, tsMs: head.ts_ms };
}
