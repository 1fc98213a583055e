/**
 * What the story of an event (contract §20.3) may claim about the chain, and what it costs to check.
 *
 * - `tail(fromSeq)`: every row from `fromSeq` to the head, checked when asked — seq, link and hash,
 *   the first row's link to the row before it included. A story checks from its first row, so a row
 *   of the story, or any later row, changed in place is seen by the next story, whenever it happened.
 *   The cost is the rows after the event, not the chain: a few for a recent event — read and hashed
 *   here, in one read of at most SMALL_TAIL_ROWS (a hop to the verify threads, which run at a lower
 *   priority, costs more than that on a busy host) — up to the whole chain for the first event, which
 *   the store's verifier checks (Store.verifyAudit(afterSeq): SQLite's verify threads, off the event
 *   loop).
 * - `current()`: the rows before the story — how far the chain is known intact, as checked earlier: the
 *   whole chain verified once (at the first call, off the event loop; `fullCheckAt` says when), then
 *   each row appended since, once. A row before the story rewritten after it was checked is not seen
 *   here; `verify=1` / `svc audit --verify` re-read all, and checkpoints catch a re-hashed tail.
 *   A broken chain is verified whole again on the next call (a restore may have repaired it).
 */
import type { AuditProblem } from '../audit/chain.js';
import { GENESIS_HASH, storedRowHashMatches } from '../audit/chain.js';
import type { StoredAuditRow } from '../audit/audit-row.js';
import type { Clock } from '../core/clock.js';
import { isoTs } from '../core/clock.js';
import { createReadChainVerifier } from './read-chain-verifier.js';
import type { Store } from './store.js';

/** Rows read per step while catching up. */
const STEP_ROWS = 2000;
/** Longest tail checked on the event loop: one read, ~10 ms of hashing at most. */
export const SMALL_TAIL_ROWS = 2000;

export interface WatermarkState {
  ok: boolean;
  /** Last seq known good (0: none). */
  seq: number;
  /** The first problem found; null while intact. */
  problem: { seq: number; kind: AuditProblem } | null;
  /** When the whole chain was last verified (ISO-8601); null before the first verification ended. */
  fullCheckAt: string | null;
}

/** Rows `fromSeq`..head as they are when the check ran. */
export interface TailCheck {
  ok: boolean;
  /** First seq checked (its link to the row before it included). */
  fromSeq: number;
  /** The head when the check began: the last seq checked when ok. */
  throughSeq: number;
  /** When the check began (ISO-8601). */
  checkedAt: string;
  problem: { seq: number; kind: AuditProblem } | null;
}

export interface ChainWatermark {
  /** Catches up with the head as it is now (concurrent calls share one run) and says where it stands. */
  current(): Promise<WatermarkState>;
  /** Checks rows `fromSeq` through the head, now. */
  tail(fromSeq: number): Promise<TailCheck>;
}

/** The verifier's per-row rule: seq, then link, then hash. */
function rowProblem(row: StoredAuditRow, prevSeq: number, prevHash: string): AuditProblem | null {
  if (row.seq !== prevSeq + 1) return 'seq-gap';
  if (row.prevHash !== prevHash) return 'prev-link-mismatch';
  return storedRowHashMatches(row) ? null : 'hash-mismatch';
}

/** `smallTailRows`: SMALL_TAIL_ROWS unless a test asks for another bound. */
export function createChainWatermark(store: Store, clock: Clock, options: { smallTailRows?: number } = {}): ChainWatermark {
  const smallTailRows = options.smallTailRows ?? SMALL_TAIL_ROWS;
  let seq = 0;
  let hash = GENESIS_HASH;
  let seeded = false;
  let problem: WatermarkState['problem'] = null;
  let fullCheckAt: string | null = null;
  let running: Promise<WatermarkState> | null = null;

  const seed = async (): Promise<void> => {
    const startedAt = clock.now();
    const v = await store.verifyAudit();
    seeded = true;
    fullCheckAt = isoTs(startedAt);
    if (v.ok) {
      seq = v.headSeq;
      hash = v.headHash ?? GENESIS_HASH;
      problem = null;
    } else {
      problem = { seq: v.firstBadSeq ?? 0, kind: v.problem ?? 'hash-mismatch' };
    }
  };

  const catchUp = async (): Promise<void> => {
    for (;;) {
      const rows = await store.readAudit(seq, STEP_ROWS);
      for (const row of rows) {
        const kind = rowProblem(row, seq, hash);
        if (kind !== null) {
          problem = { seq: kind === 'seq-gap' ? seq + 1 : row.seq, kind };
          return;
        }
        seq = row.seq;
        hash = row.hash;
      }
      if (rows.length < STEP_ROWS) return;
    }
  };

  const run = async (): Promise<WatermarkState> => {
    if (!seeded || problem !== null) await seed();
    if (problem === null) await catchUp();
    return { ok: problem === null, seq, problem, fullCheckAt };
  };

  // The same checks as the store's verifier, through the store's reads, on the event loop.
  const nearHead = createReadChainVerifier({ head: () => store.auditHead(), read: (afterSeq, limit) => store.readAudit(afterSeq, limit),
    clock, chunkRows: smallTailRows });

  const tail = async (fromSeq: number): Promise<TailCheck> => {
    const checkedAt = isoTs(clock.now());
    const headSeq = (await store.auditHead())?.seq ?? 0;
    const v = headSeq - fromSeq < smallTailRows ? await nearHead.verify(fromSeq - 1) : await store.verifyAudit(fromSeq - 1);
    return { ok: v.ok, fromSeq, throughSeq: v.headSeq, checkedAt,
      problem: v.ok ? null : { seq: v.firstBadSeq ?? 0, kind: v.problem ?? 'hash-mismatch' } };
  };

  return {
    current() {
      running ??= run().finally(() => { running = null; });
      return running;
    },
    tail,
  };
}
