/**
 * Stored rows (SQLite or PostgreSQL) as records. Decoding never throws: a row whose columns do not have the
 * types svc wrote (edited by hand, damaged on disk) becomes a record marked `corrupt: true`, its
 * readable columns kept and the rest empty (contract §11.5), so one bad row never fails a page.
 */
import { isoTs } from '../core/clock.js';
import type { StoredAuditRow } from '../audit/audit-row.js';
import type { DeadLetterRecord, EventRecord, EventStatus, ListedAuditRow } from './store.js';
import { EVENT_STATUSES } from './store.js';

export const EVENT_COLS = 'seq, id, ts_ms, agent_id, source_id, kind, fingerprint, status, payload';
export const DEAD_LETTER_COLS = 'seq, id, ts_ms, agent_id, source_id, event_id, reason, error, attempts, payload, replayed_ms';
export const AUDIT_COLS = 'seq, ts, kind, actor, agent_id, data, prev_hash, hash';

/**
 * Free text from outside (a receiver's answer quoted in a dead letter's error) as every store can keep
 * it: PostgreSQL's text refuses the NUL character, so both stores replace it with U+FFFD — the same
 * record whichever store holds it, and never a completion that fails for its error message.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** Raw rows: SQLite may hand back any storage class in any column of a damaged row. */
type Raw = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const safeIso = (ms: number | null): string | null => {
  if (ms === null || Math.abs(ms) > 8.64e15) return null;
  return isoTs(ms);
};

/** Whether `text` is a JSON object (what ingest and the audit writer store). */
export function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * `validatePayload`: parse the payload to prove it is a JSON object (views, which embed it raw);
 * claims skip it, the dispatcher parses the payload anyway and dead-letters what fails.
 */
export function toEvent(r: Raw, validatePayload: boolean): EventRecord & { seq: number } {
  const id = str(r.id);
  const ts = safeIso(int(r.ts_ms));
  const agentId = str(r.agent_id);
  const sourceId = str(r.source_id);
  const kind = str(r.kind);
  const fingerprint = r.fingerprint === null ? null : str(r.fingerprint);
  const status = typeof r.status === 'string' && (EVENT_STATUSES as readonly string[]).includes(r.status) ? r.status as EventStatus : null;
  let payloadText = str(r.payload);
  if (payloadText !== null && validatePayload && !isJsonObjectText(payloadText)) payloadText = null;
  const event: EventRecord & { seq: number } = {
    seq: int(r.seq) ?? 0, id: id ?? '', ts: ts ?? '', agentId: agentId ?? '', sourceId: sourceId ?? '', kind: kind ?? '',
    fingerprint, status: status ?? 'accepted', payloadText,
  };
  const fingerprintOk = r.fingerprint === null || fingerprint !== null;
  if ([id, ts, agentId, sourceId, kind, status, payloadText].includes(null) || !fingerprintOk) event.corrupt = true;
  return event;
}

export function toDeadLetter(r: Raw): DeadLetterRecord & { seq: number } {
  const values = {
    id: str(r.id), ts: safeIso(int(r.ts_ms)), agentId: str(r.agent_id), sourceId: str(r.source_id), eventId: str(r.event_id),
    reason: str(r.reason), error: str(r.error), attempts: int(r.attempts),
  };
  let payloadText = str(r.payload);
  if (payloadText !== null && !isJsonObjectText(payloadText)) payloadText = null;
  const replayedMs = r.replayed_ms === null ? null : int(r.replayed_ms);
  const letter: DeadLetterRecord & { seq: number } = {
    seq: int(r.seq) ?? 0, id: values.id ?? '', ts: values.ts ?? '', agentId: values.agentId ?? '', sourceId: values.sourceId ?? '',
    eventId: values.eventId ?? '', reason: values.reason ?? '', error: values.error ?? '', attempts: values.attempts ?? 0,
    payloadText, replayedAt: safeIso(replayedMs),
  };
  const replayOk = r.replayed_ms === null || letter.replayedAt !== null;
  if (Object.values(values).includes(null) || payloadText === null || !replayOk) letter.corrupt = true;
  return letter;
}

/** An audit row for a view: `dataText` must be a JSON object to be embedded. */
export function toListedAudit(r: Raw): ListedAuditRow {
  const stored = toStoredAudit(r);
  const dataText = stored.corrupt || !isJsonObjectText(stored.dataText) ? null : stored.dataText;
  const row: ListedAuditRow = { ...stored, dataText };
  delete row.corrupt;
  if (stored.corrupt || dataText === null) row.corrupt = true;
  return row;
}

/**
 * An audit row as stored, for verification and export: text columns that are not text become
 * values that can never hash right, so verification reports the row instead of failing.
 */
export function toStoredAudit(r: Raw): StoredAuditRow & { corrupt?: true } {
  const values = {
    ts: str(r.ts), kind: str(r.kind), actor: str(r.actor), data: str(r.data), prevHash: str(r.prev_hash), hash: str(r.hash),
  };
  const agentId = r.agent_id === null ? null : str(r.agent_id);
  const row: StoredAuditRow & { corrupt?: true } = {
    seq: int(r.seq) ?? 0, ts: values.ts ?? '', kind: values.kind ?? '', actor: values.actor ?? '', agentId,
    dataText: values.data ?? '', prevHash: values.prevHash ?? '', hash: values.hash ?? '',
  };
  if (Object.values(values).includes(null) || (r.agent_id !== null && agentId === null)) row.corrupt = true;
  return row;
}
