/**
 * `$SVC_HOME/checkpoints.jsonl`: one checkpoint per line, appended and fsynced before the daemon
 * records it anywhere else, so a checkpoint the store or a SIEM has is on this disk too. A crash in
 * the middle of a write can leave a last line without its newline: readers skip that torn tail
 * (reported, not an error); any other line that is not a checkpoint is an error naming the line.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Checkpoint } from './checkpoint.js';
import { parseCheckpoint } from './checkpoint.js';

export const CHECKPOINTS_FILE = 'checkpoints.jsonl';

/** Appends one line and fsyncs it (the file created 0600); off the event loop's thread. */
export async function appendCheckpointLine(path: string, cp: Checkpoint): Promise<void> {
  const file = await open(path, 'a', 0o600);
  try {
    await file.write(`${JSON.stringify(cp)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * Cuts a torn last line (a crash mid-write) off the file, so the next append starts a line of its
 * own. That line was never recorded anywhere else: the store row and the SIEM copy come after the
 * fsync. Returns whether something was cut. A missing file is fine.
 */
export function repairCheckpointFile(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    // Read backwards in small blocks to the last newline.
    const block = Buffer.alloc(4096);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = readSync(fd, block, 0, end - start, start);
      const nl = block.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep === size) return false;
        ftruncateSync(fd, keep);
        fsyncSync(fd);
        return true;
      }
      end = start;
    }
    ftruncateSync(fd, 0);
    fsyncSync(fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

export interface CheckpointLine {
  /** 1-based line number in the file. */
  line: number;
  checkpoint: Checkpoint;
}

export type CheckpointFileRead =
  | { ok: true; checkpoints: CheckpointLine[]; tornTail: boolean }
  | { ok: false; line: number; error: string };

/** Parses the file's text; the first malformed line (other than a torn last one) is the error. */
export function parseCheckpointFile(text: string): CheckpointFileRead {
  const lines = text.split('\n');
  const endsClean = text === '' || text.endsWith('\n');
  if (endsClean) lines.pop();
  const checkpoints: CheckpointLine[] = [];
  let tornTail = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const last = i === lines.length - 1;
    if (raw.trim() === '') {
      if (last && !endsClean) continue;
      return { ok: false, line: i + 1, error: 'empty line' };
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      if (last && !endsClean) {
        tornTail = true;
        continue;
      }
      return { ok: false, line: i + 1, error: 'not JSON' };
    }
    const parsed = parseCheckpoint(value);
    if (!parsed.ok) return { ok: false, line: i + 1, error: parsed.error };
    checkpoints.push({ line: i + 1, checkpoint: parsed.checkpoint });
  }
  return { ok: true, checkpoints, tornTail };
}

export function readCheckpointFile(path: string): CheckpointFileRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return { ok: false, line: 0, error: `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  return parseCheckpointFile(text);
}

/** Bytes read from the end of the file to find its newest checkpoint (a line is ~250 bytes). */
const TAIL_BYTES = 64 * 1024;

/**
 * The newest checkpoint of the file — its last line that is one, a torn or malformed tail skipped —
 * read from the file's last 64 KiB only, so the daemon can look before every signing at no cost that
 * grows with the file. Null when the file is absent or holds none there.
 */
export function readNewestCheckpoint(path: string): Checkpoint | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let text: string;
  let fromStart: boolean;
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - TAIL_BYTES);
    fromStart = start === 0;
    const buffer = Buffer.alloc(size - start);
    const n = readSync(fd, buffer, 0, buffer.length, start);
    text = buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const lines = text.split('\n');
  // A read that began mid-file: its first piece is the end of a line, not one.
  for (let i = lines.length - 1; i >= (fromStart ? 0 : 1); i--) {
    const raw = lines[i] as string;
    if (raw.trim() === '') continue;
    try {
      const parsed = parseCheckpoint(JSON.parse(raw));
      if (parsed.ok) return parsed.checkpoint;
    } catch {
      // not JSON: a torn tail, or something else; an older line may be a checkpoint
    }
  }
  return null;
}
