import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/sqlite-store.ts';
import { canonicalRow } from '../src/audit/chain.ts';
import { systemClock } from '../src/core/clock.ts';
const p = '/tmp/plantest/svc.db';
const s = openSqliteStore({ path: p, clock: systemClock });
await s.appendAudit({ kind: 'x', actor: 'a', agentId: null, data: { b: 1, a: [1, 'é'] } });
console.log(canonicalRow({ seq: 1, ts: 't', kind: 'k', actor: 'a', agentId: null, data: { z: 1, a: 2 }, prevHash: '0' }));
await s.close();
const db = new Database(p);
for (const sql of [
  'SELECT * FROM events WHERE seq >= 5 AND +ts_ms >= 3 ORDER BY seq DESC LIMIT 101',
  'SELECT * FROM events WHERE agent_id = ? AND seq < ? AND seq >= ? AND +ts_ms >= ? ORDER BY seq DESC LIMIT 101',
  'SELECT * FROM events WHERE agent_id = ? AND kind = ? AND seq > ? ORDER BY seq ASC LIMIT 101',
  'SELECT seq FROM events WHERE ts_ms >= ? ORDER BY ts_ms ASC, seq ASC LIMIT 1',
  'SELECT seq FROM events WHERE ts_ms <= ? ORDER BY ts_ms DESC, seq DESC LIMIT 1',
  "SELECT * FROM events WHERE status IN ('accepted', 'processing') ORDER BY seq",
  'DELETE FROM fingerprints WHERE rowid IN (SELECT rowid FROM fingerprints WHERE seen_ms <= ? ORDER BY seen_ms LIMIT ?)',
  'SELECT * FROM audit WHERE agent_id = ? AND seq > ? ORDER BY seq LIMIT 10',
]) console.log(sql, '\n  ', db.prepare('EXPLAIN QUERY PLAN ' + sql.replaceAll('?', '1')).all().map((r: any) => r.detail).join(' | '));
console.log(db.pragma('journal_mode'), db.pragma('user_version'));
