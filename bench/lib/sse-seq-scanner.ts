/**
 * What a cheap /logs client of the fan-out bench learns from each read of its socket, without
 * decoding frames: the `seq` of the last log frame completed so far, and the `event: system` frames
 * completed (a `dropped` notice; a keep-alive comment is not one). The bench's lines end `"seq":<n>,"t":<time>}`, so
 * the last `"seq":` before the last frame end (`\n\n`) names the newest complete line; every line
 * before it arrived no later (one stream, in order, and a drop would show as a system frame).
 *
 * Reads can cut anywhere (in a frame, in its `seq`, between the two newlines of its end): the caller
 * keeps the last CARRY_BYTES of the previous read in front of the new bytes, and a match counts only
 * when it ends in the new bytes. HTTP chunk framing (`\r\n<size>\r\n`) sits between frames and never
 * holds `\n\n`. Native searches only (Buffer.lastIndexOf / indexOf), no allocation per read.
 */

/** Kept from a read for the next: covers the longest tail from `"seq":` to the frame's end (≈40 bytes). */
export const CARRY_BYTES = 128;

const FRAME_END = Buffer.from('\n\n');
const SEQ_KEY = Buffer.from('"seq":');
const SYSTEM = Buffer.from('event: system\n'); // shorter than SENTINEL_BYTES
const COUNT_KEY = Buffer.from('"count":');

/**
 * `buf[from - CARRY_BYTES, from)` is the carry, `buf[from, end)` the new bytes. Returns the `seq` of
 * the last log frame whose end lies in the new bytes, or null when none ends there.
 */
export function lastCompletedSeq(buf: Buffer, from: number, end: number): number | null {
  const frameEnd = buf.lastIndexOf(FRAME_END, end - FRAME_END.length);
  if (frameEnd + FRAME_END.length <= from || frameEnd < 0) return null; // no frame ends in the new bytes
  const key = buf.lastIndexOf(SEQ_KEY, frameEnd);
  if (key < 0 || key < from - CARRY_BYTES) return null; // the last frame ended was not a log line
  return readInt(buf, key + SEQ_KEY.length, frameEnd);
}

/** Room the caller leaves after the new bytes for hasSystemFrame's sentinel. */
export const SENTINEL_BYTES = 16;

/**
 * Whether the carry or the new bytes hold the start of an `event: system` frame. A forward search
 * (Boyer-Moore-Horspool, fast) that would run on into stale bytes past `end` is stopped by a copy of
 * the needle written at `end`: `buf` must have SENTINEL_BYTES of room there.
 */
export function hasSystemFrame(buf: Buffer, from: number, end: number): boolean {
  SYSTEM.copy(buf, end);
  return buf.indexOf(SYSTEM, Math.max(0, from - CARRY_BYTES)) < end;
}

/**
 * `event: system` frames that end in the new bytes (each is counted by the read that completes it)
 * and the sum of the `count` of `dropped` ones. Rare (after hasSystemFrame): allocates.
 */
export function systemFrames(buf: Buffer, from: number, end: number): { frames: number; dropped: number } {
  const bytes = buf.subarray(0, end);
  let frames = 0;
  let dropped = 0;
  for (let e = bytes.indexOf(FRAME_END, Math.max(0, from - 1)); e !== -1; e = bytes.indexOf(FRAME_END, e + FRAME_END.length)) {
    const before = bytes.lastIndexOf(FRAME_END, e - 1);
    const head = bytes.indexOf(SYSTEM, before === -1 ? 0 : before + FRAME_END.length);
    if (head === -1 || head > e) continue;
    frames += 1;
    const count = bytes.indexOf(COUNT_KEY, head);
    if (count !== -1 && count < e) dropped += readInt(bytes, count + COUNT_KEY.length, e) ?? 0;
  }
  return { frames, dropped };
}

/** The decimal integer (optionally negative) at `at`, or null when none starts there before `limit`. */
function readInt(buf: Buffer, at: number, limit: number): number | null {
  let i = at;
  const negative = buf[i] === 0x2d;
  if (negative) i += 1;
  let n = 0;
  const first = i;
  for (; i < limit; i++) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) break;
    n = n * 10 + d;
  }
  if (i === first) return null;
  return negative ? -n : n;
}
