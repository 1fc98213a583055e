/**
 * Whole-chain verification (contract §5, `Store.verifyAudit`): checks every row, not just a page,
 * without stalling the caller. Two implementations share this shape:
 * - sqlite/chain-verifier.ts: worker threads with read-only connections, the fast path;
 * - `createReadChainVerifier` (here): any store's streaming reads, on the main thread in time slices.
 * The checks themselves are the pure functions of audit/chain.ts, whichever reads the rows.
 */
import type { StoredAuditRow } from '../audit/audit-row.js';
import type { Clock } from '../core/clock.js';
import type { VerifyResult } from '../audit/chain.js';
import { createSegmentVerifier, GENESIS_HASH, mergeSegments, storedRowHashMatches, storedRowText } from '../audit/chain.js';

export interface AuditChainVerifier {
  /**
   * Verifies the chain as committed when the call is made (contract §20.1), up to its head when the
   * run starts: the whole chain, or with `afterSeq` the rows after it (the first of them must link to
   * row `afterSeq` as stored). Concurrent calls share runs (sharedRuns): N concurrent `verify=1`
   * requests cost at most two reads of the chain.
   */
  verify(afterSeq?: number): Promise<VerifyResult>;
  /** Stops a run under way (its promise rejects) and releases threads and connections. */
  close(): Promise<void>;
}

const ignore = (): void => undefined;

/**
 * Shares runs between concurrent callers, never answering a call with a run that began before it: a
 * run under way may already have read a row changed since, and contract §20.1 judges the rows as
 * they are when the request arrives. A call while nothing runs starts a run; calls while one runs all
 * share the next, which starts as soon as the current one settles, from the lowest `afterSeq` they
 * asked for (a caller may get more rows checked than it asked, never fewer). Runs never overlap.
 */
export function sharedRuns<T>(run: (afterSeq: number) => Promise<T>): (afterSeq?: number) => Promise<T> {
  let current: Promise<T> | null = null;
  let next: { afterSeq: number; result: Promise<T> } | null = null;
  const start = (afterSeq: number): Promise<T> => {
    const started: Promise<T> = run(afterSeq).finally(() => { if (current === started) current = null; });
    current = started;
    return started;
  };
  return (afterSeq = 0) => {
    if (current === null) return start(afterSeq);
    if (next !== null) {
      next.afterSeq = Math.min(next.afterSeq, afterSeq);
      return next.result;
    }
    const queued: { afterSeq: number; result: Promise<T> } = { afterSeq, result: Promise.resolve(null as T) };
    queued.result = (async () => {
      // A call in between may have started one already: it too began after every waiting call, but
      // it may cover fewer rows; ours starts when no run is under way.
      while (current !== null) await current.then(ignore, ignore);
      next = null;
      return start(queued.afterSeq);
    })();
    next = queued;
    return queued.result;
  };
}

export interface ReadChainVerifierOptions {
  /** The chain's head when a run starts (it bounds the run). */
  head(): Promise<{ seq: number; hash: string } | null>;
  /** Rows with seq > afterSeq, in seq order, as stored. */
  read(afterSeq: number, limit: number): Promise<StoredAuditRow[]>;
  clock: Clock;
  /** Rows read per store call. */
  chunkRows?: number;
  /** Main-thread work between two yields to the event loop, in ms. */
  sliceMs?: number;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

/**
 * Generic verifier through a store's streaming reads and the JS stored-row text (~5 µs a
 * row). It runs on the main thread, so it works in slices of at most `sliceMs` (default 5 ms) and
 * yields to the event loop (setImmediate, so pending I/O runs first) between them; chunks are
 * small (default 256 rows, ~1–2 ms) so one chunk never overruns a slice by much.
 */
export function createReadChainVerifier(opts: ReadChainVerifierOptions): AuditChainVerifier {
  const { clock } = opts;
  const chunkRows = opts.chunkRows ?? 256;
  const sliceMs = opts.sliceMs ?? 5;
  let closed = false;

  const run = async (afterSeq: number): Promise<VerifyResult> => {
    if (closed) throw new Error('audit chain verifier closed');
    // The head when the run starts bounds it: rows appended meanwhile are for the next run.
    const head = await opts.head();
    let from = { seq: 0, hash: GENESIS_HASH };
    if (afterSeq > 0 && head !== null && afterSeq < head.seq) {
      const [row] = await opts.read(afterSeq - 1, 1);
      if (row === undefined || row.seq !== afterSeq) {
        return { ok: false, checked: 0, headSeq: head.seq, headHash: head.hash, firstBadSeq: afterSeq, problem: 'seq-gap' };
      }
      from = { seq: afterSeq, hash: row.hash };
    } else if (afterSeq > 0) {
      return mergeSegments([], head); // nothing after it to check
    }
    // The rows as one slice: same checks, same result as the worker verifier.
    let chunk = new Map<number, StoredAuditRow>();
    const v = createSegmentVerifier(from.seq, (seq) => {
      const row = chunk.get(seq);
      return row !== undefined && storedRowHashMatches(row);
    });
    let readAfter = from.seq;
    let sliceStart = clock.monotonic();
    while (head !== null && readAfter < head.seq) {
      if (closed) throw new Error('audit chain verifier closed');
      const rows = (await opts.read(readAfter, chunkRows)).filter((r) => r.seq <= head.seq);
      chunk = new Map(rows.map((r) => [r.seq, r]));
      let more = rows.length > 0;
      for (const r of rows) {
        more = v.push(r.seq, r.prevHash, r.hash, `${r.prevHash}\n${storedRowText(r)}`);
        if (!more) break;
      }
      const last = rows[rows.length - 1];
      if (!more || last === undefined) break;
      readAfter = last.seq;
      if (clock.monotonic() - sliceStart >= sliceMs) {
        await yieldToEventLoop();
        sliceStart = clock.monotonic();
      }
    }
    return mergeSegments([v.result()], head, from);
  };

  return {
    verify: sharedRuns(run),
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
