/**
 * What a write means, decided once for every store (contract §9.3, §10): whether an ingest is a
 * duplicate, what an accepted event, its fingerprint and its audit rows are; what a completion sets on
 * its event and which rows go with it (a dead letter and `event.dead-lettered`); what a replay adds to
 * the chain. Pure: ids and time come in as arguments. The SQLite writer and the PostgreSQL chain
 * writer read what a plan needs, ask here, and persist the plan; the next audit row's seq, stamp and
 * hash come from audit/next-audit-row.ts.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import { isoTs } from '../core/clock.js';
import type { Completion, CompletionResult, EventRecord, EventStatus, NewEvent, ReplayVia } from './store.js';
import { storableText } from './rows.js';

/** A fingerprint as last seen: the event it named and when. */
export interface SeenFingerprint {
  eventId: string;
  seenMs: number;
}

/**
 * The duplicate-window rule (contract §9.3): a fingerprint seen less than `windowMs` ago names the
 * event a new delivery duplicates; one seen exactly `windowMs` ago or earlier no longer does.
 */
export function isDuplicate(seen: SeenFingerprint | undefined, nowMs: number, windowMs: number): seen is SeenFingerprint {
  return seen !== undefined && seen.seenMs > nowMs - windowMs;
}

export type IngestPlan =
  | { outcome: 'duplicate'; eventId: string }
  | {
    outcome: 'accepted';
    /** The event to insert; its ts_ms is `tsMs` (already stamped after the table's last row). */
    event: EventRecord & { tsMs: number; payloadText: string };
    /** The fingerprint to upsert (it now names this event, seen now), or null when the event has none. */
    fingerprint: { agentId: string; sourceId: string; fingerprint: string; eventId: string; seenMs: number } | null;
    audit: NewAuditEntry[];
  };

/**
 * The plan of one ingest. `seen` is the stored fingerprint of `e` (undefined when none or no
 * fingerprint); `tsMs` the new row's stamp (audit/next-audit-row.ts `stampMs` after the last event);
 * `silencedBy` the ids of the live silences that cover every alert of the event (store/suppression.ts),
 * asked only of an event that is not a duplicate: one it names is stored `suppressed` with an
 * `event.suppressed` row (contract §17.8) and never claimed.
 */
export function planIngest(e: NewEvent, at: { id: string; nowMs: number; tsMs: number; windowMs: number; seen: SeenFingerprint | undefined;
  silencedBy?: () => readonly string[] }): IngestPlan {
  if (e.fingerprint !== null && isDuplicate(at.seen, at.nowMs, at.windowMs)) return { outcome: 'duplicate', eventId: at.seen.eventId };
  const silenceIds = at.silencedBy?.() ?? [];
  const audit: NewAuditEntry[] = [{ kind: 'event.accepted', actor: `source:${e.sourceId}`, agentId: e.agentId,
    data: { eventId: at.id, sourceId: e.sourceId, fingerprint: e.fingerprint } }];
  if (silenceIds.length > 0) {
    audit.push({ kind: 'event.suppressed', actor: `agent:${e.agentId}`, agentId: e.agentId, data: { eventId: at.id, silenceIds: [...silenceIds] } });
  }
  return {
    outcome: 'accepted',
    event: { id: at.id, ts: isoTs(at.tsMs), tsMs: at.tsMs, agentId: e.agentId, sourceId: e.sourceId, kind: e.kind, fingerprint: e.fingerprint,
      status: silenceIds.length > 0 ? 'suppressed' : 'accepted', payloadText: e.payloadText },
    fingerprint: e.fingerprint === null ? null
      : { agentId: e.agentId, sourceId: e.sourceId, fingerprint: e.fingerprint, eventId: at.id, seenMs: at.nowMs },
    audit,
  };
}

/** What a completion sets on its event, when its claim still holds (same owner, attempt, processing). */
export interface CompletionUpdate {
  status: Extract<EventStatus, 'processed' | 'dead-lettered' | 'accepted'>;
  /** When a retry may be claimed again; null otherwise. */
  dueMs: number | null;
  /** The delivery state to store; null keeps what is stored. */
  delivery: string | null;
}

export function completionUpdate(c: Completion): CompletionUpdate {
  return {
    status: c.outcome === 'processed' || c.outcome === 'dead-lettered' ? c.outcome : 'accepted',
    dueMs: c.outcome === 'retry' ? c.dueMs : null,
    delivery: c.outcome === 'released' ? null : c.delivery ?? null,
  };
}

/** The dead letter a completion files, as stored (its ts_ms is stamped by the store after its last). */
export interface PlannedDeadLetter {
  id: string; agentId: string; sourceId: string; eventId: string; reason: string; error: string; attempts: number; payloadText: string;
}

export interface CompletionPlan {
  result: CompletionResult;
  deadLetter: PlannedDeadLetter | null;
  /** In order: the completion's own rows, then `event.dead-lettered` for a dead letter. */
  audit: NewAuditEntry[];
}

/**
 * The rows a completion whose claim held writes. `event` is the completed event as stored; `id` the
 * new dead letter's id (used only for a dead letter).
 */
export function planCompletion(c: Completion, event: { agentId: string; sourceId: string; payloadText: string }, id: string): CompletionPlan {
  if (c.outcome === 'released') return { result: { ok: true }, deadLetter: null, audit: [] };
  if (c.outcome !== 'dead-lettered') return { result: { ok: true }, deadLetter: null, audit: [...c.audit] };
  const { reason, error, attempts } = c.deadLetter;
  return {
    result: { ok: true, deadLetterId: id },
    deadLetter: { id, agentId: event.agentId, sourceId: event.sourceId, eventId: c.claim.eventId, reason: storableText(reason),
      error: storableText(error), attempts, payloadText: event.payloadText },
    audit: [...c.audit, { kind: 'event.dead-lettered', actor: `agent:${event.agentId}`, agentId: event.agentId,
      data: { eventId: c.claim.eventId, deadLetterId: id, reason, attempts } }],
  };
}

/** A dead letter as a replay reads it. */
export interface ReplayedLetter { id: string; event_id: string; agent_id: string; source_id: string; reason: string }

/** The audit row of one dead letter replayed (its event is accepted again). */
export function replayAudit(letter: ReplayedLetter, actor: string, via: ReplayVia | undefined): NewAuditEntry {
  return { kind: 'dlq.replayed', actor, agentId: letter.agent_id,
    data: { deadLetterId: letter.id, eventId: letter.event_id, sourceId: letter.source_id, reason: letter.reason, ...(via === undefined ? {} : { via }) } };
}
