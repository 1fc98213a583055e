/**
 * The rest of the PostgreSQL store's writes: the leader lease (contract §16.4), the readiness probe,
 * SIEM export cursors, dead-letter replay and retention (contract §10.5). Each is a statement or two
 * of its own; only replay appends to the chain, so only replay runs under the chain head.
 */
import type pg from 'pg';
import type { DeadLetterSelection, ReplayResult, ReplayVia, RetentionPolicy } from '../store.js';
import type { ReplayedLetter as Letter } from '../write-plans.js';
import { replayAudit } from '../write-plans.js';
import { FINISHED_EVENT_STATUSES_SQL } from '../store.js';
import type { ChainTx } from './chain-tx.js';

/** Holds or takes the lease row: an upsert that only changes it when we hold it or it has run out. */
export async function acquireLeadership(pool: pg.Pool, holder: string, leaseMs: number, nowMs: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    `INSERT INTO leader_lease (name, holder, until_ms) VALUES ('leader', $1, $2)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
     WHERE leader_lease.holder = excluded.holder OR leader_lease.until_ms <= $3`,
    [holder, nowMs + leaseMs, nowMs]);
  return rowCount === 1;
}

export async function releaseLeadership(pool: pg.Pool, holder: string): Promise<void> {
  await pool.query(`DELETE FROM leader_lease WHERE name = 'leader' AND holder = $1`, [holder]);
}

export async function probeWrite(pool: pg.Pool, nowMs: number): Promise<void> {
  await pool.query('INSERT INTO write_probe (id, at_ms) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at_ms = excluded.at_ms', [nowMs]);
}

export async function exportCursor(pool: pg.Pool, exporterId: string): Promise<number> {
  const { rows } = await pool.query<{ last_seq: number }>('SELECT last_seq FROM audit_export_cursors WHERE exporter_id = $1', [exporterId]);
  return rows[0]?.last_seq ?? 0;
}

export async function advanceExportCursor(pool: pg.Pool, exporterId: string, seq: number, nowMs: number): Promise<void> {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`export cursor must be a non-negative integer, got ${seq}`);
  // The WHERE keeps the max in one statement: no read-modify-write race between replicas.
  await pool.query(
    `INSERT INTO audit_export_cursors (exporter_id, last_seq, updated_ms) VALUES ($1, $2, $3)
     ON CONFLICT (exporter_id) DO UPDATE SET last_seq = excluded.last_seq, updated_ms = excluded.updated_ms
     WHERE excluded.last_seq > audit_export_cursors.last_seq`, [exporterId, seq, nowMs]);
}

/** Inside a head-holding transaction: puts the selected dead letters' events back in the queue, once. */
export async function replayDeadLetters(tx: ChainTx, selection: DeadLetterSelection, actor: string, nowMs: number, via?: ReplayVia):
  Promise<ReplayResult> {
  const cols = 'id, event_id, agent_id, source_id, reason';
  const letters: Array<Letter | string> = [];
  let lastSeq: number | undefined;
  if (selection.ids !== undefined) {
    // A letter replayed once is done: its event, failing again, has a new letter (the one to replay).
    const { rows } = await tx.client.query<Letter>(`SELECT ${cols} FROM dead_letters WHERE id = ANY($1::text[]) AND replayed_ms IS NULL`,
      [selection.ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of selection.ids) letters.push(byId.get(id) ?? id);
  } else {
    const { rows } = await tx.client.query<Letter & { seq: string }>(
      `SELECT seq, ${cols} FROM dead_letters WHERE replayed_ms IS NULL AND seq > $3 AND ($1::text IS NULL OR source_id = $1)
       AND ($2::text IS NULL OR reason = $2) ORDER BY seq LIMIT $4`,
      [selection.sourceId ?? null, selection.reason ?? null, selection.afterSeq ?? 0, selection.limit ?? null]);
    letters.push(...rows);
    const last = rows[rows.length - 1];
    if (selection.limit !== undefined && last !== undefined) lastSeq = Number(last.seq);
  }
  // One statement for all of them (the chain head is held meanwhile: no round trip per letter). An
  // event comes back once: of several selected letters of one event only the first is replayed.
  const found = letters.filter((l): l is Letter => typeof l !== 'string');
  const { rows } = found.length === 0 ? { rows: [] as Array<{ id: string }> } : await tx.client.query<{ id: string }>(
    `WITH l AS (SELECT * FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS l(id, event_id, ord)),
     first AS (SELECT DISTINCT ON (event_id) id, event_id FROM l ORDER BY event_id, ord),
     ev AS (UPDATE events e SET status = 'accepted', owner = NULL, lease_until_ms = NULL, due_ms = NULL
            FROM first WHERE e.id = first.event_id AND e.status = 'dead-lettered' RETURNING e.id)
     UPDATE dead_letters d SET replayed_ms = $3 FROM first
     WHERE d.id = first.id AND first.event_id IN (SELECT id FROM ev) RETURNING d.id`,
    [found.map((l) => l.id), found.map((l) => l.event_id), nowMs]);
  const done = new Set(rows.map((r) => r.id));
  const replayed: string[] = [];
  const missing: string[] = [];
  for (const letter of letters) {
    if (typeof letter === 'string' || !done.has(letter.id)) {
      // Not found, or its event was replayed already (or is gone).
      missing.push(typeof letter === 'string' ? letter : letter.id);
      continue;
    }
    tx.append(replayAudit(letter, actor, via), nowMs);
    replayed.push(letter.id);
  }
  return { replayed, missing, ...(lastSeq === undefined ? {} : { lastSeq }) };
}

/** One batch of expired rows per table, oldest first; the audit chain is never pruned. */
export async function prune(pool: pg.Pool, policy: RetentionPolicy): Promise<{ events: number; deadLetters: number; fingerprints: number }> {
  const run = async (sql: string, before: number | null): Promise<number> => (before === null ? 0
    : (await pool.query(sql, [before, policy.batch])).rowCount ?? 0);
  const fingerprints = await run(`DELETE FROM fingerprints WHERE ctid IN (
    SELECT ctid FROM fingerprints WHERE seen_ms <= $1 ORDER BY seen_ms LIMIT $2)`, policy.fingerprintsBeforeMs);
  const deadLetters = await run(`DELETE FROM dead_letters WHERE seq IN (
    SELECT seq FROM dead_letters WHERE ts_ms < $1 ORDER BY ts_ms LIMIT $2)`, policy.deadLettersBeforeMs);
  // A dead-lettered event stays while its dead letter does. Fingerprints point at events younger than
  // the idempotency window, far younger than any retention (at least an hour, config/store.ts), and
  // are pruned first — as in the SQLite writer.
  // The status is asked again of the row being deleted: a replay that put the event back in the queue
  // since the subquery read it (another replica, the same instant) keeps it.
  const events = await run(`DELETE FROM events WHERE seq IN (
    SELECT seq FROM events e WHERE ts_ms < $1 AND status IN (${FINISHED_EVENT_STATUSES_SQL})
      AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.event_id = e.id)
    ORDER BY ts_ms LIMIT $2) AND status IN (${FINISHED_EVENT_STATUSES_SQL})`, policy.eventsBeforeMs);
  // An incident's last resolve goes with the events it orders (issue 33), as in the SQLite writer.
  await run(`DELETE FROM incident_resolves WHERE (agent_id, incident_key) IN (
    SELECT agent_id, incident_key FROM incident_resolves WHERE ts_ms < $1 ORDER BY ts_ms LIMIT $2)`, policy.eventsBeforeMs);
  return { events, deadLetters, fingerprints };
}
