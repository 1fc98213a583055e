/**
 * The read side of the SQLite store, synchronous, on a read-only connection of its own (it runs in the
 * store's reader thread, store-worker.ts). WAL: reads never block the writer and see committed rows
 * only; a page read, however large, never holds up an ingest.
 */
import type Database from 'better-sqlite3';
import type { StoredAuditRow } from '../../audit/audit-row.js';
import type {
  AuditFilter, BacklogCount, DeadLetterFilter, DeadLetterRecord, EventFilter, EventRecord, JsonPage, ListedAuditRow, Page, PageQuery,
  View,
} from '../store.js';
import { auditJson, deadLetterJson, eventJson, jsonPageOf } from '../record-json.js';
import { createPager } from './pages.js';
import { AUDIT_COLS, DEAD_LETTER_COLS, EVENT_COLS, toDeadLetter, toEvent, toListedAudit, toStoredAudit } from './rows.js';

export interface Reader {
  listEvents(q: PageQuery, f: EventFilter): Page<EventRecord>;
  listDeadLetters(q: PageQuery, f: DeadLetterFilter): Page<DeadLetterRecord>;
  listAudit(q: PageQuery, f: AuditFilter): Page<ListedAuditRow>;
  listJson(view: View, q: PageQuery, f: EventFilter & DeadLetterFilter & AuditFilter): JsonPage;
  readAudit(afterSeq: number, limit: number): StoredAuditRow[];
  auditHead(): { seq: number; hash: string; tsMs: number } | null;
  backlog(): BacklogCount[];
  exportCursor(exporterId: string): number;
}

const withoutSeq = <T extends { seq: number }>({ seq: _seq, ...rest }: T): Omit<T, 'seq'> => rest;

export function createReader(db: Database.Database, pageBudget?: number): Reader {
  const pager = createPager(db, pageBudget);
  const st = {
    readAudit: db.prepare<[number, number], Record<string, unknown>>(`SELECT ${AUDIT_COLS} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`),
    auditHead: db.prepare<[], { seq: number; hash: string; ts_ms: number }>('SELECT seq, hash, ts_ms FROM audit ORDER BY seq DESC LIMIT 1'),
    backlog: db.prepare<[], { agent_id: string; source_id: string; n: number }>(
      `SELECT agent_id, source_id, COUNT(*) AS n FROM events INDEXED BY events_backlog
       WHERE status IN ('accepted', 'processing') GROUP BY agent_id, source_id`),
    exportCursor: db.prepare<[string], { last_seq: number }>('SELECT last_seq FROM audit_export_cursors WHERE exporter_id = ?'),
  };
  const reader: Reader = {
    listEvents: (q, f) => pager.page({
      table: 'events', cols: EVENT_COLS, bytesColumn: 'payload',
      filters: [['agent_id', f.agent], ['source_id', f.source], ['kind', f.kind]],
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
  };
  return reader;
}
