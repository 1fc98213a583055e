/**
 * `svc backup FILE` (contract §13), the same whether the daemon runs (through the admin socket) or not
 * (the CLI opens the store read-only): a consistent copy written next to FILE under a temporary name
 * and renamed into place, so FILE is either the whole backup or absent — never half a file.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { RuntimeError } from '../core/errors.js';
import type { Store } from '../store/store.js';

export interface BackupResult {
  path: string;
  bytes: number;
}

/** Where a backup may go: an absolute path in an existing directory, not the store itself, not over a file without force. */
export function checkBackupTarget(path: string, opts: { force: boolean; storePath: string | null }): void {
  if (!isAbsolute(path)) throw new RuntimeError('EBACKUP_PATH', `backup path must be absolute: ${path}`);
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new RuntimeError('EBACKUP_PATH', `no such directory: ${dir}`);
  if (opts.storePath !== null) {
    // Compared through real paths: a symbolic link in either path must not hide that they are one file.
    const store = realPath(opts.storePath);
    if ([store, `${store}-wal`, `${store}-shm`].includes(join(realpathSync(dir), basename(path)))) {
      throw new RuntimeError('EBACKUP_PATH', `refusing to write a backup over the store itself (${path})`);
    }
  }
  if (existsSync(path)) {
    if (!opts.force) throw new RuntimeError('EBACKUP_EXISTS', `${path} exists; use --force to replace it`);
    if (!statSync(path).isFile()) throw new RuntimeError('EBACKUP_PATH', `${path} exists and is not a file`);
  }
}

/** `path` with its directory's symbolic links resolved (the file itself need not exist). */
function realPath(path: string): string {
  const full = resolve(path);
  try {
    return join(realpathSync(dirname(full)), basename(full));
  } catch {
    return full;
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
