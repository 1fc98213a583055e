/**
 * Local secret store: `${secret:<path>}` reads `$SVC_HOME/secrets/<path>` (contract §1). Files are
 * 0600 in 0700 directories; values are trimmed so a trailing newline from `echo` never becomes part of
 * an HMAC key. Reading refuses what the store never writes (contract §11.7): a symbolic link (the file
 * or a directory the path names below `secrets/`), a file with any permission bit for group or others,
 * anything but a regular file, and a file over 64 KiB.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { homePaths } from './paths.js';
import { MAX_REFERENCED_FILE_BYTES, readBoundedFile } from './read-bounded.js';
import type { BoundedRead } from './read-bounded.js';

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MAX_PATH_LENGTH = 256;

/**
 * Throws UsageError unless `p` is a relative path of plain segments (`[A-Za-z0-9._-]+`, no `.` or `..`),
 * at most 256 characters: a secret path can never name a file outside `$SVC_HOME/secrets`.
 */
export function validateSecretPath(p: string): void {
  const shown = JSON.stringify(p.length > 80 ? `${p.slice(0, 80)}…` : p);
  const bad = (why: string): never => {
    throw new UsageError(`invalid secret path ${shown}: ${why}`);
  };
  if (p.length === 0) bad('must not be empty');
  if (p.length > MAX_PATH_LENGTH) bad(`must be at most ${MAX_PATH_LENGTH} characters`);
  if (p.startsWith('/')) bad('must be relative to $SVC_HOME/secrets');
  for (const segment of p.split('/')) {
    if (segment === '') bad('must not contain empty segments');
    if (segment === '.' || segment === '..') bad('must not contain "." or ".." segments');
    if (!SEGMENT.test(segment)) bad('segments may contain only letters, digits, ".", "_" and "-"');
  }
}

function secretFile(home: string, path: string): string {
  validateSecretPath(path);
  return join(homePaths(home).secrets, ...path.split('/'));
}

/**
 * Stores `value` (trimmed) at `$SVC_HOME/secrets/<path>` with mode 0600. Written to a temporary file
 * and renamed, so a reader never sees a half-written key and a crash never leaves an empty one.
 */
export function writeSecret(home: string, path: string, value: string): void {
  const file = secretFile(home, path);
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new UsageError(`secret ${JSON.stringify(path)}: value must not be empty`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  // 'wx' + 0600 at creation: the value is never readable by others, not even between open and chmod.
  const fd = openSync(tmp, 'wx', 0o600);
  let open = true;
  try {
    writeSync(fd, trimmed);
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    renameSync(tmp, file);
  } catch (err) {
    if (open) closeSync(fd);
    try { unlinkSync(tmp); } catch { /* nothing to clean up */ }
    throw err;
  }
}

/**
 * The trimmed value at `$SVC_HOME/secrets/<path>`, or why it cannot be had: `not-found`, `symlink`
 * (the file, or a directory the path names below `secrets/`), `group-or-other-access` (`mode & 0o077`
 * is not 0: only 0600 and 0400 and the like pass), `not-regular`, `too-large` (over 64 KiB), `error`.
 * Never throws for a file-system reason, and no result carries anything of a refused file.
 */
export function readSecret(home: string, path: string): BoundedRead {
  const file = secretFile(home, path);
  // O_NOFOLLOW covers only the last component: the directories in between are checked here.
  let dir = homePaths(home).secrets;
  for (const segment of path.split('/').slice(0, -1)) {
    dir = join(dir, segment);
    try {
      if (lstatSync(dir).isSymbolicLink()) return { ok: false, reason: 'symlink' };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
      if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'not-found' };
      return { ok: false, reason: 'error', code };
    }
  }
  const read = readBoundedFile(file, { maxBytes: MAX_REFERENCED_FILE_BYTES, privateFile: true });
  return read.ok ? { ok: true, text: read.text.trim() } : read;
}

export function secretExists(home: string, path: string): boolean {
  const file = secretFile(home, path);
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
