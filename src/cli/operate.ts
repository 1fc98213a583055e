/**
 * The commands that change a daemon or its store (contract §13): `svc dlq replay`, `svc backup`, and
 * the offline `svc audit --verify --db FILE`. Changes go through the running daemon's admin socket;
 * nothing here speaks HTTP.
 */
import { resolve } from 'node:path';
import { homePaths, svcHome } from '../config/paths.js';
import { resolveStore } from '../config/store.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import type { AdminRequest, AdminResponse } from '../daemon/admin-protocol.js';
import { backupStore } from '../daemon/backup.js';
import { openStore } from '../store/open-store.js';
import { adminRequest } from './admin-client.js';
import type { CliContext } from './context.js';
import { runningPid } from './daemon-files.js';
import { findByPrefix, isIdPrefix, isWholeId, pickOne } from './id-prefix.js';
import { ownTarget } from './own-home.js';
import { verifyLine } from './views.js';

const REPLAY_TIMEOUT_MS = 60_000;
/** A backup of a large store takes a while; the daemon stays responsive meanwhile. */
const BACKUP_TIMEOUT_MS = 60 * 60_000;

/** The daemon's answer, or its refusal as an error that names the command (`svc backup: …`). */
function unwrap<T extends AdminResponse>(response: AdminResponse, command: string): Extract<T, { ok: true }> {
  if (!response.ok) throw new RuntimeError('EADMIN', `${command}: ${response.error}`);
  return response as Extract<T, { ok: true }>;
}

/** Ids a line names before it says how many more there are. */
const IDS_PER_LINE = 20;

/** `: a, b, c` — at most IDS_PER_LINE of `ids`, then ` and N more` for the rest of `count`. */
function idList(ids: readonly string[], count: number): string {
  if (count === 0) return '';
  const shown = ids.slice(0, IDS_PER_LINE);
  return `: ${shown.join(', ')}${count > shown.length ? ` and ${count - shown.length} more` : ''}`;
}

export interface ReplayOptions {
  all?: boolean;
  source?: string;
  reason?: string;
  json?: boolean;
}

export async function dlqReplayCommand(ids: string[], opts: ReplayOptions, ctx: CliContext): Promise<number> {
  if (ids.length > 0 && opts.all) throw new UsageError('svc dlq replay: name dead-letter ids or --all, not both');
  if (ids.length === 0 && !opts.all) throw new UsageError('svc dlq replay: name dead-letter ids, or --all (with --source and --reason to narrow it)');
  if (ids.length > 0 && (opts.source !== undefined || opts.reason !== undefined)) {
    throw new UsageError('svc dlq replay: --source and --reason narrow --all; they do not apply to ids');
  }
  const paths = homePaths(svcHome(ctx.env));
  const whole = await wholeIds(ids, ctx);
  const request: AdminRequest = whole.length > 0
    ? { op: 'dlq.replay', ids: whole }
    : { op: 'dlq.replay', all: true, ...(opts.source !== undefined ? { source: opts.source } : {}), ...(opts.reason !== undefined ? { reason: opts.reason } : {}) };
  const response = await adminRequest(paths.adminSocket, request, { clock: ctx.clock, timeoutMs: REPLAY_TIMEOUT_MS });
  if (response === null) throw new RuntimeError('ENOTRUNNING', 'svc dlq replay: svc is not running; replay goes through the running daemon (svc up)');
  const { replayed, missing, replayedCount, missingCount } = unwrap<Extract<AdminResponse, { op: 'dlq.replay' }>>(response, 'svc dlq replay');
  if (opts.json) {
    // The lists hold the first ids (at most 1,000 each); the counts are of all of them.
    ctx.stdout(`${JSON.stringify({ replayed, missing, replayedCount, missingCount })}\n`);
  } else {
    ctx.stdout(`svc dlq replay: replayed ${replayedCount} dead letter(s)${idList(replayed, replayedCount)}\n`);
    if (missingCount > 0) ctx.stderr(`svc dlq replay: not found (or already replayed): ${idList(missing, missingCount).slice(2)}\n`);
  }
  return missingCount > 0 ? 1 : 0;
}

/**
 * Each id as typed, a prefix resolved to the one dead letter that has it (id-prefix.ts) through this
 * home's control plane; whole ids, and words that cannot start an id, go to the admin socket as they
 * are (it says which are not found: exit 1, as for any unknown id).
 */
async function wholeIds(ids: readonly string[], ctx: CliContext): Promise<string[]> {
  const lookedUp = (id: string): boolean => !isWholeId(id) && isIdPrefix(id);
  if (!ids.some(lookedUp)) return [...ids];
  const target = await ownTarget(ctx, {});
  const out: string[] = [];
  for (const id of ids) {
    if (!lookedUp(id)) out.push(id);
    else out.push(pickOne('svc dlq replay', 'dead-letter', id, await findByPrefix<{ id: string }>(target, 'svc dlq replay', '/dlq', id)).id);
  }
  return out;
}

export async function backupCommand(file: string, opts: { force?: boolean; json?: boolean }, ctx: CliContext): Promise<number> {
  const home = svcHome(ctx.env);
  const paths = homePaths(home);
  const path = resolve(ctx.cwd, file);
  const force = opts.force === true;
  let result: { path: string; bytes: number };
  let how: 'online' | 'offline';
  const response = await adminRequest(paths.adminSocket, { op: 'backup', path, force }, { clock: ctx.clock, timeoutMs: BACKUP_TIMEOUT_MS });
  if (response !== null) {
    result = unwrap<Extract<AdminResponse, { op: 'backup' }>>(response, 'svc backup');
    how = 'online';
  } else {
    const pid = runningPid(paths.pidFile);
    if (pid !== null) throw new RuntimeError('EADMIN_SOCKET', `svc backup: svc runs (pid ${pid}) but its admin socket ${paths.adminSocket} does not answer`);
    // No daemon: the store is opened read-only here (nothing migrates, nothing is written to it).
    const store = await openStore(resolveStore(undefined, paths.db), { clock: ctx.clock, readOnly: true });
    try {
      result = await backupStore(store, path, { force, storePath: paths.db }).catch((err: unknown) => {
        throw err instanceof RuntimeError ? new RuntimeError(err.code, `svc backup: ${err.message}`) : err;
      });
    } finally {
      await store.close();
    }
    how = 'offline';
  }
  if (opts.json) ctx.stdout(`${JSON.stringify({ ...result, daemon: how === 'online' })}\n`);
  else ctx.stdout(`svc backup: wrote ${result.bytes} bytes to ${result.path} (${how === 'online' ? 'from the running daemon' : 'svc is not running'}); check it with: svc audit --verify --db ${result.path}\n`);
  return 0;
}

/** `svc audit --verify --db FILE`: the chain of a store file, verified without changing the file. */
export async function auditVerifyFileCommand(file: string, opts: { json?: boolean }, ctx: CliContext): Promise<number> {
  const path = resolve(ctx.cwd, file);
  const store = await openStore({ kind: 'sqlite', path, leaseMs: 60_000, retention: { eventsMs: null, deadLettersMs: null } }, { clock: ctx.clock, readOnly: true });
  let verify;
  try {
    verify = await store.verifyAudit();
  } finally {
    await store.close();
  }
  ctx.stdout(opts.json ? `${JSON.stringify({ file: path, verify })}\n` : `${path}: ${verifyLine(verify)}\n`);
  return verify.ok ? 0 : 1;
}
