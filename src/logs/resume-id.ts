/**
 * The `id:` of /logs frames and the Last-Event-ID a client sends back on reconnect (contract §6).
 *
 * Format (opaque to clients): base64url, no padding, of the JSON array
 * `[1, [agentId, ino, end, len, crc], ...]` with one entry per agent of the stream: version 1, then
 * where the stream stands in each agent's log file (a TailPosition). A multiplexed stream carries
 * every agent's position, so a resume restarts each file exactly after what the client was sent.
 */
import { ID_PATTERN } from '../config/schema.js';
import type { TailPosition } from './tail-types.js';

const VERSION = 1;
/** Longer headers are refused outright (64 agents of 64-character ids fit in about 8 KiB). */
export const MAX_RESUME_ID_CHARS = 16 * 1024;
const MAX_AGENTS = 256;

export type ResumeResult = { ok: true; positions: Map<string, TailPosition> } | { ok: false; error: string };

/** One agent's entry, cached by callers per agent and joined with `resumeIdFromSegments`. */
export function resumeSegment(agentId: string, p: TailPosition): string {
  return JSON.stringify([agentId, p.ino, p.end, p.len, p.crc]);
}

export function resumeIdFromSegments(segments: readonly string[]): string {
  return Buffer.from(`[${VERSION}${segments.length > 0 ? ',' : ''}${segments.join(',')}]`).toString('base64url');
}

export function encodeResumeId(positions: Iterable<readonly [string, TailPosition]>): string {
  const segments: string[] = [];
  for (const [agent, p] of positions) segments.push(resumeSegment(agent, p));
  return resumeIdFromSegments(segments);
}

const isCount = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

export function decodeResumeId(raw: string): ResumeResult {
  const bad = (why: string): ResumeResult => ({ ok: false, error: `invalid Last-Event-ID: ${why}` });
  if (raw.length === 0 || raw.length > MAX_RESUME_ID_CHARS || !/^[A-Za-z0-9_-]+$/.test(raw)) return bad('not an id of this stream');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return bad('not an id of this stream');
  }
  if (!Array.isArray(value) || value[0] !== VERSION || value.length - 1 > MAX_AGENTS) return bad('not an id of this stream');
  const positions = new Map<string, TailPosition>();
  for (const entry of value.slice(1) as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 5) return bad('malformed position');
    const [agent, ino, end, len, crc] = entry as unknown[];
    if (typeof agent !== 'string' || !ID_PATTERN.test(agent) || positions.has(agent)) return bad('malformed position');
    if (!isCount(ino) || !isCount(end) || !isCount(len) || len > end || !isCount(crc, 0xffff_ffff)) return bad('malformed position');
    positions.set(agent, { ino, end, len, crc });
  }
  return { ok: true, positions };
}
