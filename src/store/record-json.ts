/**
 * The records of the views as the contract shows them (§5, §11.5, §13): an explicit pick of fields,
 * then the stored JSON text (payload or data) embedded as it is. A whole page is encoded at once into
 * bytes, where the rows are read: for the embedded store that is its reader thread, so a 4 MiB page
 * crosses to the daemon's event loop as one transferred buffer and is written to the socket as it is.
 */
import type {
  AuditFilter, DeadLetterFilter, DeadLetterRecord, EventFilter, EventRecord, JsonPage, ListedAuditRow, Page, PageQuery, Store, View, ViewFilter,
} from './store.js';

/** One record's JSON text: its fields, then the raw member (null: JSON null, the record is corrupt). */
function withRaw(fields: Record<string, unknown>, rawKey: string, raw: string | null): string {
  const text = JSON.stringify(fields);
  const member = `${JSON.stringify(rawKey)}:${raw ?? 'null'}`;
  return text === '{}' ? `{${member}}` : `${text.slice(0, -1)},${member}}`;
}

/** An event: `fingerprint` only when the source sent one, `corrupt` only when set. */
export function eventJson(e: EventRecord): string {
  return withRaw({
    id: e.id, ts: e.ts, agentId: e.agentId, sourceId: e.sourceId, kind: e.kind,
    ...(e.fingerprint !== null ? { fingerprint: e.fingerprint } : {}),
    status: e.status, ...(e.corrupt ? { corrupt: true } : {}),
  }, 'payload', e.payloadText);
}

/** A dead letter, with `replayedAt`, and `corrupt` only when set. */
export function deadLetterJson(d: DeadLetterRecord): string {
  return withRaw({
    id: d.id, ts: d.ts, agentId: d.agentId, sourceId: d.sourceId, eventId: d.eventId,
    reason: d.reason, error: d.error, attempts: d.attempts, replayedAt: d.replayedAt, ...(d.corrupt ? { corrupt: true } : {}),
  }, 'payload', d.payloadText);
}

/** An audit row: `data` is the stored canonical text; `corrupt` only when set. */
export function auditJson(a: ListedAuditRow): string {
  return withRaw({
    seq: a.seq, ts: a.ts, kind: a.kind, actor: a.actor, agentId: a.agentId, prevHash: a.prevHash, hash: a.hash,
    ...(a.corrupt ? { corrupt: true } : {}),
  }, 'data', a.dataText);
}

const encoder = new TextEncoder();

/** A page as `items` (the UTF-8 bytes of a JSON array, in a buffer of its own: transferable) and its cursor. */
export function jsonPageOf<T>(page: Page<T>, encode: (record: T) => string): JsonPage {
  return { items: encoder.encode(`[${page.items.map(encode).join(',')}]`), count: page.items.length, nextCursor: page.nextCursor };
}

/** `Store.listJson` for a store whose pages are read on the caller's thread: read the page, then encode it. */
export async function listJsonOf<V extends View>(lists: Pick<Store, 'listEvents' | 'listDeadLetters' | 'listAudit'>, view: V,
  query: PageQuery, filter: ViewFilter<V>): Promise<JsonPage> {
  if (view === 'events') return jsonPageOf(await lists.listEvents(query, filter as EventFilter), eventJson);
  if (view === 'dlq') return jsonPageOf(await lists.listDeadLetters(query, filter as DeadLetterFilter), deadLetterJson);
  return jsonPageOf(await lists.listAudit(query, filter as AuditFilter), auditJson);
}
