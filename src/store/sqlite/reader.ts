/**
 * The read side of the SQLite store, synchronous, on a read-only connection of its own (it runs in the
 * store's reader thread, store-worker.ts). WAL: reads never block the writer and see committed rows
 * only; a page read, however large, never holds up an ingest.
 */
import type Database from 'better-sqlite3';
import type { StoredAuditRow } from '../../audit/audit-row.js';
import type {
  AuditFilter, BacklogCount, DeadLetterFilter, DeadLetterRecord, EventFilter, EventRecord, JsonPage, ListedAuditRow, Page, PageQuery,
  StoryRow, View,
} from '../store.js';
import { STORY_ROW_LIMIT } from '../store.js';
import { STORY_COLS, pageStoryFrom, pagesNamed, storyFrom, storyRowOf, withPageRows } from '../story-rows.js';
import { auditJson, deadLetterJson, eventJson, jsonPageOf } from '../record-json.js';
import type { FingerprintKey, TransferCursor, TransferDeadLetter, TransferEvent, TransferFingerprint } from '../transfer.js';
import { createPager } from './pages.js';
import { AUDIT_COLS, DEAD_LETTER_COLS, EVENT_COLS, toDeadLetter, toEvent, toListedAudit, toStoredAudit } from '../rows.js';

export interface Reader {
  listEvents(q: PageQuery, f: EventFilter): Page<EventRecord>;
  listDeadLetters(q: PageQuery, f: DeadLetterFilter): Page<DeadLetterRecord>;
  listAudit(q: PageQuery, f: AuditFilter): Page<ListedAuditRow>;
  listJson(view: View, q: PageQuery, f: EventFilter & DeadLetterFilter & AuditFilter): JsonPage;
  getEvent(id: string): EventRecord | null;
  readAudit(afterSeq: number, limit: number): StoredAuditRow[];
  eventStory(eventId: string): StoryRow[];
  auditHead(): { seq: number; hash: string; tsMs: number } | null;
  backlog(): BacklogCount[];
  exportCursor(exporterId: string): number;
  // `svc store copy` (transfer.ts): rows as stored, in key order.
  readEvents(afterSeq: number, limit: number): TransferEvent[];
  readDeadLetters(afterSeq: number, limit: number): TransferDeadLetter[];
  readFingerprints(sinceMs: number, after: FingerprintKey | null, limit: number): TransferFingerprint[];
  readExportCursors(): TransferCursor[];
  isEmpty(): boolean;
}

const withoutSeq = <T extends { seq: number }>({ seq: _seq, ...rest }: T): Omit<T, 'seq'> => rest;

export function createReader(db: Database.Database, pageBudget?: number): Reader {
  const pager = createPager(db, pageBudget);
  const st = {
    getEvent: db.prepare<[string], Record<string, unknown>>(`SELECT ${EVENT_COLS} FROM events WHERE id = ?`),
    readAudit: db.prepare<[number, number], Record<string, unknown>>(`SELECT ${AUDIT_COLS} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`),
    auditHead: db.prepare<[], { seq: number; hash: string; ts_ms: number }>('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1'),
    backlog: db.prepare<[], { agent_id: string; source_id: string; n: number }>(
      `SELECT agent_id, source_id, COUNT(*) AS n FROM events INDEXED BY events_backlog
       WHERE status IN ('accepted', 'processing') GROUP BY agent_id, source_id`),
    exportCursor: db.prepare<[string], { last_seq: number }>('SELECT last_seq FROM audit_export_cursors WHERE exporter_id = ?'),
    readEvents: db.prepare<[number, number], TransferEvent>(`SELECT seq, id, ts_ms AS tsMs, agent_id AS agentId, source_id AS sourceId, kind,
      fingerprint, CASE status WHEN 'processing' THEN 'accepted' ELSE status END AS status, payload AS payloadText, attempt
      FROM events WHERE seq > ? ORDER BY seq LIMIT ?`),
    readDeadLetters: db.prepare<[number, number], TransferDeadLetter>(`SELECT seq, id, ts_ms AS tsMs, agent_id AS agentId,
      source_id AS sourceId, event_id AS eventId, reason, error, attempts, payload AS payloadText, replayed_ms AS replayedMs
      FROM dead_letters WHERE seq > ? ORDER BY seq LIMIT ?`),
    readFingerprints: db.prepare<[{ since: number; a: string | null; s: string | null; f: string | null; limit: number }], TransferFingerprint>(
      `SELECT agent_id AS agentId, source_id AS sourceId, fingerprint, event_id AS eventId, seen_ms AS seenMs FROM fingerprints
       WHERE seen_ms >= @since AND (@a IS NULL OR (agent_id, source_id, fingerprint) > (@a, @s, @f))
       ORDER BY agent_id, source_id, fingerprint LIMIT @limit`),
    readExportCursors: db.prepare<[], TransferCursor>(
      'SELECT exporter_id AS exporterId, last_seq AS lastSeq, updated_ms AS updatedMs FROM audit_export_cursors ORDER BY exporter_id'),
    isEmpty: db.prepare<[], { n: number }>(`SELECT NOT EXISTS (SELECT 1 FROM events) AND NOT EXISTS (SELECT 1 FROM dead_letters)
      AND NOT EXISTS (SELECT 1 FROM audit) AS n`),
  };
  // Prepared on first use. A read-only store of an older schema (without the index) reads the same rows, by a scan.
  let story: Database.Statement<[string, number], Record<string, unknown>> | null = null;
  let pageStory: Database.Statement<[string, number], Record<string, unknown>> | null = null;
  // One read transaction: the event's rows and its pages' rows from one snapshot of the chain.
  const readStory = db.transaction((eventId: string): StoryRow[] => {
    story ??= db.prepare(`SELECT ${STORY_COLS} ${storyFrom('sqlite', '?')} LIMIT ?`);
    const own = story.all(eventId, STORY_ROW_LIMIT + 1).map(storyRowOf);
    const pages = pagesNamed(own);
    if (pages.length === 0) return own;
    pageStory ??= db.prepare(`SELECT ${STORY_COLS} ${pageStoryFrom('sqlite', '?')} LIMIT ?`);
    const statement = pageStory;
    return withPageRows(own, pages.map((id) => statement.all(id, STORY_ROW_LIMIT + 1).map(storyRowOf)), STORY_ROW_LIMIT + 1);
  });
  const reader: Reader = {
    eventStory: (eventId) => readStory(eventId),
    listEvents: (q, f) => pager.page({
      table: 'events', cols: EVENT_COLS, bytesColumn: 'payload',
      filters: [['agent_id', f.agent], ['source_id', f.source], ['kind', f.kind], ['status', f.status]],
      map: (r) => withoutSeq(toEvent(r, true)),
    }, q),
    listDeadLetters: (q, f) => pager.page({
      table: 'dead_letters', cols: DEAD_LETTER_COLS, bytesColumn: 'payload',
      filters: [['agent_id', f.agent], ['source_id', f.source], ['reason', f.reason]],
      map: (r) => withoutSeq(toDeadLetter(r)),
    }, q),
    listAudit: (q, f) => pager.page({
      table: 'audit', cols: AUDIT_COLS, bytesColumn: 'data',
      filters: [['kind', f.kind], ['agent_id', f.agent]],
      map: toListedAudit,
    }, q),
    getEvent: (id) => {
      const row = st.getEvent.get(id);
      return row === undefined ? null : withoutSeq(toEvent(row, true));
    },
    readAudit: (afterSeq, limit) => st.readAudit.all(afterSeq, limit).map((r) => {
      const { corrupt: _corrupt, ...row } = toStoredAudit(r);
      return row;
    }),
    auditHead: () => {
      const head = st.auditHead.get();
      return head === undefined ? null : { seq: head.seq, hash: head.hash, tsMs: head.ts_ms };
    },
    backlog: () => st.backlog.all().map((r) => ({ agentId: r.agent_id, sourceId: r.source_id, count: r.n })),
    exportCursor: (exporterId) => st.exportCursor.get(exporterId)?.last_seq ?? 0,
    listJson: (view, q, f) => {
      if (view === 'events') return jsonPageOf(reader.listEvents(q, f), eventJson);
      if (view === 'dlq') return jsonPageOf(reader.listDeadLetters(q, f), deadLetterJson);
      return jsonPageOf(reader.listAudit(q, f), auditJson);
    },
    readEvents: (afterSeq, limit) => st.readEvents.all(afterSeq, limit),
    readDeadLetters: (afterSeq, limit) => st.readDeadLetters.all(afterSeq, limit),
    readFingerprints: (sinceMs, after, limit) => st.readFingerprints.all({ since: sinceMs, a: after?.[0] ?? null, s: after?.[1] ?? null,
      f: after?.[2] ?? null, limit }),
    readExportCursors: () => st.readExportCursors.all(),
    isEmpty: () => st.isEmpty.get()?.n === 1,
  };
  return reader;
}
