/**
 * Where a tail "from the end of the file" starts: just after the last newline, so that a line being
 * written at that moment is delivered whole once complete, never as a fragment.
 */
import { crc32 } from 'node:zlib';
import { readAt } from './tail-fs.js';

export interface Aligned {
  /** Offset just after the last newline (0 when the file has none yet). */
  lineEnd: number;
  /** The bytes of the incomplete last line, [lineEnd, size); a view of the caller's buffer. */
  tail: Buffer;
  /** The last complete line, when it fits the window: it identifies the start position for a resume. */
  lastLine: { start: number; end: number; crc: number } | null;
  /** No newline in the last `buf.length` bytes: start at `size` and drop the rest of that line. */
  skipFirst: boolean;
}

/** Reads at most `buf.length` bytes from the end of the file. */
export async function alignToLineEnd(fd: number, size: number, buf: Buffer): Promise<Aligned> {
  const w = Math.min(size, buf.length);
  const from = size - w;
  let got = 0;
  while (got < w) {
    const n = await readAt(fd, buf.subarray(got), w - got, from + got);
    if (n === 0) break;
    got += n;
  }
  const win = buf.subarray(0, got);
  const k = win.lastIndexOf(0x0a);
  if (k === -1) {
    if (from === 0) return { lineEnd: 0, tail: win, lastLine: null, skipFirst: false };
    return { lineEnd: from + got, tail: win.subarray(got), lastLine: null, skipFirst: true };
  }
  const lineEnd = from + k + 1;
  const j = k === 0 ? -1 : win.lastIndexOf(0x0a, k - 1);
  let lastLine: Aligned['lastLine'] = null;
  if (j !== -1) lastLine = { start: from + j + 1, end: lineEnd, crc: crc32(win.subarray(j + 1, k + 1)) };
  else if (from === 0) lastLine = { start: 0, end: lineEnd, crc: crc32(win.subarray(0, k + 1)) };
  return { lineEnd, tail: win.subarray(k + 1), lastLine, skipFirst: false };
}
