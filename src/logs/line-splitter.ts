/**
 * Cuts a byte stream into newline-terminated lines. Bytes are kept until their newline arrives and a
 * line is decoded only when complete, so a multi-byte UTF-8 character split across two reads
 * survives (0x0A never occurs inside a multi-byte sequence). A line longer than `maxLineBytes` is not
 * kept: its bytes are skipped (CRC still computed) and it comes out as one `tooLong` line, so the
 * memory of a splitter is bounded whatever the file holds.
 */
import { crc32 } from 'node:zlib';
import type { TailLine } from './tail-types.js';

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

export interface LineSplitter {
  /** Offset of the next byte to feed. */
  readonly pos: number;
  /** Offset just after the last complete line: where the incomplete line being held starts. */
  readonly lineEnd: number;
  /** `chunk` holds the bytes at [pos, pos + chunk.length); it may be reused by the caller afterwards. */
  feed(chunk: Buffer, ino: number, out: TailLine[]): void;
}

/**
 * @param pos offset of the first byte that will be fed (a line start)
 * @param skipFirst the bytes up to the first newline belong to a line whose start is unknown: drop them silently
 */
export function createLineSplitter(pos: number, opts: { maxLineBytes?: number; skipFirst?: boolean } = {}): LineSplitter {
  const maxLine = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let next = pos;
  let parts: Buffer[] = [];
  let partLen = 0;
  let partStart = pos;
  /** An over-long line in progress: where it started, its running CRC, and whether to report it. */
  let skip: { start: number; crc: number; silent: boolean } | null = opts.skipFirst === true ? { start: pos, crc: 0, silent: true } : null;

  function hold(bytes: Buffer, at: number): void {
    if (skip !== null) { skip.crc = crc32(bytes, skip.crc); return; }
    if (partLen === 0) partStart = at;
    if (partLen + bytes.length > maxLine) {
      let crc = 0;
      for (const p of parts) crc = crc32(p, crc);
      skip = { start: partStart, crc: crc32(bytes, crc), silent: false };
      parts = [];
      partLen = 0;
      return;
    }
    parts.push(Buffer.from(bytes)); // a copy: the caller reuses its read buffer
    partLen += bytes.length;
  }

  return {
    get pos() { return next; },
    get lineEnd() { return skip !== null ? skip.start : next - partLen; },
    feed(chunk, ino, out) {
      const base = next;
      let i = 0;
      for (;;) {
        const nl = chunk.indexOf(NEWLINE, i);
        if (nl === -1) break;
        const end = base + nl + 1;
        const piece = chunk.subarray(i, nl + 1);
        if (skip !== null) {
          const crc = crc32(piece, skip.crc);
          if (!skip.silent) out.push({ text: '', start: skip.start, end, ino, crc, tooLong: true });
          skip = null;
        } else if (partLen === 0) {
          out.push({ text: chunk.toString('utf8', i, nl), start: base + i, end, ino, crc: crc32(piece), tooLong: false });
        } else {
          const whole = Buffer.concat([...parts, piece], partLen + piece.length);
          parts = [];
          partLen = 0;
          const tooLong = whole.length > maxLine;
          out.push({ text: tooLong ? '' : whole.toString('utf8', 0, whole.length - 1), start: partStart, end, ino, crc: crc32(whole), tooLong });
        }
        i = nl + 1;
      }
      if (i < chunk.length) hold(chunk.subarray(i), base + i);
      next = base + chunk.length;
    },
  };
}
