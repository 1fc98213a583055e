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
