/**
 * Checks checkpoints against a chain (contract §20.2): each signature with the given public key,
 * then that the chain holds each checkpoint's `seq` with that `hash`. A chain cut after a checkpoint
 * (rows deleted from the tail) or rewritten under it fails here even when it verifies on its own.
 */
import type { KeyObject } from 'node:crypto';
import type { CheckpointLine } from './checkpoint-file.js';
import { checkpointSignatureValid, keyIdOf } from './checkpoint.js';

export type CheckpointProblemKind = 'bad-signature' | 'missing-row' | 'hash-differs';

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
    if (hash === null) {
      const why = checkpoint.seq > headSeq ? `the chain ends at seq ${headSeq}: rows after seq ${headSeq} were deleted`
        : `the chain has no row ${checkpoint.seq}: it was deleted`;
      return fail({ kind: 'missing-row', line, seq: checkpoint.seq,
        message: `line ${line}: the checkpoint signed at ${checkpoint.ts} covers seq ${checkpoint.seq}, but ${why}` }, checked);
    }
    if (hash !== checkpoint.hash) {
      return fail({ kind: 'hash-differs', line, seq: checkpoint.seq,
        message: `line ${line}: seq ${checkpoint.seq} has hash ${hash} in the chain, but the checkpoint signed at ${checkpoint.ts} says `
          + `${checkpoint.hash}: the chain was rewritten up to seq ${checkpoint.seq}` }, checked);
    }
    newestSeq = Math.max(newestSeq, checkpoint.seq);
  }
  return { ok: true, checked, newestSeq, keyId, problem: null };
}
