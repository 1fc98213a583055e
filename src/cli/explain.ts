/**
 * `svc explain EVENT_ID [--json]` (contract §20.3): the story of one event (its id, or the first or last
 * characters only it has) from GET /events/<id>/story,
 * as a short timeline a person reads at 3 a.m. — when, which row (seq and the start of its hash),
 * what happened — and whether the trail is verified. `--json` prints the answer as served.
 */
import { auditSentence } from '../audit/audit-sentence.js';
import { EVENT_ID_PATTERN } from '../control-plane/event-story.js';
import { HttpError, RuntimeError, UsageError } from '../core/errors.js';
import type { CliContext } from './context.js';
import { getJson } from './control-client.js';
import { findByPrefix, isIdPrefix, pickOne } from './id-prefix.js';
import { ownTarget } from './own-home.js';
import { printTable } from './style.js';

export interface ExplainOptions {
  json: boolean;
  url?: string;
  dir?: string;
}

interface StoryAnswer {
  eventId: string;
  verified: boolean;
  verification: { problems: Array<{ seq: number; problem: string }>; chainIntactThroughSeq: number; chainProblem: { seq: number; kind: string } | null;
    /** Absent from a daemon of an older svc. */
    checkedFromSeq?: number; checkedAt?: string; fullCheckAt?: string | null };
  truncated: boolean;
  rows: Array<{ seq: number; ts: string; kind: string; actor: string; hash: string; data: Record<string, unknown> | null }>;
}

/** The timeline and the verdict, through the terminal-safe printer. */
export function printStory(story: StoryAnswer, ctx: CliContext): void {
  const rows = story.rows.map((r) => [r.ts, String(r.seq), r.hash.slice(0, 12), auditSentence(r.kind, r.actor, r.data)]);
  ctx.stdout(`event ${story.eventId}\n`);
  printTable(ctx, [{ header: 'TIME', min: 20 }, { header: 'SEQ', whole: true }, { header: 'HASH', drop: 1 }, { header: 'WHAT', min: 40, wrap: true }], rows);
  if (story.truncated) ctx.stdout(`(only the first ${story.rows.length} rows; --json for all fields)\n`);
  const v = story.verification;
  const verdict = story.verified
    ? `verified: every row hashes and links; the chain is intact through seq ${v.chainIntactThroughSeq}`
    : `NOT verified: ${[...v.problems.map((p) => `seq ${p.seq} ${p.problem}`),
      ...(v.chainProblem ? [`chain broken at seq ${v.chainProblem.seq} (${v.chainProblem.kind})`] : [])].join(', ') || 'the chain is not verified up to these rows'}`;
  ctx.stdout(verdict, story.verified ? 'green' : 'red');
  ctx.stdout('\n');
  if (story.verified) ctx.stdout(checkedText(story.verification));
}

/**
 * What was checked, and when (each line under 80 columns): the rows from the story's first to the head
 * when it was asked for, those before it earlier. Nothing from a daemon of an older svc.
 */
function checkedText(v: StoryAnswer['verification']): string {
  if (v.checkedFromSeq === undefined || v.checkedAt === undefined) return '';
  const now = `checked at ${v.checkedAt}: seq ${v.checkedFromSeq} to ${v.chainIntactThroughSeq} (the head)\n`;
  if (v.checkedFromSeq <= 1) return now;
  return `${now}before seq ${v.checkedFromSeq}: ${v.fullCheckAt ? `verified whole at ${v.fullCheckAt}, then as appended` : 'not verified yet'}\n`;
}

export async function explainCommand(eventId: string, opts: ExplainOptions, ctx: CliContext): Promise<number> {
  const target = await ownTarget(ctx, opts);
  if (!EVENT_ID_PATTERN.test(eventId)) {
    if (!isIdPrefix(eventId)) throw new UsageError(`svc explain: ${JSON.stringify(eventId.slice(0, 80))} is not an event id (a UUID as svc events shows, or its first or last characters)`);
    // The first or last characters of one, as svc events show and svc dlq replay take them.
    eventId = pickOne('svc explain', 'event', eventId, await findByPrefix<{ id: string }>(target, 'svc explain', '/events', eventId)).id;
  }
  let story: StoryAnswer;
  try {
    story = await getJson(target, `/events/${eventId}/story`) as StoryAnswer;
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) {
      throw new RuntimeError('ENOTFOUND', `svc explain: no audit row concerns event ${eventId}`);
    }
    throw err;
  }
  if (opts.json) ctx.stdout(`${JSON.stringify(story)}\n`);
  else printStory(story, ctx);
  return story.verified ? 0 : 1;
}
