/**
 * The newest records of agents' log files, and where each file stands after them (contract §24.8: the
 * console's log view opens with the last 100 records, then follows /logs from there). Each file is
 * opened as the tailer opens it (tail-fs.ts: no symlink, no FIFO, one link) and only its last
 * MAX_TAIL_BYTES are read; the position after its last complete line is a TailPosition, so a stream
 * resumed from it (Last-Event-ID) continues with no gap and no duplicate.
 */
import { crc32 } from 'node:zlib';
import { closeFd, openLogFile, readAt } from './tail-fs.js';
import type { TailPosition } from './tail-types.js';

/** Bytes read from the end of each file: a hundred records of ordinary size, with room. */
export const MAX_TAIL_BYTES = 256 * 1024;

export interface LastRecord {
  agentId: string;
  /** The line as written (without its newline). */
  text: string;
  /** The record's `ts` in ms; NaN when it has none (it then sorts first). */
  tsMs: number;
}

export interface LastRecords {
  /** The newest `limit` records of all the files, oldest first. */
  records: LastRecord[];
  /** Where each file stands after its last complete line (ino 0: the file did not exist). */
  positions: Map<string, TailPosition>;
}

const ZERO: TailPosition = { ino: 0, end: 0, len: 0, crc: 0 };

function tsOf(text: string): number {
  try {
    const v = JSON.parse(text) as { ts?: unknown };
    return typeof v.ts === 'string' ? Date.parse(v.ts) : typeof v.ts === 'number' ? v.ts : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function tailOf(agentId: string, path: string, limit: number): Promise<{ records: LastRecord[]; position: TailPosition }> {
  const opened = await openLogFile(path);
  if (!opened.ok) return { records: [], position: ZERO };
  try {
    const start = Math.max(0, opened.size - MAX_TAIL_BYTES);
    const buf = Buffer.allocUnsafe(opened.size - start);
    let got = 0;
    while (got < buf.length) {
      const n = await readAt(opened.fd, buf, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    const bytes = buf.subarray(0, got);
    const lastNewline = bytes.lastIndexOf(0x0a);
    if (lastNewline < 0) return { records: [], position: { ino: opened.ino, end: start, len: 0, crc: 0 } };
    const end = start + lastNewline + 1;
    // Read from the middle of a file, the first line is a piece of one: dropped.
    const firstNewline = start === 0 ? -1 : bytes.indexOf(0x0a);
    const body = bytes.subarray(firstNewline + 1, lastNewline + 1);
    const lines = body.toString('utf8').split('\n').slice(0, -1);
    // The last line identifies the position (tail-types.ts); one that began before the bytes read is "not known" (len 0).
    const lastLine = body.length === 0 ? null : body.subarray(body.lastIndexOf(0x0a, body.length - 2) + 1);
    const position: TailPosition = lastLine === null ? { ino: opened.ino, end, len: 0, crc: 0 }
      : { ino: opened.ino, end, len: lastLine.length, crc: crc32(lastLine) >>> 0 };
    const records = lines.slice(-limit).filter((t) => t.trim() !== '').map((text) => ({ agentId, text, tsMs: tsOf(text) }));
    return { records, position };
  } finally {
    closeFd(opened.fd);
  }
}

export async function lastRecords(agents: readonly string[], logPath: (agentId: string) => string, limit: number): Promise<LastRecords> {
  const positions = new Map<string, TailPosition>();
  const all: LastRecord[] = [];
  for (const agentId of agents) {
    const tail = await tailOf(agentId, logPath(agentId), limit);
    positions.set(agentId, tail.position);
    all.push(...tail.records);
  }
  // A stable sort by time: within one file the order written, across files the order of their times.
  const keyed = all.map((r, i) => ({ r, i, t: Number.isNaN(r.tsMs) ? -Infinity : r.tsMs }));
  keyed.sort((a, b) => a.t - b.t || a.i - b.i);
  return { records: keyed.slice(-limit).map((k) => k.r), positions };
}
