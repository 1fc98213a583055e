/** The columns and the mapping of an event's story rows (Store.eventStory), shared by both stores. */
import type { StoryRow } from './store.js';
import { toStoredAudit } from './rows.js';

/** Over `audit a` (the row) and `audit p` (the row before it, LEFT JOINed on p.seq = a.seq - 1). */
export const STORY_COLS = 'a.seq, a.ts, a.kind, a.actor, a.agent_id, a.data, a.prev_hash, a.hash, p.hash AS predecessor_hash';

export function storyRowOf(r: Record<string, unknown>): StoryRow {
  const predecessorHash = typeof r.predecessor_hash === 'string' ? r.predecessor_hash : null;
  return { ...toStoredAudit(r), predecessorHash };
}
