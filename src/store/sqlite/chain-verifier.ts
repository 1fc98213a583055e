/**
 * Whole-chain verification of the SQLite store in worker threads.
 *
 * Why threads rather than main-thread slices: on these machines reading a stored row costs about
 * as much as its SHA-256 (~3 µs each), so one thread, however it is scheduled, verifies at ~0.5x
 * the raw chain-step rate — below the 0.7x target — and would keep the main thread busy for the
 * whole run. Each row's checks are local (its seq, its prevHash against the row before, its own
 * hash), so the chain splits into slices that workers check in parallel with their own read-only
 * connections; `mergeSegments` joins the slice results into exactly what a sequential pass gives.
 * The main thread only posts small jobs and merges small replies, so requests keep flowing; on
 * Linux the workers also run at a lower CPU priority, so when cores are short the event loop runs
 * first (measured on a loaded 2-core host: 3-4x the /events pages served during a verify).
 *
 * Workers are started on the first run, unref'd (they never keep the process alive) and stopped
 * after `idleMs` without a run, or by `close()`.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { startModuleWorker } from '../../core/worker.js';
import { openAuditReader } from './audit-reader.js';
import type { SegmentResult, VerifyResult } from '../../audit/chain.js';
import { GENESIS_HASH, mergeSegments } from '../../audit/chain.js';
import type { AuditChainVerifier } from '../read-chain-verifier.js';
import { sharedRuns } from '../read-chain-verifier.js';
import type { VerifyJob, VerifyReply, VerifyWorkerData } from './verify-worker.js';

export interface SqliteChainVerifierOptions {
  /** The store's SQLite file. */
  path: string;
  /** Worker threads a run uses; default min(2, available cores): an occasional check gets two cores at most. */
  threads?: number;
  /** Rows per slice handed to a worker (default 20,000: a few tenths of a second of work). */
  segmentRows?: number;
  /** Rows per read inside a worker (default 2,000, ~1 MB). */
  chunkRows?: number;
  /** Workers idle this long are stopped (default 30 s). */
  idleMs?: number;
  /**
   * A run fails when no worker has answered for this long (default 60 s; a slice takes well under
   * a second): a wedged thread becomes a 500 and fresh workers, never a request that hangs.
   */
  stallMs?: number;
  /** Times the watchdog and the idle stop (default: the system clock). */
  clock?: Clock;
}

interface Run {
  onReply(worker: Worker, reply: VerifyReply): void;
  fail(err: Error): void;
}

export function createSqliteChainVerifier(opts: SqliteChainVerifierOptions): AuditChainVerifier {
  const threads = Math.max(1, opts.threads ?? Math.min(2, availableParallelism()));
  const segmentRows = opts.segmentRows ?? 20_000;
  const idleMs = opts.idleMs ?? 30_000;
  const stallMs = opts.stallMs ?? 60_000;
  const clock = opts.clock ?? systemClock;
  const workerData: VerifyWorkerData = { path: opts.path, chunkRows: opts.chunkRows ?? 2_000 };

  let workers: Worker[] = [];
  let active: Run | null = null;
  let idleTimer: TimerHandle | null = null;
  let closed = false;

  const stopWorkers = async (): Promise<void> => {
    const stopping = workers;
    workers = [];
    await Promise.all(stopping.map((w) => w.terminate()));
  };

  const spawn = (): Worker => {
    const worker = startModuleWorker(new URL('./verify-worker.js', import.meta.url), import.meta.url, workerData);
    worker.unref();
    // Permanent listeners: an 'error' event without one would crash the process. Only a worker still in
    // the pool speaks for the run under way: one being stopped (idle, or after a failed run) ends
    // asynchronously, and its exit may come after the next run has begun — that run is not its business.
    const pooled = (): boolean => workers.includes(worker);
    worker.on('message', (reply: VerifyReply) => { if (pooled()) active?.onReply(worker, reply); });
    worker.on('error', (err) => { if (pooled()) active?.fail(err); });
    worker.on('exit', (code) => {
      if (!pooled()) return;
      workers = workers.filter((w) => w !== worker);
      active?.fail(new Error(`audit verify worker exited (code ${code})`));
    });
    return worker;
  };

  /** Runs every slice on the pool; a slice with a problem makes the later ones unnecessary. */
  const runSlices = (slices: VerifyJob[]): Promise<SegmentResult[]> => new Promise((resolve, reject) => {
    while (workers.length < Math.min(threads, slices.length)) workers.push(spawn());
    const used = workers.slice(0, slices.length);
    // Ref'd while they work, so a run keeps the process alive until it settles.
    for (const w of used) w.ref();
    const results: SegmentResult[] = [];
    let next = 0;
    let pending = 0;
    let stopAt = slices.length;
    let watchdog: TimerHandle | null = null;
    const watch = (): void => {
      if (watchdog !== null) clock.clearTimer(watchdog);
      watchdog = clock.setTimer(() => { settle(new Error(`audit verify workers silent for ${stallMs} ms`)); }, stallMs);
    };
    const settle = (err: Error | null): void => {
      if (active !== current) return;
      active = null;
      if (watchdog !== null) clock.clearTimer(watchdog);
      for (const w of used) w.unref();
      if (err !== null) reject(err);
      else resolve(results.slice(0, stopAt));
    };
    const dispatch = (worker: Worker): void => {
      const job = next < stopAt ? slices[next] : undefined;
      if (job === undefined) {
        if (pending === 0) settle(null);
        return;
      }
      next += 1;
      pending += 1;
      worker.postMessage(job);
    };
    const current: Run = {
      onReply(worker, reply) {
        watch();
        pending -= 1;
        if (!reply.ok) {
          settle(new Error(`audit verify worker: ${reply.error}`));
          return;
        }
        results[reply.id] = reply.result;
        if (reply.result.problem !== null) stopAt = Math.min(stopAt, reply.id + 1);
        dispatch(worker);
      },
      fail: settle,
    };
    active = current;
    watch();
    for (const w of used) dispatch(w);
  });

  const run = async (afterSeq: number): Promise<VerifyResult> => {
    if (closed) throw new Error('audit chain verifier closed');
    if (idleTimer !== null) clock.clearTimer(idleTimer);
    let ok = false;
    try {
      // The head when the run starts bounds it: rows appended meanwhile are for the next run. With
      // `afterSeq`, the rows after it, the first linked to that row as stored.
      const reader = openAuditReader(opts.path);
      let head: { seq: number; hash: string } | null;
      let from = { seq: 0, hash: GENESIS_HASH };
      try {
        head = reader.head();
        if (afterSeq > 0 && head !== null && afterSeq < head.seq) {
          const row = reader.row(afterSeq);
          if (row === undefined) {
            ok = true;
            return { ok: false, checked: 0, headSeq: head.seq, headHash: head.hash, firstBadSeq: afterSeq, problem: 'seq-gap' };
          }
          from = { seq: afterSeq, hash: row.hash };
        } else if (afterSeq > 0) {
          ok = true;
          return mergeSegments([], head); // nothing after it to check
        }
      } finally {
        reader.close();
      }
      const slices: VerifyJob[] = [];
      for (let after = from.seq, id = 0; head !== null && after < head.seq; after += segmentRows, id++) {
        slices.push({ id, afterSeq: after, throughSeq: Math.min(after + segmentRows, head.seq) });
      }
      const result = mergeSegments(slices.length === 0 ? [] : await runSlices(slices), head, from);
      ok = true;
      return result;
    } finally {
      if (!ok || closed) {
        // After a failure a worker may still be busy with a job nobody waits for: start afresh.
        await stopWorkers();
      } else {
        idleTimer = clock.setTimer(() => { void stopWorkers(); }, idleMs);
      }
    }
  };

  return {
    verify: sharedRuns(run),
    close: async () => {
      closed = true;
      if (idleTimer !== null) clock.clearTimer(idleTimer);
      active?.fail(new Error('audit chain verifier closed'));
      await stopWorkers();
    },
  };
}
