/**
 * Pure functions of the audit hash chain (contract §5):
 * `hash = hex(SHA-256(prevHash + "\n" + JCS(row without hash)))`, genesis `prevHash` = 64 zeros.
 * JCS is RFC 8785, so any other verifier can recompute every hash from the rows alone.
 */
import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { AuditRow } from '../store/store.js';

// `canonicalize` is CommonJS (`module.exports = fn`) but its typings declare `export default fn`;
// under NodeNext the default import is `module.exports`, i.e. the function itself.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** `prevHash` of the row with seq 1. */
export const GENESIS_HASH = '0'.repeat(64);

/** What `verify` can report (contract §5 order; each row is checked seq, then link, then hash). */
export const AUDIT_PROBLEMS = ['hash-mismatch', 'prev-link-mismatch', 'seq-gap'] as const;
export type AuditProblem = (typeof AUDIT_PROBLEMS)[number];

export type UnhashedAuditRow = Omit<AuditRow, 'hash'>;

/** The `verify` object of `/audit?verify=1` (contract §5). */
export interface VerifyResult {
  ok: boolean;
  /** Rows checked, up to and including the first bad one. */
  checked: number;
  /** Seq of the last row seen (0 when the chain is empty). */
  headSeq: number;
  /** Hash of the last row seen (null when the chain is empty). */
  headHash: string | null;
  /** For `seq-gap` the seq that was expected there; otherwise the seq of the bad row. */
  firstBadSeq: number | null;
  problem: AuditProblem | null;
}

/**
 * RFC 8785 JSON. Throws on values JSON cannot carry (NaN, Infinity, a top-level undefined):
 * hashing something that would not survive storage is a bug.
 */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError('value has no JSON representation');
  return out;
}

/** RFC 8785 string of the hashed fields; any other property (e.g. `hash`) is ignored. */
export function canonicalRow(row: UnhashedAuditRow): string {
  return canonicalJson({
    seq: row.seq,
    ts: row.ts,
    kind: row.kind,
    actor: row.actor,
    agentId: row.agentId,
    data: row.data,
    prevHash: row.prevHash,
  });
}

/** Lower-case hex SHA-256 of `prevHash + "\n" + canonicalRow(row)`. */
export function hashRow(prevHash: string, row: UnhashedAuditRow): string {
  return createHash('sha256').update(`${prevHash}\n${canonicalRow(row)}`, 'utf8').digest('hex');
}

export interface ChainVerifier {
  /** Feed rows in seq order; after the first problem rows only move the head. */
  push(row: AuditRow): void;
  result(): VerifyResult;
}

/**
 * Incremental verifier, so a whole chain can be checked in chunks without holding it in memory.
 * Per row: seq must be the previous seq + 1 (1 first), then `prevHash` must equal the previous
 * row's hash (GENESIS_HASH first), then the recomputed hash must equal the stored one.
 */
export function createChainVerifier(): ChainVerifier {
  let checked = 0;
  let headSeq = 0;
  let headHash: string | null = null;
  let firstBadSeq: number | null = null;
  let problem: AuditProblem | null = null;
  let expectedPrev = GENESIS_HASH;

  return {
    push(row) {
      const expectedSeq = headSeq + 1;
      headSeq = row.seq;
      headHash = row.hash;
      if (problem !== null) return;
      checked += 1;
      if (row.seq !== expectedSeq) {
        problem = 'seq-gap';
        firstBadSeq = expectedSeq;
      } else if (row.prevHash !== expectedPrev) {
        problem = 'prev-link-mismatch';
        firstBadSeq = row.seq;
      } else if (hashRow(row.prevHash, row) !== row.hash) {
        problem = 'hash-mismatch';
        firstBadSeq = row.seq;
      }
      expectedPrev = row.hash;
    },
    result() {
      return { ok: problem === null, checked, headSeq, headHash, firstBadSeq, problem };
    },
  };
}
