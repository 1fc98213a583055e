/**
 * The embedded store (contract §1, §10): one SQLite file in WAL mode. The daemon's thread never runs
 * SQLite: a writer thread owns the one writing connection and group-commits (store-worker.ts), a
 * reader thread answers views and chain reads on a read-only connection, and whole-chain verification
 * runs in verify threads of its own (chain-verifier.ts). So an fsync, a 4 MiB page or a verify never
 * stalls the event loop that answers webhooks.
 *
 * Measured on a 2-core host (docs/performance.md): against the same store on the event loop, the
 * threads keep ingest latency flat under concurrent large reads and let ingest and dispatch overlap.
 */
import { existsSync } from 'node:fs';
import type { Clock } from '../../core/clock.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../../config/store.js';
import { RuntimeError } from '../../core/errors.js';
import type { Store } from '../store.js';
import type { StoreTransfer } from '../transfer.js';
import { createSqliteChainVerifier } from './chain-verifier.js';
import { sqliteOncall } from './oncall-store.js';
import { sqliteReceipts } from './receipt-store.js';
import { checkStoreFile, sideFilesLeftAsFound } from './schema.js';
import type { ReaderOps } from './store-worker.js';
import type { WorkerCall, WorkerClient } from './worker-client.js';
import { startWorkerClient } from './worker-client.js';

export interface SqliteStoreOptions {
  path: string;
  /** Views' byte budget per page (contract §11.4); tests lower it. */
  pageBudget?: number;
  /** Times verification's watchdog (default: the system clock). */
  clock?: Clock;
  /**
   * Opens an existing file without changing it (offline `svc audit --verify --db`, `svc backup` with no
   * daemon): no writer thread, no migration; reads, verification and backup only, every write rejects.
   */
  readOnly?: boolean;
  /** How long a fingerprint makes a repeat a duplicate (default DEFAULT_IDEMPOTENCY_WINDOW_MS). */
  idempotencyWindowMs?: number;
}

/** A copy reads from SQLite (`svc store copy`); writing already-hashed rows into it is not offered. */
function transferFrom(read: WorkerCall<ReaderOps>): StoreTransfer {
  return {
    readEvents: (afterSeq, limit) => read('readEvents', afterSeq, limit),
    readDeadLetters: (afterSeq, limit) => read('readDeadLetters', afterSeq, limit),
    readFingerprints: (sinceMs, after, limit) => read('readFingerprints', sinceMs, after, limit),
    readExportCursors: () => read('readExportCursors'),
    isEmpty: () => read('isEmpty'),
    importRows: () => Promise.reject(new RuntimeError('ESTORE_COPY', 'svc store copy writes into PostgreSQL only; the target is an SQLite store')),
  };
}

/** The reader thread starts on the first read that needs it: verification alone never starts it. */
function readOnlyStore(path: string, pageBudget: number | undefined, verifier: ReturnType<typeof createSqliteChainVerifier>): Store {
  const refuse = (): Promise<never> => Promise.reject(new RuntimeError('ESTORE_READONLY', 'the store is open read-only'));
  let started: Promise<WorkerClient<ReaderOps>> | null = null;
  const read: WorkerCall<ReaderOps> = (op, ...args) => {
    started ??= startWorkerClient({ role: 'reader', path, ...(pageBudget === undefined ? {} : { pageBudget }) });
    return started.then((r) => r.call(op, ...args));
  };
  let closing: Promise<void> | null = null;
  return {
    kind: 'sqlite',
    ingestEvent: refuse, claimEvents: refuse, renewLeases: refuse, completeEvents: refuse, releaseClaims: refuse,
    replayDeadLetters: refuse, appendAudit: refuse, advanceExportCursor: refuse, probeWrite: refuse, prune: refuse,
    acquireLeadership: () => Promise.resolve(false),
    releaseLeadership: () => Promise.resolve(),
    backlog: () => read('backlog'),
    readAudit: (afterSeq, limit) => read('readAudit', afterSeq, limit),
    eventStory: (eventId) => read('eventStory', eventId),
    auditHead: () => read('auditHead'),
    verifyAudit: (afterSeq) => verifier.verify(afterSeq),
    listEvents: (q, f) => read('listEvents', q, f),
    listDeadLetters: (q, f) => read('listDeadLetters', q, f),
    listAudit: (q, f) => read('listAudit', q, f),
    listJson: (view, q, f) => read('listJson', view, q, f),
    getEvent: (id) => read('getEvent', id),
    exportCursor: (exporterId) => read('exportCursor', exporterId),
    backup: (path) => read('backup', path),
    transfer: transferFrom(read),
    oncall: sqliteOncall(refuse, read),
    receipts: sqliteReceipts(refuse, read),
    close() {
      closing ??= (async () => {
        await verifier.close();
        if (started) await (await started.catch(() => null))?.close();
      })();
      return closing;
    },
  };
}

export async function openSqliteStore(opts: SqliteStoreOptions): Promise<Store> {
  if (opts.readOnly) {
    // Refused before any thread starts: no such file (nothing is created), or not a database.
    if (!existsSync(opts.path)) throw new RuntimeError('ESTORE_OPEN', `no store file at ${opts.path}`);
    const leaveAsFound = sideFilesLeftAsFound(opts.path);
    checkStoreFile(opts.path);
    const store = readOnlyStore(opts.path, opts.pageBudget, createSqliteChainVerifier({ path: opts.path, ...(opts.clock ? { clock: opts.clock } : {}) }));
    return { ...store, close: async () => {
      await store.close();
      leaveAsFound();
    } };
  }
  // The writer first: it creates the file and migrates the schema the reader expects.
  const writer = await startWorkerClient({ role: 'writer', path: opts.path, windowMs: opts.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS });
  let reader: WorkerClient<ReaderOps>;
  try {
    reader = await startWorkerClient({ role: 'reader', path: opts.path, ...(opts.pageBudget === undefined ? {} : { pageBudget: opts.pageBudget }) });
  } catch (err) {
    await writer.close();
    throw err;
  }
  const verifier = createSqliteChainVerifier({ path: opts.path, ...(opts.clock ? { clock: opts.clock } : {}) });
  let closing: Promise<void> | null = null;

  return {
    kind: 'sqlite',
    ingestEvent: (event, nowMs) => writer.call('ingestEvent', event, nowMs),
    claimEvents: (request) => writer.call('claimEvents', request),
    renewLeases: (claims, leaseMs, nowMs) => writer.call('renewLeases', claims, leaseMs, nowMs),
    completeEvents: (completions, nowMs) => writer.call('completeEvents', completions, nowMs),
    releaseClaims: (ownerPrefix) => writer.call('releaseClaims', ownerPrefix),
    backlog: () => reader.call('backlog'),
    replayDeadLetters: (selection, actor, nowMs, via) => writer.call('replayDeadLetters', selection, actor, nowMs, via),
    appendAudit: (entry, nowMs) => writer.call('appendAudit', entry, nowMs),
    readAudit: (afterSeq, limit) => reader.call('readAudit', afterSeq, limit),
    eventStory: (eventId) => reader.call('eventStory', eventId),
    auditHead: () => reader.call('auditHead'),
    verifyAudit: (afterSeq) => verifier.verify(afterSeq),
    listEvents: (q, f) => reader.call('listEvents', q, f),
    listDeadLetters: (q, f) => reader.call('listDeadLetters', q, f),
    listAudit: (q, f) => reader.call('listAudit', q, f),
    listJson: (view, q, f) => reader.call('listJson', view, q, f),
    getEvent: (id) => reader.call('getEvent', id),
    exportCursor: (exporterId) => reader.call('exportCursor', exporterId),
    advanceExportCursor: (exporterId, seq, nowMs) => writer.call('advanceExportCursor', exporterId, seq, nowMs),
    // One process uses the file at a time (the pid file sees to it): it always leads.
    acquireLeadership: () => Promise.resolve(true),
    releaseLeadership: () => Promise.resolve(),
    probeWrite: (nowMs) => writer.call('probeWrite', nowMs),
    prune: (policy) => writer.call('prune', policy),
    backup: async (path) => {
      // A thread and a read-only connection of its own for the whole copy (store-worker.ts backupTo).
      const copier = await startWorkerClient({ role: 'reader', path: opts.path });
      try {
        return await copier.call('backup', path);
      } finally {
        await copier.close();
      }
    },
    transfer: transferFrom(reader.call),
    oncall: sqliteOncall(writer.call, reader.call),
    receipts: sqliteReceipts(writer.call, reader.call),
    close() {
      closing ??= (async () => {
        await verifier.close();
        await reader.close();
        await writer.close();
      })();
      return closing;
    },
  };
}
