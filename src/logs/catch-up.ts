/**
 * The historical part of a subscription: from its own start (byte 0 for a `since` replay, a verified
 * resume offset for Last-Event-ID) up to the shared reader's line end, read with positional reads of
 * the shared descriptor, then the hand-over to the live stream (see tail-file.ts for why it is exact).
 * Generation changes met on the way are followed: the rest of a rotated file is read up to where the
 * shared reader left it, a truncated one is not (its bytes are gone), then the new file from byte 0.
 */
import { crc32 } from 'node:zlib';
import { createLineSplitter } from './line-splitter.js';
import { fstatSize, readAt } from './tail-fs.js';
import type { SubscribeOptions, TailLine, TailNotice, TailPosition } from './tail-types.js';

/** A descriptor shared by the reader and catch-ups; closed when `refs` drops to 0. */
export interface FdRef {
  readonly fd: number;
  refs: number;
}

/** One incarnation of the file at the path; `retired` once truncated or replaced. */
export interface Generation {
  readonly ino: number;
  readonly fd: FdRef;
  retired: { finalEnd: number; reason: 'truncated' | 'rotated' } | null;
}

/** What a catch-up may see of the shared reader. */
export interface SharedReader {
  readonly gen: Generation | null;
  /** Offset just after the last line the reader has dispatched in `gen`. */
  readonly lineEnd: number;
  readonly closed: boolean;
  /** Resolves after the reader's next check of the file. */
  nextCheck(): Promise<void>;
  unref(fd: FdRef): void;
}

export interface CatchUpTarget {
  isClosed(): boolean;
  start(pos: TailPosition): void;
  lines(batch: readonly TailLine[]): void;
  notice(kind: TailNotice, pos: TailPosition): void;
  /** Synchronously adds the subscriber to the live set, positioned at `pos` in `gen`. */
  join(gen: Generation | null, pos: number): void;
}

/** Small reads: one chunk never holds more lines than a client may have pending. */
const CATCH_UP_CHUNK = 16 * 1024;
const ZERO: TailPosition = { ino: 0, end: 0, len: 0, crc: 0 };

export async function runCatchUp(shared: SharedReader, sub: CatchUpTarget, opts: SubscribeOptions, maxLineBytes: number): Promise<void> {
  let g = shared.gen;
  if (g === null) {
    // Nothing readable yet: whatever appears will be new, and the live stream delivers it from byte 0.
    sub.start(ZERO);
    sub.join(null, 0);
    return;
  }
  g.fd.refs += 1;
  const buf = Buffer.allocUnsafe(CATCH_UP_CHUNK);
  try {
    let startPos: TailPosition = { ino: g.ino, end: 0, len: 0, crc: 0 };
    let reset = false;
    if (opts.afterOffset !== undefined) {
      if (await resumeMatches(g, opts.afterOffset, opts.verify, buf)) {
        startPos = { ino: g.ino, end: opts.afterOffset, len: opts.verify?.len ?? 0, crc: opts.verify?.crc ?? 0 };
      } else {
        reset = true;
      }
      if (sub.isClosed() || shared.closed) return;
    }
    sub.start(startPos);
    if (reset) sub.notice('reset', startPos);
    let sp = createLineSplitter(startPos.end, { maxLineBytes });
    let exhausted = false;
    for (;;) {
      if (sub.isClosed() || shared.closed) return;
      const current = shared.gen;
      const retired = g.retired;
      let target = sp.pos;
      if (current === g) target = shared.lineEnd;
      else if (retired?.reason === 'rotated' && !exhausted) target = retired.finalEnd;
      if (sp.pos < target) {
        const wait = opts.waitForRoom?.() ?? null;
        if (wait !== null) { await wait; continue; }
        const n = await readAt(g.fd.fd, buf, Math.min(buf.length, target - sp.pos), sp.pos);
        if (sub.isClosed() || shared.closed) return;
        if (n === 0) {
          // The file is shorter than the reader's line end: truncated under us. Let the reader see it.
          if (shared.gen === g) await shared.nextCheck();
          else exhausted = true;
          continue;
        }
        const batch: TailLine[] = [];
        sp.feed(buf.subarray(0, n), g.ino, batch);
        if (batch.length > 0) sub.lines(batch);
        continue;
      }
      if (current === g) {
        sub.join(g, sp.pos); // same tick as the check above: the hand-over point
        return;
      }
      // g is retired and read as far as it goes: continue with the generation that replaced it.
      sub.notice(retired?.reason ?? 'rotated', { ino: current?.ino ?? 0, end: 0, len: 0, crc: 0 });
      shared.unref(g.fd);
      g = current;
      if (g === null) {
        sub.join(null, 0);
        return;
      }
      g.fd.refs += 1;
      sp = createLineSplitter(0, { maxLineBytes });
      exhausted = false;
    }
  } finally {
    if (g !== null) shared.unref(g.fd);
  }
}

/**
 * Does the resume position still describe this file? Same inode (when known), long enough, and the
 * line that ends at the offset has the recorded CRC (or, when its length is unknown, at least a
 * newline just before the offset).
 */
async function resumeMatches(g: Generation, after: number, verify: SubscribeOptions['verify'], buf: Buffer): Promise<boolean> {
  if (verify !== undefined && verify.ino === 0) return after === 0;
  if (verify !== undefined && verify.ino !== g.ino) return false;
  const size = await fstatSize(g.fd.fd);
  if (after > size) return false;
  if (after === 0) return true;
  const len = verify?.len ?? 0;
  if (len === 0) {
    const n = await readAt(g.fd.fd, buf, 1, after - 1);
    return n === 1 && buf[0] === 0x0a;
  }
  if (len > after) return false;
  let crc = 0;
  let lastByte = -1;
  for (let p = after - len; p < after;) {
    const n = await readAt(g.fd.fd, buf, Math.min(buf.length, after - p), p);
    if (n === 0) return false;
    crc = crc32(buf.subarray(0, n), crc);
    lastByte = buf[n - 1]!;
    p += n;
  }
  return crc === verify!.crc && lastByte === 0x0a;
}
