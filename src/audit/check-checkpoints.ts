/**
 * Checks checkpoints against a chain (contract §20.2): each signature with the given public key,
 * then that the chain holds each checkpoint's `seq` with that `hash`. A chain cut after a checkpoint
 * (rows deleted from the tail) or rewritten under it fails here even when it verifies on its own.
 * The daemon holds its own chain to the same rule (`claimContradiction`) before it signs another
 * checkpoint and whenever it is asked to verify (export/newest-checkpoints.ts).
 */
import type { KeyObject } from 'node:crypto';
import type { CheckpointLine } from './checkpoint-file.js';
import type { CheckpointClaim } from './checkpoint.js';
import { checkpointSignatureValid, keyIdOf } from './checkpoint.js';

export type CheckpointProblemKind = 'bad-signature' | 'missing-row' | 'hash-differs';

/**
 * How the chain contradicts a checkpoint's claim, or null when it holds `seq` with that `hash`.
 * `chainHash`: the chain's hash at the claim's seq (null: no such row); `headSeq`: its last seq.
 * `why` is the end of a sentence for a person.
 */
export function claimContradiction(claim: CheckpointClaim, chainHash: string | null, headSeq: number):
  { kind: 'missing-row' | 'hash-differs'; why: string } | null {
  if (chainHash === null) {
    const why = claim.seq > headSeq ? `the chain ends at seq ${headSeq}: rows after seq ${headSeq} were deleted`
      : `the chain has no row ${claim.seq}: it was deleted`;
    return { kind: 'missing-row', why: `the checkpoint signed at ${claim.ts} covers seq ${claim.seq}, but ${why}` };
  }
  if (chainHash !== claim.hash) {
    return { kind: 'hash-differs', why: `seq ${claim.seq} has hash ${chainHash} in the chain, but the checkpoint signed at ${claim.ts} says `
      + `${claim.hash}: the chain was rewritten up to seq ${claim.seq}` };
  }
  return null;
}

/** Where a checkpoint the daemon holds its chain to came from: its own file, or the chain's own checkpoint rows. */
export type CheckpointSource = 'file' | 'store';

/** The newest checkpoint of one source that contradicts the chain. */
export interface CheckpointContradiction {
  source: CheckpointSource;
  kind: 'missing-row' | 'hash-differs';
  seq: number;
  /** The hash the checkpoint signed. */
  hash: string;
  /** The chain's hash at `seq`; null when the chain has no such row. */
  chainHash: string | null;
  /** When the checkpoint was signed. */
  signedAt: string;
  /** The chain's last seq when it was checked. */
  headSeq: number;
  /** One sentence for a person. */
  message: string;
}

/**
 * The newest checkpoint of `$SVC_HOME/checkpoints.jsonl` and the newest of the chain's own
 * `audit.checkpoint` rows, each held against the chain as it is now (`verify.checkpoints` of
 * GET /audit?verify=1): `ok` false when one of them is contradicted.
 */
export interface NewestCheckpointsVerdict {
  ok: boolean;
  /** The checkpoints looked at (none: nothing signed yet, or no file and no checkpoint rows). */
  checked: Array<{ source: CheckpointSource; seq: number }>;
  /** The first contradiction found (the file's checkpoint first); null when none. */
  contradiction: CheckpointContradiction | null;
}

export interface CheckpointProblem {
  kind: CheckpointProblemKind;
  /** Line of the checkpoints file. */
  line: number;
  seq: number;
  /** One sentence for a person. */
  message: string;
}

export interface CheckpointsResult {
  ok: boolean;
  checked: number;
  /** Seq of the newest checkpoint checked (0 when none). */
  newestSeq: number;
  keyId: string;
  problem: CheckpointProblem | null;
}

/**
 * `hashAt(seq)` is the chain's hash at seq, or null when the chain has no such row; `headSeq` the
 * chain's last seq. Signatures are all checked first: a forged line is named even when the chain
 * would also fail.
 */
export async function checkCheckpoints(lines: readonly CheckpointLine[], publicKey: KeyObject, headSeq: number,
  hashAt: (seq: number) => Promise<string | null>): Promise<CheckpointsResult> {
  const keyId = keyIdOf(publicKey);
  const fail = (problem: CheckpointProblem, checked: number): CheckpointsResult =>
    ({ ok: false, checked, newestSeq: 0, keyId, problem });
  for (const { line, checkpoint } of lines) {
    if (!checkpointSignatureValid(checkpoint, publicKey)) {
      return fail({ kind: 'bad-signature', line, seq: checkpoint.seq,
        message: `line ${line} (seq ${checkpoint.seq}): the signature does not verify with the given public key (key ${keyId})` }, 0);
    }
  }
  let newestSeq = 0;
  let checked = 0;
  for (const { line, checkpoint } of lines) {
    const hash = await hashAt(checkpoint.seq);
    checked += 1;
    const contradicted = claimContradiction(checkpoint, hash, headSeq);
    if (contradicted !== null) {
      return fail({ kind: contradicted.kind, line, seq: checkpoint.seq, message: `line ${line}: ${contradicted.why}` }, checked);
    }
    newestSeq = Math.max(newestSeq, checkpoint.seq);
  }
  return { ok: true, checked, newestSeq, keyId, problem: null };
}
