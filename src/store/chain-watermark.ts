/**
 * How far the chain is known to be intact, kept up to date cheaply for the story of an event
 * (contract §20.3). The first call verifies the whole chain once (Store.verifyAudit, off the event
 * loop); every later call checks only the rows appended since — seq, link and hash, as the verifier
 * does — and moves the watermark to the head. So "the chain is intact up to its head" costs the new
 * rows, not the chain. A row rewritten below the watermark after it passed is not seen here: the
 * story re-checks its own rows and their links, and `verify=1` / `svc audit --verify` re-read all.
 * A broken chain is verified whole again on the next call (a restore may have repaired it).
 */
import type { AuditProblem } from '../audit/chain.js';
import { GENESIS_HASH, storedRowHashMatches } from '../audit/chain.js';
import type { Store } from './store.js';

/** Rows read per step while catching up. */
const STEP_ROWS = 2000;

export interface WatermarkState {
  ok: boolean;
  /** Last seq known good (0: none). */
  seq: number;
  /** The first problem found; null while intact. */
  problem: { seq: number; kind: AuditProblem } | null;
}

export interface ChainWatermark {
  /** Catches up with the head as it is now (concurrent calls share one run) and says where it stands. */
  current(): Promise<WatermarkState>;
}

export function createChainWatermark(store: Store): ChainWatermark {
  let seq = 0;
  let hash = GENESIS_HASH;
  let seeded = false;
  let problem: WatermarkState['problem'] = null;
  let running: Promise<WatermarkState> | null = null;

  const seed = async (): Promise<void> => {
    const v = await store.verifyAudit();
    seeded = true;
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
        const kind: AuditProblem | null = row.seq !== seq + 1 ? 'seq-gap' : row.prevHash !== hash ? 'prev-link-mismatch'
          : storedRowHashMatches(row) ? null : 'hash-mismatch';
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
    return { ok: problem === null, seq, problem };
  };

  return {
    current() {
      running ??= run().finally(() => { running = null; });
      return running;
    },
  };
}
