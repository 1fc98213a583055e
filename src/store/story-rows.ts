/**
 * Which audit rows an event's story (Store.eventStory, contract §20.3) and a page's timeline (§17.9)
 * hold, the one rule for both stores: a row concerns the event its own data names as `eventId`, and the
 * page its data names as `pageId`. Both are read from the hashed rows themselves, through an index of
 * the database over those fields (SQLite's expression index, PostgreSQL's over `audit_ref`), never
 * through a table of its own beside the chain: such a table was not hashed, so editing it changed what
 * a story verified as whole contained, or made a used ack link usable again (issue 33). Whatever
 * changes what a story holds now changes a hashed row, which verification sees.
 */
import type { StoryRow } from './store.js';
import { toStoredAudit } from './rows.js';

export type SqlDialect = 'sqlite' | 'postgres';
/** The fields by which a row names what it concerns. */
export type AuditRef = 'eventId' | 'pageId';

/**
 * `<col>` (an audit row's data) names `<param>` as `field`: the very expression each store's index is
 * built on (sqlite/oncall-schema.ts ONCALL_INTEGRITY_MIGRATION, postgres/oncall.ts), so a lookup is an
 * index search. Data that is not JSON names nothing.
 */
export function namesRef(dialect: SqlDialect, field: AuditRef, col: string, param: string): string {
  return dialect === 'sqlite'
    ? `json_valid(${col}) AND json_type(${col}, '$.${field}') = 'text' AND json_extract(${col}, '$.${field}') = ${param}`
    : `audit_ref(${col}, '${field}') = ${param}`;
}

/** Over `audit a` (the row), `audit p` and `audit n` (the rows just before and after it, LEFT JOINed). */
export const STORY_COLS = 'a.seq, a.ts, a.kind, a.actor, a.agent_id, a.data, a.prev_hash, a.hash, p.hash AS predecessor_hash, '
  + 'n.prev_hash AS successor_prev_hash';

/** FROM … WHERE of a story: the rows naming the event, each with its neighbours. One parameter: the event id. */
export const storyFrom = (dialect: SqlDialect, param: string): string => `FROM audit a
  LEFT JOIN audit p ON p.seq = a.seq - 1 LEFT JOIN audit n ON n.seq = a.seq + 1 WHERE ${namesRef(dialect, 'eventId', 'a.data', param)} ORDER BY a.seq`;

export function storyRowOf(r: Record<string, unknown>): StoryRow {
  const predecessorHash = typeof r.predecessor_hash === 'string' ? r.predecessor_hash : null;
  const successorPrevHash = typeof r.successor_prev_hash === 'string' ? r.successor_prev_hash : null;
  return { ...toStoredAudit(r), predecessorHash, successorPrevHash };
}

/**
 * FROM … WHERE of a page's rows (§20.3: "the page and everything done to it"): the rows naming the
 * page, each with its neighbours. One parameter: the page id.
 */
export const pageStoryFrom = (dialect: SqlDialect, param: string): string => `FROM audit a
  LEFT JOIN audit p ON p.seq = a.seq - 1 LEFT JOIN audit n ON n.seq = a.seq + 1 WHERE ${namesRef(dialect, 'pageId', 'a.data', param)} ORDER BY a.seq`;

/** A page's timeline (§17.9): its rows in seq order, with AUDIT_COLS (rows.ts). One parameter: the page id. */
export const timelineSql = (dialect: SqlDialect, cols: string, param: string): string =>
  `SELECT ${cols} FROM audit WHERE ${namesRef(dialect, 'pageId', 'data', param)} ORDER BY seq`;

/** Most pages one event's story follows (an event opens, joins or resolves one page; a tampered row may name any). */
const MAX_STORY_PAGES = 8;

/**
 * The pages the event's own rows name as `pageId` — the page it opened, joined or resolved — whose
 * other rows (notified, escalated, acknowledged…) name the page, not the event.
 */
export function pagesNamed(rows: readonly StoryRow[]): string[] {
  const ids = new Set<string>();
  for (const row of rows) {
    if (!row.kind.startsWith('page.') || ids.size >= MAX_STORY_PAGES) continue;
    try {
      const pageId = (JSON.parse(row.dataText) as { pageId?: unknown }).pageId;
      if (typeof pageId === 'string') ids.add(pageId);
    } catch {
      // A damaged row names no page; verification reports it.
    }
  }
  return [...ids];
}

/** The event's rows and its pages' rows, each once, in seq order, at most `limit` of them. */
export function withPageRows(own: readonly StoryRow[], pages: ReadonlyArray<readonly StoryRow[]>, limit: number): StoryRow[] {
  const bySeq = new Map<number, StoryRow>();
  for (const row of [...own, ...pages.flat()]) bySeq.set(row.seq, row);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq).slice(0, limit);
}
