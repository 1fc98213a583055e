/**
 * The read side of on-call on SQLite, in the store's reader thread beside reader.ts. Statements are
 * prepared on first use, so a read-only store of a schema without these tables still opens.
 */
import type Database from 'better-sqlite3';
import type { HandoffTimer, HeartbeatSeen, OpenPageCount, PageFilter, SendRef, StoredOverride, StoredPage, StoredSilence } from '../oncall-store.js';
import type { ListedAuditRow, Page, PageQuery } from '../store.js';
import { AUDIT_COLS, toListedAudit } from '../rows.js';
import { timelineSql } from '../story-rows.js';
import { PAGE_COLS, toStoredOverride, toStoredPage, toStoredSilence } from '../oncall-rows.js';
import type { Pager } from './pages.js';

export interface OncallReader {
  getPage(id: string): StoredPage | null;
  findPage(agentId: string, incidentKey: string): StoredPage | null;
  listPages(q: PageQuery, f: PageFilter): Page<StoredPage>;
  pageTimeline(pageId: string): ListedAuditRow[];
  openPageCounts(): OpenPageCount[];
  listOverrides(agentId: string | null, endsAfterMs: number): StoredOverride[];
  listSilences(endedAfterMs: number): StoredSilence[];
  listHeartbeats(): HeartbeatSeen[];
  listHandoffs(): HandoffTimer[];
  /** A notification still held by this claim (pending, same owner and attempt): its kind and its page's state as committed; null when not held. */
  heldNotification(ref: SendRef): { kind: string; state: string | null } | null;
  pollOffset(feed: string): number | null;
}

/** Read from the index of open pages alone (schema migration 8), never their rows. */
export const OPEN_PAGE_COUNTS_SQL = `SELECT agent_id, state, COUNT(*) AS n FROM pages WHERE state <> 'resolved' GROUP BY agent_id, state`;

export function createOncallReader(db: Database.Database, pager: Pager): OncallReader {
  const prepared = new Map<string, Database.Statement<unknown[], Record<string, unknown>>>();
  const stmt = (sql: string): Database.Statement<unknown[], Record<string, unknown>> => {
    let s = prepared.get(sql);
    if (s === undefined) {
      s = db.prepare<unknown[], Record<string, unknown>>(sql);
      prepared.set(sql, s);
    }
    return s;
  };
  const page = (row: Record<string, unknown> | undefined): StoredPage | null => (row === undefined ? null : toStoredPage(row));
  return {
    getPage: (id) => page(stmt(`SELECT ${PAGE_COLS} FROM pages WHERE id = ?`).get(id)),
    findPage: (agentId, key) => page(stmt(`SELECT ${PAGE_COLS} FROM pages WHERE agent_id = ? AND incident_key = ?
      ORDER BY (state <> 'resolved') DESC, seq DESC LIMIT 1`).get(agentId, key)),
    listPages: (q, f) => pager.page({
      table: 'pages', cols: `seq, ${PAGE_COLS}`, bytesColumn: 'body',
      filters: [['agent_id', f.agent], ['state', f.state], ['policy_id', f.policy]],
      map: toStoredPage,
    }, q),
    pageTimeline: (pageId) => stmt(timelineSql('sqlite', AUDIT_COLS, '?')).all(pageId).map(toListedAudit),
    openPageCounts: () => stmt(OPEN_PAGE_COUNTS_SQL).all()
      .map((r) => ({ agentId: String(r.agent_id), state: r.state as OpenPageCount['state'], count: Number(r.n) })),
    listOverrides: (agentId, endsAfterMs) => stmt(`SELECT * FROM oncall_overrides WHERE to_ms > ? AND (? IS NULL OR agent_id = ?)
      ORDER BY from_ms, id`).all(endsAfterMs, agentId, agentId).map(toStoredOverride),
    listSilences: (endedAfterMs) => stmt('SELECT * FROM silences WHERE ends_ms > ? ORDER BY seq').all(endedAfterMs).map(toStoredSilence),
    listHeartbeats: () => stmt('SELECT agent_id, heartbeat_id, last_seen_ms FROM heartbeats ORDER BY agent_id, heartbeat_id').all()
      .map((r) => ({ agentId: String(r.agent_id), heartbeatId: String(r.heartbeat_id), lastSeenMs: Number(r.last_seen_ms) })),
    heldNotification: (ref) => {
      const r = stmt(`SELECT n.kind, p.state FROM page_notifications n LEFT JOIN pages p ON p.id = n.page_id
        WHERE n.delivery_id = ? AND n.owner = ? AND n.attempt = ? AND n.status = 'pending'`).get(ref.deliveryId, ref.owner, ref.attempt);
      return r === undefined ? null : { kind: String(r.kind), state: typeof r.state === 'string' ? r.state : null };
    },
    pollOffset: (feed) => {
      const r = stmt('SELECT next_offset FROM poll_offsets WHERE feed = ?').get(feed);
      return r === undefined ? null : Number(r.next_offset);
    },
    listHandoffs: () => stmt('SELECT agent_id, schedule_id, next_ms FROM schedule_handoffs ORDER BY agent_id, schedule_id').all()
      .map((r) => ({ agentId: String(r.agent_id), scheduleId: String(r.schedule_id), nextMs: r.next_ms === null ? null : Number(r.next_ms) })),
  };
}
