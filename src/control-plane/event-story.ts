/**
 * The story of an event (contract §20.3) as GET /events/<id>/story answers it: the audit rows that
 * concern the event, in seq order, and whether they can be trusted — saying what was checked, and when.
 *
 * `verified` is true only when every row of the story hashes to its stored hash, links to the row
 * before it (its `prevHash` is that row's hash, genesis for seq 1) and is linked to by the row after
 * it, every row from the story's first to the head hashes and links when the story is asked for
 * (`checkedFromSeq`, `checkedAt`), and the rows before it were found intact when last checked: the
 * whole chain at `fullCheckAt`, then each row as it came (store/chain-watermark.ts). So a row of the
 * story, or any later one, changed in place is never called intact. A rewritten tail re-hashed all
 * the way to the head is what only signed checkpoints catch (docs/audit.md).
 */
import type { AuditProblem } from '../audit/chain.js';
import { GENESIS_HASH, storedRowHashMatches } from '../audit/chain.js';
import type { ChainWatermark, TailCheck, WatermarkState } from '../store/chain-watermark.js';
import { auditJson } from '../store/record-json.js';
import type { StoryRow } from '../store/store.js';
import { STORY_ROW_LIMIT } from '../store/store.js';

/** Event ids are UUIDs (the stores make them with store/record-id.ts). */
export const EVENT_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What is wrong with one row of a story, checked as the chain verifier would; null when nothing. */
export function storyRowProblem(row: StoryRow): AuditProblem | null {
  if (row.seq > 1 && row.predecessorHash === null) return 'seq-gap';
  if (row.prevHash !== (row.seq === 1 ? GENESIS_HASH : row.predecessorHash)) return 'prev-link-mismatch';
  if (row.corrupt || !storedRowHashMatches(row)) return 'hash-mismatch';
  if (row.successorPrevHash !== null && row.successorPrevHash !== row.hash) return 'hash-mismatch';
  return null;
}

export interface StoryVerdict {
  verified: boolean;
  problems: Array<{ seq: number; problem: AuditProblem }>;
  truncated: boolean;
}

/** What was checked of the chain for a story: the rows before it as last checked, its rows to the head now. */
export interface StoryChainCheck {
  before: WatermarkState;
  tail: TailCheck;
}

/** Checks the chain for a story whose rows are `rows` (read first, so the head checked reaches them). */
export async function checkStoryChain(rows: readonly StoryRow[], watermark: ChainWatermark): Promise<StoryChainCheck> {
  const before = await watermark.current();
  return { before, tail: await watermark.tail(rows[0]?.seq ?? 1) };
}

export function storyVerdict(rows: readonly StoryRow[], check: StoryChainCheck): StoryVerdict {
  const truncated = rows.length > STORY_ROW_LIMIT;
  const shown = truncated ? rows.slice(0, STORY_ROW_LIMIT) : rows;
  const problems = shown.flatMap((row) => {
    const problem = storyRowProblem(row);
    return problem === null ? [] : [{ seq: row.seq, problem }];
  });
  const firstSeq = shown[0]?.seq ?? 0;
  const lastSeq = shown[shown.length - 1]?.seq ?? 0;
  const { before, tail } = check;
  const verified = shown.length > 0 && problems.length === 0 && tail.ok && tail.throughSeq >= lastSeq
    && before.ok && before.seq >= firstSeq - 1;
  return { verified, problems, truncated };
}

/**
 * `{"eventId", "verified", "verification": {"problems", "chainIntactThroughSeq", "chainProblem",
 * "checkedFromSeq", "checkedAt", "fullCheckAt"}, "truncated", "rows": [audit rows as /audit shows
 * them]}`. Rows' data is embedded as stored.
 */
export function storyJson(eventId: string, rows: readonly StoryRow[], check: StoryChainCheck): string {
  const verdict = storyVerdict(rows, check);
  const shown = verdict.truncated ? rows.slice(0, STORY_ROW_LIMIT) : rows;
  const { before, tail } = check;
  const chainProblem = tail.problem ?? before.problem;
  const head = JSON.stringify({
    eventId, verified: verdict.verified,
    verification: { problems: verdict.problems,
      chainIntactThroughSeq: tail.problem !== null ? tail.problem.seq - 1 : before.ok ? tail.throughSeq : before.seq,
      chainProblem, checkedFromSeq: tail.fromSeq, checkedAt: tail.checkedAt, fullCheckAt: before.fullCheckAt },
    truncated: verdict.truncated,
  });
  const items = shown.map((r) => auditJson({ ...r, dataText: r.corrupt ? null : r.dataText })).join(',');
  return `${head.slice(0, -1)},"rows":[${items}]}`;
}
