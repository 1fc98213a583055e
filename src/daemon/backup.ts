/**
 * `svc backup FILE` (contract §13), the same whether the daemon runs (through the admin socket) or not
 * (the CLI opens the store read-only): a consistent copy written next to FILE under a temporary name
 * and renamed into place, so FILE is either the whole backup or absent — never half a file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { RuntimeError } from '../core/errors.js';
import type { Store } from '../store/store.js';

export interface BackupResult {
  path: string;
  bytes: number;
}

/** SQLite's files beside a store: its WAL and shared memory, and the rollback journal it deletes on open. */
const STORE_SIDE_FILES = ['-wal', '-shm', '-journal'];

/**
 * Where a backup may go: an absolute path in an existing directory, not over a file without force,
 * and never the store or one of SQLite's files beside it — the next start would treat a backup named
 * `svc.db-journal` as a journal and delete it. Compared by real path (every symbolic link resolved,
 * the store's too) and, for a file that exists, by device and inode (a hard link is the same file).
 */
export function checkBackupTarget(path: string, opts: { force: boolean; storePath: string | null }): void {
  if (!isAbsolute(path)) throw new RuntimeError('EBACKUP_PATH', `backup path must be absolute: ${path}`);
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new RuntimeError('EBACKUP_PATH', `no such directory: ${dir}`);
  if (opts.storePath !== null) {
    const store = realPath(opts.storePath);
    const storeFiles = [store, ...STORE_SIDE_FILES.map((s) => `${store}${s}`)];
    const target = realPath(path);
    const sameFile = (a: string, b: string): boolean => {
      try {
        const [x, y] = [statSync(a), statSync(b)];
        return x.dev === y.dev && x.ino === y.ino;
      } catch {
        return false;
      }
    };
    if (storeFiles.some((f) => f === target || sameFile(f, target))) {
      throw new RuntimeError('EBACKUP_PATH', `refusing to write a backup over the store itself or a file SQLite keeps beside it (${path} is ${target}; the store is ${store})`);
    }
  }
  if (existsSync(path)) {
    if (!opts.force) throw new RuntimeError('EBACKUP_EXISTS', `${path} exists; use --force to replace it`);
    if (!statSync(path).isFile()) throw new RuntimeError('EBACKUP_PATH', `${path} exists and is not a file`);
  }
}

/**
 * `path` with every symbolic link resolved, the file's own included; a file that does not exist,
 * through its directory (and a link to a file that does not exist, through the link: it names that file).
 */
function realPath(path: string, depth = 0): string {
  const full = resolve(path);
  try {
    return realpathSync(full);
  } catch {
    if (depth < 8 && lstatSafe(full)?.isSymbolicLink()) return realPath(resolve(dirname(full), readlinkSync(full)), depth + 1);
    try {
      return join(realpathSync(dirname(full)), basename(full));
    } catch {
      return full;
    }
  }
}

function lstatSafe(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

export async function backupStore(store: Store, path: string, opts: { force: boolean; storePath: string | null }): Promise<BackupResult> {
  checkBackupTarget(path, opts);
  const tmp = join(dirname(path), `.${basename(path)}.partial-${randomBytes(4).toString('hex')}`);
  try {
    // Created here, new (never through a planted link) and private like the store: the copy holds
    // every payload and the audit chain, whatever the umask of the process that asked for it.
    closeSync(openSync(tmp, 'wx', 0o600));
    const { bytes } = await store.backup(tmp);
    // Checked again: another backup may have taken the name while this one ran.
    if (existsSync(path) && !opts.force) throw new RuntimeError('EBACKUP_EXISTS', `${path} exists; use --force to replace it`);
    renameSync(tmp, path);
    return { path, bytes };
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
}
