/**
 * The few file-system calls the tailer makes, as promises over numeric descriptors (no FileHandle:
 * the tailer owns the descriptor's lifetime explicitly and closes it when its last user lets go).
 */
import { close, constants, fstat, lstat, open, read } from 'node:fs';

/** Why a log path cannot be tailed; never shown to a client as is (the route says "tailer-error"). */
export class TailFileError extends Error {
  constructor(readonly code: 'symlink' | 'not-regular' | 'hard-linked' | 'io', message: string) {
    super(message);
    this.name = 'TailFileError';
  }
}

export type OpenResult =
  | { ok: true; fd: number; ino: number; size: number }
  | { ok: false; missing: true }
  | { ok: false; missing: false; error: TailFileError };

/**
 * Opens a log file for reading, refusing anything but a plain regular file: O_NOFOLLOW so a symlink
 * at the path is never followed (ELOOP), O_NONBLOCK so a FIFO cannot hang the open, then fstat on
 * the descriptor itself (no check-then-open race): a regular file with exactly one link, so a hard
 * link to another file (a secret) is not served either.
 */
export function openLogFile(path: string): Promise<OpenResult> {
  return new Promise((resolve) => {
    open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK, (err, fd) => {
      if (err !== null) {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') { resolve({ ok: false, missing: true }); return; }
        const error = err.code === 'ELOOP'
          ? new TailFileError('symlink', 'log path is a symbolic link')
          : new TailFileError('io', `cannot open log file (${err.code ?? 'error'})`);
        resolve({ ok: false, missing: false, error });
        return;
      }
      fstat(fd, (serr, st) => {
        let error: TailFileError | null = null;
        if (serr !== null) error = new TailFileError('io', `cannot stat log file (${serr.code ?? 'error'})`);
        else if (!st.isFile()) error = new TailFileError('not-regular', 'log path is not a regular file');
        else if (st.nlink !== 1) error = new TailFileError('hard-linked', 'log file has more than one link');
        if (error !== null) { close(fd, () => resolve({ ok: false, missing: false, error })); return; }
        resolve({ ok: true, fd, ino: st.ino, size: st.size });
      });
    });
  });
}

export function fstatSize(fd: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fstat(fd, (err, st) => { if (err !== null) reject(err); else resolve(st.size); });
  });
}

/** The inode now at `path` without following a symlink; null when nothing is there. */
export function lstatIno(path: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    lstat(path, (err, st) => {
      if (err === null) resolve(st.ino);
      else if (err.code === 'ENOENT' || err.code === 'ENOTDIR') resolve(null);
      else reject(err);
    });
  });
}

/** Positional read: does not move the descriptor's offset, so several readers may share it. */
export function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buf, 0, length, position, (err, n) => { if (err !== null) reject(err); else resolve(n); });
  });
}

export function closeFd(fd: number): void {
  close(fd, () => { /* nothing useful to do with a close error on a read-only descriptor */ });
}
