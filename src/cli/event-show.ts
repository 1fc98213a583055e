/**
 * `svc events show ID`: one whole event — its fields, what triage decided (its `triage.decision` row,
 * from GET /events/<id>/story) and its payload — found by its id or a prefix only it has.
 */
import type { CliContext } from './context.js';
import { getJson } from './control-client.js';
import { summaryOfTriage } from '../store/event-summary.js';
import type { EventSummary } from '../store/event-summary.js';
import { findByPrefix, pickOne } from './id-prefix.js';
import { ownTarget } from './own-home.js';
import type { EventItem } from './views.js';

interface StoryRow { kind: string; data?: unknown }

export async function eventShowCommand(id: string, opts: { json: boolean; url?: string; dir?: string }, ctx: CliContext): Promise<number> {
  const target = await ownTarget(ctx, opts);
  const event = pickOne('svc events show', 'event', id, await findByPrefix<EventItem>(target, 'svc events show', '/events', id));
  let triage: EventSummary | null = null;
  try {
    const story = await getJson(target, `/events/${event.id}/story`) as { rows?: StoryRow[] };
    for (const row of story.rows ?? []) if (row.kind === 'triage.decision') triage = summaryOfTriage(row.data)?.summary ?? triage;
  } catch {
    // no story (an audit chain trimmed by nothing yet written): the event still shows
  }
  if (opts.json) {
    ctx.stdout(`${JSON.stringify({ ...event, triage })}\n`);
    return 0;
  }
  const lines = [
    `event ${event.id}`,
    `  time         ${event.ts}`,
    `  agent        ${event.agentId}`,
    `  source       ${event.sourceId}`,
    `  kind         ${event.kind}`,
    `  state        ${event.status}${event.corrupt ? ' (stored damaged)' : ''}`,
    `  fingerprint  ${event.fingerprint ?? '-'}`,
    triage === null ? '  triage       not yet' : `  triage       ${triage.status ?? '-'} ${triage.severity ?? '-'} "${triage.title ?? ''}" by ${triage.triagedBy ?? '?'}`,
    'payload:',
    JSON.stringify(event.payload ?? null, null, 2),
    `(its story: svc explain ${event.id})`,
  ];
  ctx.stdout(`${lines.join('\n')}\n`);
  return 0;
}
