/**
 * The PostgreSQL store (contract §16): several `svc up` replicas share one database — one queue, one
 * fingerprint window, one audit chain, one set of export cursors.
 *
 * - Writes that append to the chain (ingest, completions, audit appends, replays) go through the
 *   chain writer: one head-holding transaction at a time per replica, group-committed.
 * - Claims, lease renewals and leadership are single statements on the pool, never behind the head.
 * - Views, chain reads and counts are pool queries; `verifyAudit` streams the chain in keyset chunks
 *   through the shared read verifier, slicing its hashing so the event loop keeps answering.
 *
 * Unreachable at open: a RuntimeError naming the URL without its password. Unreachable later: calls
 * reject (ingest answers 503, the dispatcher retries on its next poll) and the pool reconnects when the
 * database is back, without a restart.
 */
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../../config/store.js';
import { RuntimeError } from '../../core/errors.js';
import { createReadChainVerifier } from '../read-chain-verifier.js';
import { listJsonOf } from '../record-json.js';
import { DEAD_LETTER_COLS, EVENT_COLS, toDeadLetter, toEvent, toListedAudit, AUDIT_COLS } from '../rows.js';
import type { Store } from '../store.js';
import { createChainWriter } from './chain-writer.js';
import { backlog, claimEvents, releaseClaims, renewLeases } from './claims.js';
import {
  acquireLeadership, advanceExportCursor, exportCursor, probeWrite, prune, releaseLeadership, replayDeadLetters,
} from './maintenance.js';
import { auditHead, eventStory, page, readAudit } from './pages.js';
import { createPool, describePgError, redactUrl } from './pool.js';
import { postgresOncall } from './oncall.js';
import { postgresReceipts } from './receipts.js';
import { migrate } from './schema.js';
import { createPgTransfer } from './transfer.js';

export interface PostgresStoreOptions {
  url: string;
  /** Views' byte budget per page (contract §11.4); tests lower it. */
  pageBudget?: number;
  /** Paces verification's time slices (default: the system clock). */
  clock?: Clock;
  /** Connections of the read pool at most (default 8; the writer has 2 more, claims 4). */
  maxConnections?: number;
  /** Connection trouble while running, once per distinct message (never with the password). */
  onError?: (message: string) => void;
  /** How long a fingerprint makes a repeat a duplicate (default DEFAULT_IDEMPOTENCY_WINDOW_MS). */
  idempotencyWindowMs?: number;
}

const withoutSeq = <T extends { seq: number }>({ seq: _seq, ...rest }: T): Omit<T, 'seq'> => rest;

export async function openPostgresStore(opts: PostgresStoreOptions): Promise<Store & { readonly transfer: ReturnType<typeof createPgTransfer> }> {
  // Connection trouble is reported once per distinct message, whichever pool sees it.
  let lastReported = '';
  const onError = (message: string): void => {
    if (message === lastReported) return;
    lastReported = message;
    opts.onError?.(message);
  };
  // Three pools: reads, claims and the rest; the chain writer's (pipelined, one transaction at a time);
  // and lease renewals, whose commits need not wait for the WAL flush (pool.ts, `relaxed`). Claims are
  // durable: one lost in a crash of the database would be handed out again while its holder works,
  // with the same owner and attempt, so no fence could tell the two holders apart.
  const pool = createPool({ url: opts.url, max: opts.maxConnections ?? 8, onError });
  const writerPool = createPool({ url: opts.url, max: 2, pipeline: true, onError });
  const renewPool = createPool({ url: opts.url, max: 2, relaxed: true, onError });
  const endPools = (): Promise<unknown> => Promise.all([pool.end(), writerPool.end(), renewPool.end()]);
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw new RuntimeError('ESTORE_UNREACHABLE', `cannot reach PostgreSQL at ${redactUrl(opts.url)}: ${describePgError(err, opts.url)}`);
    });
    try {
      await migrate(client);
    } catch (err) {
      if (err instanceof RuntimeError) throw err;
      throw new RuntimeError('ESTORE_MIGRATE', `cannot migrate the PostgreSQL store at ${redactUrl(opts.url)}: ${describePgError(err, opts.url)}`);
    } finally {
      client.release();
    }
  } catch (err) {
    await endPools().catch(() => undefined);
    throw err;
  }

  const writer = createChainWriter(writerPool, { windowMs: opts.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS });
  const budget = opts.pageBudget;
  const verifier = createReadChainVerifier({ head: () => auditHead(pool), read: (afterSeq, limit) => readAudit(pool, afterSeq, limit),
    clock: opts.clock ?? systemClock, chunkRows: 2000 });
  const lists: Pick<Store, 'listEvents' | 'listDeadLetters' | 'listAudit'> = {
    listEvents: (q, f) => page(pool, {
      table: 'events', cols: EVENT_COLS, bytesColumn: 'payload',
      filters: [['agent_id', f.agent], ['source_id', f.source], ['kind', f.kind], ['status', f.status]],
      map: (r) => withoutSeq(toEvent(r, true)),
    }, q, budget),
    listDeadLetters: (q, f) => page(pool, {
      table: 'dead_letters', cols: DEAD_LETTER_COLS, bytesColumn: 'payload',
      filters: [['agent_id', f.agent], ['source_id', f.source], ['reason', f.reason]],
      map: (r) => withoutSeq(toDeadLetter(r)),
    }, q, budget),
    listAudit: (q, f) => page(pool, {
      table: 'audit', cols: AUDIT_COLS, bytesColumn: 'data',
      filters: [['kind', f.kind], ['agent_id', f.agent]],
      map: toListedAudit,
    }, q, budget),
  };
  let closing: Promise<void> | null = null;

  return {
    kind: 'postgres',
    ingestEvent: (event, nowMs) => writer.ingest(event, nowMs),
    claimEvents: (request) => claimEvents(pool, request),
    renewLeases: (claims, leaseMs, nowMs) => renewLeases(renewPool, claims, leaseMs, nowMs),
    completeEvents: (completions, nowMs) => writer.complete(completions, nowMs),
    releaseClaims: (ownerPrefix) => releaseClaims(pool, ownerPrefix),
    backlog: () => backlog(pool),
    replayDeadLetters: (selection, actor, nowMs, via) => writer.solo((tx) => replayDeadLetters(tx, selection, actor, nowMs, via)),
    appendAudit: (entry, nowMs) => writer.append(entry, nowMs),
    readAudit: (afterSeq, limit) => readAudit(pool, afterSeq, limit),
    eventStory: (eventId) => eventStory(pool, eventId),
    auditHead: () => auditHead(pool),
    verifyAudit: (afterSeq) => verifier.verify(afterSeq),
    ...lists,
    listJson: (view, q, f) => listJsonOf(lists, view, q, f),
    getEvent: async (id) => {
      const { rows } = await pool.query<Record<string, unknown>>(`SELECT ${EVENT_COLS} FROM events WHERE id = $1`, [id]);
      return rows[0] === undefined ? null : withoutSeq(toEvent(rows[0], true));
    },
    exportCursor: (exporterId) => exportCursor(pool, exporterId),
    advanceExportCursor: (exporterId, seq, nowMs) => advanceExportCursor(pool, exporterId, seq, nowMs),
    acquireLeadership: (holder, leaseMs, nowMs) => acquireLeadership(pool, holder, leaseMs, nowMs),
    releaseLeadership: (holder) => releaseLeadership(pool, holder),
    probeWrite: (nowMs) => probeWrite(pool, nowMs),
    prune: (policy) => prune(pool, policy),
    backup: () => Promise.reject(new RuntimeError('ESTORE_BACKUP',
      'svc backup copies the embedded SQLite store; back a PostgreSQL store up with pg_dump (docs/replicas.md)')),
    transfer: createPgTransfer(pool, writer),
    oncall: postgresOncall(pool, writer, budget),
    receipts: postgresReceipts(pool),
    close() {
      closing ??= (async () => {
        await verifier.close();
        await writer.close();
        await endPools();
      })();
      return closing;
    },
  };
}
