/** The columns and the mapping of an event's story rows (Store.eventStory), shared by both stores. */
import type { StoryRow } from './store.js';
import { toStoredAudit } from './rows.js';

/** Over `audit a` (the row), `audit p` and `audit n` (the rows just before and after it, LEFT JOINed). */
export const STORY_COLS = 'a.seq, a.ts, a.kind, a.actor, a.agent_id, a.data, a.prev_hash, a.hash, p.hash AS predecessor_hash, '
  + 'n.prev_hash AS successor_prev_hash';

/** FROM … WHERE of a story: the index of the event's rows, each row, its neighbours. One parameter: the event id. */
export const storyFrom = (param: string): string => `FROM audit_events e JOIN audit a ON a.seq = e.seq
  LEFT JOIN audit p ON p.seq = a.seq - 1 LEFT JOIN audit n ON n.seq = a.seq + 1 WHERE e.event_id = ${param} ORDER BY e.seq`;

export function storyRowOf(r: Record<string, unknown>): StoryRow {
  const predecessorHash = typeof r.predecessor_hash === 'string' ? r.predecessor_hash : null;
  const successorPrevHash = typeof r.successor_prev_hash === 'string' ? r.successor_prev_hash : null;
  return { ...toStoredAudit(r), predecessorHash, successorPrevHash };
}

/**
 * FROM … WHERE of a page's rows (§20.3: "the page and everything done to it"): the page's index
 * `page_audit`, each row, its neighbours. One parameter: the page id.
 */
export const pageStoryFrom = (param: string): string => `FROM page_audit e JOIN audit a ON a.seq = e.seq
  LEFT JOIN audit p ON p.seq = a.seq - 1 LEFT JOIN audit n ON n.seq = a.seq + 1 WHERE e.page_id = ${param} ORDER BY e.seq`;

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
