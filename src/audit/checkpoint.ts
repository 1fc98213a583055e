/**
 * Signed checkpoints of the audit chain (contract §20.2), pure: what is signed, how it is signed and
 * checked, and when the next one is due.
 *
 * A checkpoint says "at `ts` the chain's row `seq` had hash `hash`", signed with an Ed25519 key that
 * lives outside the store. The signed bytes are the UTF-8 of the RFC 8785 JSON of exactly those three
 * members — `{"hash":"<64 hex>","seq":<integer>,"ts":"<ISO-8601 UTC, ms>"}`, no whitespace — so anyone
 * can check a checkpoint with their own tools (docs/audit.md shows `openssl pkeyutl`).
 */
import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { canonicalJson } from './chain.js';

/** Kind of the audit row, and of the SIEM record, that carries a checkpoint. */
export const CHECKPOINT_KIND = 'audit.checkpoint';

/** What is signed: the chain head at `ts`. */
export interface CheckpointClaim {
  seq: number;
  hash: string;
  ts: string;
}

/** A checkpoint as written to checkpoints.jsonl, sent to SIEMs and listed by GET /audit/checkpoints. */
export interface Checkpoint extends CheckpointClaim {
  /** Base64 of the 64-byte Ed25519 signature of `checkpointMessage(claim)`. */
  signature: string;
  /** First 16 hex digits of SHA-256 of the public key (DER SubjectPublicKeyInfo): which key signed. */
  keyId: string;
}

/** The exact bytes that are signed. */
export function checkpointMessage(claim: CheckpointClaim): Buffer {
  return Buffer.from(canonicalJson({ seq: claim.seq, hash: claim.hash, ts: claim.ts }), 'utf8');
}

export function publicKeyPem(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'pem' }).toString();
}

export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

export function signCheckpoint(claim: CheckpointClaim, key: KeyObject): Checkpoint {
  const signature = sign(null, checkpointMessage(claim), key).toString('base64');
  return { seq: claim.seq, hash: claim.hash, ts: claim.ts, signature, keyId: keyIdOf(key) };
}

/** Whether `signature` is an Ed25519 signature of the checkpoint's claim by `publicKey`. */
export function checkpointSignatureValid(cp: Checkpoint, publicKey: KeyObject): boolean {
  if (!/^[A-Za-z0-9+/]{86}==$/.test(cp.signature)) return false;
  return verify(null, checkpointMessage(cp), publicKey, Buffer.from(cp.signature, 'base64'));
}

/** A parsed checkpoint, or why the text is not one (a short phrase, never the text). */
export function parseCheckpoint(value: unknown): { ok: true; checkpoint: Checkpoint } | { ok: false; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'not a JSON object' };
  const v = value as Record<string, unknown>;
  if (!Number.isSafeInteger(v.seq) || (v.seq as number) < 1) return { ok: false, error: 'seq is not a positive integer' };
  if (typeof v.hash !== 'string' || !/^[0-9a-f]{64}$/.test(v.hash)) return { ok: false, error: 'hash is not 64 lower-case hex digits' };
  if (typeof v.ts !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(v.ts)) return { ok: false, error: 'ts is not an ISO-8601 UTC time' };
  if (typeof v.signature !== 'string') return { ok: false, error: 'signature is missing' };
  if (typeof v.keyId !== 'string') return { ok: false, error: 'keyId is missing' };
  return { ok: true, checkpoint: { seq: v.seq as number, hash: v.hash, ts: v.ts, signature: v.signature, keyId: v.keyId } };
}

export interface CheckpointCadence {
  everyRows: number;
  everyMs: number;
}

/**
 * Whether to sign now: only when the chain grew past the last checkpoint (its own row aside), and
 * `everyRows` rows were appended or `everyMs` passed since the last one, whichever comes first.
 * `rowsSince` counts rows after the last checkpoint's row; `msSince` is null before the first one.
 */
export function checkpointDue(cadence: CheckpointCadence, rowsSince: number, msSince: number | null): boolean {
  if (rowsSince <= 0) return false;
  return rowsSince >= cadence.everyRows || msSince === null || msSince >= cadence.everyMs;
}
