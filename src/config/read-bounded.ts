/**
 * Bounded reads of the files configuration points at (contract §11.7): YAML files, skill files,
 * `${file:…}` and `${secret:…}` references. Whatever the path names, reading it can neither block nor
 * take more than `maxBytes` of memory:
 *
 * - the file is opened with O_NONBLOCK (and O_NOCTTY): opening a FIFO that has no writer returns at
 *   once instead of waiting for one;
 * - the type and size come from fstat of the OPEN descriptor, so a swap between a check and the open
 *   changes nothing: anything but a regular file (FIFO, socket, device such as /dev/zero, directory)
 *   is refused before a byte is read, and so is a file whose size is over the cap;
 * - at most `maxBytes + 1` bytes are read, so a file that grows after fstat (or one whose size fstat
 *   does not know, like /proc files) is still refused rather than read whole;
 * - `privateFile` (secrets) opens with O_NOFOLLOW and refuses a symbolic link, and refuses a file
 *   with any permission bit for group or others (`mode & 0o077`), as OpenSSH does for private keys.
 *
 * Results carry reasons, never content: the caller words the error, which must not quote the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export const KiB = 1024;
export const MiB = 1024 * KiB;

/** A YAML configuration file or a skill file. */
export const MAX_CONFIG_FILE_BYTES = MiB;
/** What one `${file:…}` or `${secret:…}` reference may read. */
export const MAX_REFERENCED_FILE_BYTES = 64 * KiB;

export interface BoundedReadOptions {
  maxBytes: number;
  /** Secrets: no symbolic link as the last component, no permission bit for group or others. */
  privateFile?: boolean;
}

export type BoundedRead =
  | { ok: true; text: string }
  | { ok: false; reason: 'not-found' }
  | { ok: false; reason: 'symlink' }
  | { ok: false; reason: 'not-regular'; kind: string }
  | { ok: false; reason: 'too-large'; maxBytes: number; size: number | null }
  | { ok: false; reason: 'group-or-other-access'; mode: number }
  | { ok: false; reason: 'error'; code: string };

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Reads `path` as UTF-8 within the bounds above; never throws for a file-system reason. */
export function readBoundedFile(path: string, opts: BoundedReadOptions): BoundedRead {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS | (opts.privateFile ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    // ENOTDIR: a parent component is a file, so this path cannot exist either.
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'not-found' };
    // O_NOFOLLOW on a symbolic link: ELOOP (Linux), EMLINK (FreeBSD), EFTYPE (NetBSD).
    if (opts.privateFile && (code === 'ELOOP' || code === 'EMLINK' || code === 'EFTYPE')) return { ok: false, reason: 'symlink' };
    return { ok: false, reason: 'error', code };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, reason: 'not-regular', kind: fileKind(st) };
    if (opts.privateFile && (st.mode & 0o077) !== 0) return { ok: false, reason: 'group-or-other-access', mode: st.mode & 0o7777 };
    if (st.size > opts.maxBytes) return { ok: false, reason: 'too-large', maxBytes: opts.maxBytes, size: st.size };
    // One byte more than the cap: reading it proves the file is over the cap, whatever fstat said
    // (a file that grew since, or a /proc file whose size is 0).
    const buf = Buffer.allocUnsafe(opts.maxBytes + 1);
    let length = 0;
    while (length < buf.length) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > opts.maxBytes) return { ok: false, reason: 'too-large', maxBytes: opts.maxBytes, size: null };
    return { ok: true, text: buf.toString('utf8', 0, length) };
  } catch (err) {
    return { ok: false, reason: 'error', code: (err as NodeJS.ErrnoException).code ?? 'unknown error' };
  } finally {
    closeSync(fd);
  }
}

function fileKind(st: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** `1048576` → `1 MiB`, `65536` → `64 KiB`: how limits are written in messages. */
export function sizeText(bytes: number): string {
  if (bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}

/** The reason of a failed read in words (`is a FIFO`, `is larger than 1 MiB`…), for `<what> <reason>` messages. */
export function readFailureText(r: Exclude<BoundedRead, { ok: true }>): string {
  switch (r.reason) {
    case 'not-found': return 'does not exist';
    case 'symlink': return 'is a symbolic link';
    case 'not-regular': return `is ${r.kind}, not a regular file`;
    case 'too-large': return `is larger than ${sizeText(r.maxBytes)}${r.size !== null ? ` (${r.size} bytes)` : ''}`;
    case 'group-or-other-access': return `is accessible by group or others (mode ${r.mode.toString(8).padStart(4, '0')}; chmod 600 it)`;
    case 'error': return `cannot be read (${r.code})`;
  }
}
