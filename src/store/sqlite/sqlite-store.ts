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
import type { AuditRow, StoredAuditRow } from '../../audit/audit-row.js';
import type { Clock } from '../../core/clock.js';
import { RuntimeError } from '../../core/errors.js';
import type { FingerprintKey, TransferCursor, TransferDeadLetter, TransferEvent, TransferFingerprint } from '../transfer.js';
import type {
  BacklogCount, ClaimedEvent, CompletionResult, DeadLetterRecord, EventRecord, IngestResult, ListedAuditRow, Page, Store,
} from '../store.js';
import { createSqliteChainVerifier } from './chain-verifier.js';
import type { WorkerClient } from './worker-client.js';
import { startWorkerClient } from './worker-client.js';

export interface SqliteStoreOptions {
  path: string;
  /** Views' byte budget per page (contract §11.4); tests lower it. */
  pageBudget?: number;
  /** Times verification's watchdog (default: the system clock). */
  clock?: Clock;
}

export async function openSqliteStore(opts: SqliteStoreOptions): Promise<Store> {
  // The writer first: it creates the file and migrates the schema the reader expects.
  const writer = await startWorkerClient({ role: 'writer', path: opts.path });
  let reader: WorkerClient;
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
    ingestEvent: (event, windowMs, nowMs) => writer.call<IngestResult>('ingestEvent', event, windowMs, nowMs),
    claimEvents: (request) => writer.call<ClaimedEvent[]>('claimEvents', request),
    renewLeases: (claims, leaseMs, nowMs) => writer.call('renewLeases', claims, leaseMs, nowMs),
    completeEvents: (completions, nowMs) => writer.call<CompletionResult[]>('completeEvents', completions, nowMs),
    releaseClaims: (ownerPrefix) => writer.call<number>('releaseClaims', ownerPrefix),
    backlog: () => reader.call<BacklogCount[]>('backlog'),
    replayDeadLetters: (selection, actor, nowMs) => writer.call('replayDeadLetters', selection, actor, nowMs),
    appendAudit: (entry, nowMs) => writer.call<AuditRow>('appendAudit', entry, nowMs),
    readAudit: (afterSeq, limit) => reader.call<StoredAuditRow[]>('readAudit', afterSeq, limit),
    auditHead: () => reader.call('auditHead'),
    verifyAudit: () => verifier.verify(),
    listEvents: (q, f) => reader.call<Page<EventRecord>>('listEvents', q, f),
    listDeadLetters: (q, f) => reader.call<Page<DeadLetterRecord>>('listDeadLetters', q, f),
    listAudit: (q, f) => reader.call<Page<ListedAuditRow>>('listAudit', q, f),
    exportCursor: (exporterId) => reader.call<number>('exportCursor', exporterId),
    advanceExportCursor: (exporterId, seq, nowMs) => writer.call('advanceExportCursor', exporterId, seq, nowMs),
    // One process uses the file at a time (the pid file sees to it): it always leads.
    acquireLeadership: () => Promise.resolve(true),
    releaseLeadership: () => Promise.resolve(),
    probeWrite: (nowMs) => writer.call('probeWrite', nowMs),
    prune: (policy) => writer.call('prune', policy),
    backup: (path) => writer.call('backup', path),
    // A copy reads from SQLite (`svc store copy`); writing already-hashed rows into it is not offered.
    transfer: {
      readEvents: (afterSeq: number, limit: number) => reader.call<TransferEvent[]>('readEvents', afterSeq, limit),
      readDeadLetters: (afterSeq: number, limit: number) => reader.call<TransferDeadLetter[]>('readDeadLetters', afterSeq, limit),
      readFingerprints: (sinceMs: number, after: FingerprintKey | null, limit: number) =>
        reader.call<TransferFingerprint[]>('readFingerprints', sinceMs, after, limit),
      readExportCursors: () => reader.call<TransferCursor[]>('readExportCursors'),
      isEmpty: () => reader.call<boolean>('isEmpty'),
      importRows: () => Promise.reject(new RuntimeError('ESTORE_COPY', 'svc store copy writes into PostgreSQL only; the target is an SQLite store')),
    },
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
