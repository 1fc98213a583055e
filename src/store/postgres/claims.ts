/**
 * Claims and leases on the shared queue (contract §10.2, §16.1). A claim is one statement:
 * `FOR UPDATE SKIP LOCKED` picks the agent's oldest claimable events that no other replica is taking
 * at this moment, a running sum keeps the batch within its byte budget (at least one event), and the
 * same statement sets owner, lease and attempt. Renewals lock their rows in seq order, as completions
 * do, so the two never deadlock. None of these touch the chain head: claiming never waits for an
 * append.
 */
import type pg from 'pg';
import type { BacklogCount, ClaimedEvent, ClaimRef, ClaimRequest } from '../store.js';
import { toEvent } from '../rows.js';

export async function claimEvents(pool: pg.Pool, r: ClaimRequest): Promise<ClaimedEvent[]> {
  const leaseUntilMs = r.nowMs + r.leaseMs;
  const { rows } = await pool.query<Record<string, unknown> & { attempt: number; seq: number; delivery: string | null }>(
    `WITH c AS (
       SELECT seq, octet_length(payload) AS bytes FROM events
       WHERE agent_id = $1 AND status IN ('accepted', 'processing')
         AND (status = 'accepted' AND (due_ms IS NULL OR due_ms <= $2) OR status = 'processing' AND lease_until_ms <= $2)
       ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED),
     pick AS (
       SELECT seq FROM (SELECT seq, sum(bytes) OVER (ORDER BY seq) AS run, row_number() OVER (ORDER BY seq) AS rn FROM c) x
       WHERE rn = 1 OR run <= $4)
     UPDATE events e SET status = 'processing', owner = $5, lease_until_ms = $6, attempt = e.attempt + 1, due_ms = NULL
     FROM pick WHERE e.seq = pick.seq
     RETURNING e.seq, e.id, e.ts_ms, e.agent_id, e.source_id, e.kind, e.fingerprint, e.status, e.payload, e.attempt, e.delivery`,
    [r.agentId, r.nowMs, Math.max(1, r.limit), r.maxBytes, r.owner, leaseUntilMs]);
  return rows.sort((a, b) => a.seq - b.seq).map((row) => {
    const { seq: _seq, ...event } = toEvent(row, false);
    return { event, claim: { eventId: event.id, owner: r.owner, attempt: row.attempt }, leaseUntilMs, delivery: row.delivery };
  });
}

/** Extends the leases still held; returns the claims that were lost. */
export async function renewLeases(pool: pg.Pool, claims: readonly ClaimRef[], leaseMs: number, nowMs: number): Promise<ClaimRef[]> {
  if (claims.length === 0) return [];
  const { rows } = await pool.query<{ id: string; owner: string; attempt: number }>(
    `WITH c AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) AS c(id, owner, attempt)),
     locked AS (
       SELECT e.seq FROM events e JOIN c ON e.id = c.id
       WHERE e.owner = c.owner AND e.attempt = c.attempt AND e.status = 'processing'
       ORDER BY e.seq FOR UPDATE OF e)
     UPDATE events e SET lease_until_ms = $4 FROM locked WHERE e.seq = locked.seq
     RETURNING e.id, e.owner, e.attempt`,
    [claims.map((c) => c.eventId), claims.map((c) => c.owner), claims.map((c) => c.attempt), nowMs + leaseMs]);
  const held = new Set(rows.map((r) => `${r.id}#${r.owner}#${r.attempt}`));
  return claims.filter((c) => !held.has(`${c.eventId}#${c.owner}#${c.attempt}`));
}

export async function releaseClaims(pool: pg.Pool, ownerPrefix: string): Promise<number> {
  const { rowCount } = await pool.query(
    `UPDATE events SET status = 'accepted', owner = NULL, lease_until_ms = NULL
     WHERE status = 'processing' AND starts_with(owner, $1)`, [ownerPrefix]);
  return rowCount ?? 0;
}

export async function backlog(pool: pg.Pool): Promise<BacklogCount[]> {
  const { rows } = await pool.query<{ agent_id: string; source_id: string; n: number }>(
    `SELECT agent_id, source_id, count(*) AS n FROM events WHERE status IN ('accepted', 'processing') GROUP BY agent_id, source_id`);
  return rows.map((r) => ({ agentId: r.agent_id, sourceId: r.source_id, count: r.n }));
}
