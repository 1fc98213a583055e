/**
 * The write side that appends to the audit chain: ingests, audit appends, completions and page plans
 * (contract §9.3, §10, §16, §17.4). One transaction at a time per replica; everything that arrives
 * while one runs waits for the next, which takes all of it (group commit), as the SQLite writer
 * thread does. Across replicas the transactions serialise on the chain head (chain-tx.ts), so bigger
 * batches are what buys throughput: a batch costs ~5 round trips and one commit whatever its size.
 *
 * In one batch transaction: lock the head; look up the batch's fingerprints (after the lock, so a
 * fingerprint another replica committed a moment ago is seen) and fence its completions (only rows
 * still held by the same owner and attempt change; locked in seq order, so renewals and completions
 * never deadlock); read the pages its page plans may collide with (page-writes.ts); compute every
 * row; write them in one statement (the page plans' rows in one more, sent with it); commit. An
 * operation that fails in JS fails alone (its rows are undone); a statement that fails makes every
 * operation of the batch run again on its own, so one bad row never fails its neighbours. Each caller
 * is answered only once its transaction has committed.
 */
import type pg from 'pg';
import type { AuditRow, NewAuditEntry } from '../../audit/audit-row.js';
import { parseStoredAuditRow } from '../../audit/audit-row.js';
import { stampMs } from '../../audit/next-audit-row.js';
import type { Completion, CompletionResult, IngestResult, NewEvent } from '../store.js';
import type { PagePlan } from '../../oncall/page.js';
import type { ApplyResult, ClaimOnCommit } from '../oncall-store.js';
import type { SeenFingerprint } from '../write-plans.js';
import { completionUpdate, planCompletion, planIngest } from '../write-plans.js';
import type { Silence } from '../../oncall/oncall-config.js';
import { suppressingSilences } from '../suppression.js';
import { toStoredSilence } from '../oncall-rows.js';
import { newRecordId } from '../record-id.js';
import type { ChainTx, Statement } from './chain-tx.js';
import { beginChainTx } from './chain-tx.js';
import type { KnownPages, PageOp, PageSettle, PageWrites } from './page-writes.js';
import { createPageWrites, lookupPages, pageKeys } from './page-writes.js';
import { isConnectionError, isRetryable } from './pool.js';

type Op =
  | { kind: 'ingest'; event: NewEvent; nowMs: number }
  | { kind: 'append'; entry: NewAuditEntry; nowMs: number }
  | { kind: 'complete'; completions: readonly Completion[]; nowMs: number }
  | ({ kind: 'page' } & PageOp);

interface Waiting {
  op: Op | null;
  /** Set for an operation that runs in a transaction of its own. */
  solo: ((tx: ChainTx) => Promise<unknown>) | null;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface ChainWriter {
  ingest(event: NewEvent, nowMs: number): Promise<IngestResult>;
  append(entry: NewAuditEntry, nowMs: number): Promise<AuditRow>;
  complete(completions: readonly Completion[], nowMs: number): Promise<CompletionResult[]>;
  /** Persists a page plan in a batch's transaction (page-writes.ts); a conflict writes nothing. */
  applyPagePlan(plan: PagePlan, nowMs: number, claim?: ClaimOnCommit): Promise<ApplyResult>;
  /** Runs `fn` in a head-holding transaction of its own, in turn with the batches (replay, copy). */
  solo<T>(fn: (tx: ChainTx) => Promise<T>): Promise<T>;
  /** Waits for what is queued; later calls are refused. */
  close(): Promise<void>;
}

/** Most operations one transaction takes (the rest wait for the next). */
const MAX_BATCH_OPS = 512;
/** Most payload bytes one transaction carries. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
const MAX_RETRIES = 3;

/** A page plan's rows are a few KB (the page body and its notifications); counted roughly, never read twice. */
const PAGE_OP_BYTES = 4096;
const opBytes = (op: Op): number => (op.kind === 'ingest' ? op.event.payloadText.length : op.kind === 'page' ? PAGE_OP_BYTES : 256);

/** `windowMs`: the store's idempotency window (contract §9.3), given once when the store opens. */
export function createChainWriter(pool: pg.Pool, { windowMs }: { windowMs: number }): ChainWriter {
  let queue: Waiting[] = [];
  let running: Promise<void> | null = null;
  let closed = false;

  /**
   * One head-holding transaction around `fn`; the client is dropped when the connection is in doubt.
   * `prefetch` issues its reads together with BEGIN and the lock (pipelined: one round trip). `fn`
   * may give a statement to send with the commit; its rows come back with the value.
   */
  const transaction = async <P, T>(prefetch: (client: pg.PoolClient) => Promise<P>,
    fn: (tx: ChainTx, pre: P) => Promise<{ value: T; alongside: Statement | null }>): Promise<{ value: T; rows: Array<Record<string, unknown>> }> => {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        const [{ tx, commit }, pre] = await Promise.all([beginChainTx(client), prefetch(client)]);
        const { value, alongside } = await fn(tx, pre);
        const rows = await commit(alongside);
        return { value, rows };
      } catch (err) {
        await client.query('ROLLBACK').catch((e: unknown) => { broken = e instanceof Error ? e : new Error(String(e)); });
        if (isConnectionError(err)) broken ??= err instanceof Error ? err : new Error(String(err));
        if (isRetryable(err) && attempt < MAX_RETRIES) continue;
        throw err;
      } finally {
        client.release(broken);
      }
    }
  };

  const runBatch = async (batch: Waiting[]): Promise<void> => {
    let outcomes: Outcome[];
    let added: ReadonlySet<string>;
    try {
      const ops = batch.map((w) => w.op as Op);
      const pageOps = ops.filter((op): op is Extract<Op, { kind: 'page' }> => op.kind === 'page');
      const done = await transaction((client) => Promise.all([lookupFingerprints(client, ops), fenceCompletions(client, ops), lookupSilences(client, ops),
        lookupPages(client, pageOps)]),
      (tx, [seen, fenced, silences, known]) => {
        const pages = createPageWrites();
        const value = applyBatch(tx, ops, { seen, fenced, silences, windowMs, known, pages });
        return Promise.resolve({ value: { outcomes: value, pages }, alongside: pages.statement() });
      });
      outcomes = done.value.outcomes;
      added = done.value.pages.added(done.rows);
    } catch (err) {
      if (batch.length > 1 && !isConnectionError(err)) {
        // A statement failed: every operation runs again alone, so only the bad one fails.
        for (const w of batch) await runBatch([w]);
        return;
      }
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const o = outcomes[i] as Outcome;
      if (!o.ok) w.reject(o.error);
      else if (w.op?.kind === 'page') w.resolve((o.value as PageSettle)(added));
      else w.resolve(o.value);
    });
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const first = queue[0] as Waiting;
      if (first.solo !== null) {
        queue.shift();
        const fn = first.solo;
        await transaction(() => Promise.resolve(null), async (tx) => ({ value: await fn(tx), alongside: null }))
          .then((done) => first.resolve(done.value), first.reject);
        continue;
      }
      let bytes = 0;
      let n = 0;
      // At most one plan per page and per incident key in a batch: each is judged on what was stored
      // before the batch (page-writes.ts). A second one waits for the next batch.
      const pagesIn = new Set<string>();
      while (n < queue.length && n < MAX_BATCH_OPS) {
        const w = queue[n] as Waiting;
        if (w.op === null) break;
        if (w.op.kind === 'page') {
          const keys = pageKeys(w.op.plan);
          if (keys.some((k) => pagesIn.has(k))) break;
          for (const k of keys) pagesIn.add(k);
        }
        bytes += opBytes(w.op);
        if (n > 0 && bytes > MAX_BATCH_BYTES) break;
        n++;
      }
      const batch = queue.slice(0, n);
      queue = queue.slice(n);
      await runBatch(batch); // never rejects: every outcome goes to its caller
    }
    // Set in the same turn as the last look at the queue: a call made after it starts a new drain.
    running = null;
  };

  const enqueue = <T>(w: Omit<Waiting, 'resolve' | 'reject'>): Promise<T> => {
    if (closed) return Promise.reject(new Error('store closed'));
    return new Promise<T>((resolve, reject) => {
      queue.push({ ...w, resolve: resolve as (v: unknown) => void, reject });
      // Operations that arrive in the same turn share the first transaction.
      running ??= Promise.resolve().then(drain);
    });
  };

  return {
    ingest: (event, nowMs) => enqueue({ op: { kind: 'ingest', event, nowMs }, solo: null }),
    append: (entry, nowMs) => enqueue({ op: { kind: 'append', entry, nowMs }, solo: null }),
    complete: (completions, nowMs) => enqueue({ op: { kind: 'complete', completions, nowMs }, solo: null }),
    applyPagePlan: (plan, nowMs, claim) => enqueue({ op: { kind: 'page', plan, nowMs, claim }, solo: null }),
    solo: <T>(fn: (tx: ChainTx) => Promise<T>) => enqueue<T>({ op: null, solo: fn }),
    async close() {
      closed = true;
      while (running !== null) await running;
    },
  };
}

const fpKey = (agentId: string, sourceId: string, fingerprint: string): string => `${agentId}\u0000${sourceId}\u0000${fingerprint}`;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What a batch read after the head lock, and where its page plans' rows gather. */
interface BatchContext {
  seen: Map<string, SeenFingerprint>;
  fenced: Map<string, Fenced>;
  silences: readonly Silence[];
  windowMs: number;
  known: KnownPages;
  pages: PageWrites;
}

/**
 * Applies a batch inside a head-holding transaction; one outcome per operation, in order (a page
 * plan's value is its PageSettle, answered once the batch committed).
 */
function applyBatch(tx: ChainTx, ops: readonly Op[], c: BatchContext): Outcome[] {
  return ops.map((op): Outcome => {
    const mark = tx.mark();
    try {
      switch (op.kind) {
        case 'ingest': return { ok: true, value: ingest(tx, op, c.seen, c.silences, c.windowMs) };
        case 'append': return { ok: true, value: parseStoredAuditRow(tx.append(op.entry, op.nowMs)) };
        case 'complete': return { ok: true, value: op.completions.map((x) => complete(tx, x, op.nowMs, c.fenced)) };
        case 'page': return { ok: true, value: c.pages.add(tx, op, c.known) };
      }
    } catch (error) {
      tx.undo(mark);
      return { ok: false, error };
    }
  });
}

/** Persists an ingest's plan (write-plans.ts), the fingerprint as looked up after the head lock. */
function ingest(tx: ChainTx, op: Extract<Op, { kind: 'ingest' }>, seen: Map<string, SeenFingerprint>,
  silences: readonly Silence[], windowMs: number): IngestResult {
  const e = op.event;
  const key = e.fingerprint === null ? null : fpKey(e.agentId, e.sourceId, e.fingerprint);
  const plan = planIngest(e, { id: newRecordId(op.nowMs), nowMs: op.nowMs, tsMs: stampMs(op.nowMs, tx.head.eventTsMs), windowMs,
    seen: key === null ? undefined : seen.get(key),
    silencedBy: () => suppressingSilences(silences.filter((s) => s.agentId === null || s.agentId === e.agentId), e.agentId, e.payloadText, op.nowMs) });
  if (plan.outcome === 'duplicate') return plan;
  const { tsMs, ...event } = plan.event;
  tx.insertEvent({ id: event.id, tsMs, agentId: event.agentId, sourceId: event.sourceId, kind: event.kind, fingerprint: event.fingerprint,
    status: event.status, payloadText: event.payloadText, attempt: 0 });
  const f = plan.fingerprint;
  if (key !== null && f !== null) {
    tx.upsertFingerprint(f);
    // A later ingest of the same batch sees this one (the lookup ran before the batch).
    seen.set(key, { eventId: f.eventId, seenMs: f.seenMs });
  }
  for (const entry of plan.audit) tx.append(entry, op.nowMs);
  return { outcome: 'accepted', event };
}

interface Fenced { agentId: string; sourceId: string; payload: string | null }

/** Persists a completion's plan (write-plans.ts); the fence already set what it changes on its event. */
function complete(tx: ChainTx, c: Completion, nowMs: number, fenced: Map<string, Fenced>): CompletionResult {
  const key = `${c.claim.eventId}#${c.claim.owner}#${c.claim.attempt}`;
  const event = fenced.get(key);
  if (event === undefined) return { ok: false, reason: 'claim-lost' };
  fenced.delete(key); // a second completion of the same claim finds it gone, as it would in SQLite
  const plan = planCompletion(c, { agentId: event.agentId, sourceId: event.sourceId, payloadText: event.payload ?? '' }, newRecordId(nowMs));
  if (plan.deadLetter !== null) tx.insertDeadLetter({ ...plan.deadLetter, tsMs: nowMs, replayedMs: null });
  for (const entry of plan.audit) tx.append(entry, nowMs);
  return plan.result;
}

/**
 * The silences that may be live for the batch's ingests (read after the head lock: a silence is added
 * under the same lock, so an event accepted after `svc silence add` answered is judged with it).
 */
async function lookupSilences(client: pg.PoolClient, ops: readonly Op[]): Promise<Silence[]> {
  const times = ops.flatMap((op) => (op.kind === 'ingest' ? [op.nowMs] : []));
  if (times.length === 0) return [];
  const { rows } = await client.query<Record<string, unknown>>('SELECT * FROM silences WHERE ends_ms > $1 ORDER BY seq', [Math.min(...times)]);
  return rows.map(toStoredSilence);
}

/** The batch's fingerprints as stored (read after the head lock: no replica can add one meanwhile). */
async function lookupFingerprints(client: pg.PoolClient, ops: readonly Op[]): Promise<Map<string, SeenFingerprint>> {
  const keys = new Map<string, [string, string, string]>();
  for (const op of ops) {
    if (op.kind === 'ingest' && op.event.fingerprint !== null) {
      keys.set(fpKey(op.event.agentId, op.event.sourceId, op.event.fingerprint), [op.event.agentId, op.event.sourceId, op.event.fingerprint]);
    }
  }
  const seen = new Map<string, SeenFingerprint>();
  if (keys.size === 0) return seen;
  const k = [...keys.values()];
  const { rows } = await client.query<{ agent_id: string; source_id: string; fingerprint: string; event_id: string; seen_ms: number }>(
    `SELECT f.agent_id, f.source_id, f.fingerprint, f.event_id, f.seen_ms FROM fingerprints f
     JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(agent_id, source_id, fingerprint)
       ON f.agent_id = k.agent_id AND f.source_id = k.source_id AND f.fingerprint = k.fingerprint`,
    [k.map((x) => x[0]), k.map((x) => x[1]), k.map((x) => x[2])]);
  for (const r of rows) seen.set(fpKey(r.agent_id, r.source_id, r.fingerprint), { eventId: r.event_id, seenMs: r.seen_ms });
  return seen;
}

/**
 * Ends the claims of the batch's completions that still hold (same owner, same attempt, still
 * processing) and returns them by `eventId#owner#attempt`; the others were lost to another holder.
 */
async function fenceCompletions(client: pg.PoolClient, ops: readonly Op[]): Promise<Map<string, Fenced>> {
  // By claim, not by event: a stale completion (an earlier attempt) and the current one for the same
  // event may share a batch; both go to the fence, and only the one that still holds can match.
  const byEvent = new Map<string, Completion>();
  for (const op of ops) {
    if (op.kind !== 'complete') continue;
    for (const c of op.completions) {
      const key = `${c.claim.eventId}#${c.claim.owner}#${c.claim.attempt}`;
      if (!byEvent.has(key)) byEvent.set(key, c);
    }
  }
  const fenced = new Map<string, Fenced>();
  if (byEvent.size === 0) return fenced;
  const cs = [...byEvent.values()];
  const updates = cs.map(completionUpdate);
  const { rows } = await client.query<{ id: string; owner: string; attempt: number; agent_id: string; source_id: string; payload: string | null }>(
    `WITH c AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[], $6::text[])
                AS c(id, owner, attempt, status, due_ms, delivery)),
     locked AS (
       SELECT e.seq, c.owner, c.status, c.due_ms, c.delivery FROM events e JOIN c ON e.id = c.id
       WHERE e.owner = c.owner AND e.attempt = c.attempt AND e.status = 'processing'
       ORDER BY e.seq FOR UPDATE OF e)
     UPDATE events e SET status = locked.status, owner = NULL, lease_until_ms = NULL, due_ms = locked.due_ms,
       delivery = coalesce(locked.delivery, e.delivery)
     FROM locked WHERE e.seq = locked.seq
     RETURNING e.id, locked.owner, e.attempt, e.agent_id, e.source_id,
       CASE WHEN locked.status = 'dead-lettered' THEN e.payload END AS payload`,
    [cs.map((c) => c.claim.eventId), cs.map((c) => c.claim.owner), cs.map((c) => c.claim.attempt), updates.map((u) => u.status),
      updates.map((u) => u.dueMs), updates.map((u) => u.delivery)]);
  for (const r of rows) fenced.set(`${r.id}#${r.owner}#${r.attempt}`, { agentId: r.agent_id, sourceId: r.source_id, payload: r.payload });
  return fenced;
}
