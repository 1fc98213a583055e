/**
 * What a cheap /logs client of the fan-out bench learns from each read of its socket, without
 * decoding frames: the `seq` of the last log frame completed so far. The bench's lines end
 * `"seq":<n>,"t":<time>}`, so the last `"seq":` before the last frame end (`\n\n`) names the newest
 * complete line; every line before it arrived no later (one stream, in order; a drop notice instead
 * of lines makes the client's byte count fall short, which the bench checks).
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
