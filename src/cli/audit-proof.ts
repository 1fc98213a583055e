/**
 * `svc audit key` and `svc audit --verify --checkpoints FILE --public-key FILE [--db FILE]`
 * (contract §20.2): the public half of the checkpoint key, and a store's chain checked against
 * signed checkpoints kept outside it. Without `--db` the local store `$SVC_HOME/svc.db` is read
 * (read-only, while the daemon runs or not).
 */
import { resolve } from 'node:path';
import { readCheckpointFile } from '../audit/checkpoint-file.js';
import { checkCheckpoints } from '../audit/check-checkpoints.js';
import { publicKeyPem } from '../audit/checkpoint.js';
import { CHECKPOINT_SECRET, homePaths, svcHome } from '../config/paths.js';
import { MAX_REFERENCED_FILE_BYTES, readBoundedFile, readFailureText } from '../config/read-bounded.js';
import { readSecret } from '../config/secrets.js';
import { ed25519PrivateKey, ed25519PublicKey } from '../core/ed25519-key.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { openStore } from '../store/open-store.js';
import type { CliContext } from './context.js';
import { verifyLine } from './views.js';

/** `svc audit key [--secret PATH]`: the public key (PEM) of the checkpoint key. */
export function auditKeyCommand(opts: { secret?: string }, ctx: CliContext): number {
  const path = opts.secret ?? CHECKPOINT_SECRET;
  const home = svcHome(ctx.env);
  const read = readSecret(home, path);
  if (!read.ok) {
    throw new RuntimeError('ENOKEY', `svc audit key: secret ${path} ${readFailureText(read)}; create one with \`svc init … --checkpoint-key\``);
  }
  let pem: string;
  try {
    pem = publicKeyPem(ed25519PrivateKey(read.text));
  } catch (err) {
    throw new RuntimeError('EBADKEY', `svc audit key: secret ${path} ${(err as Error).message}`);
  }
  ctx.stdout(pem);
  return 0;
}

export interface CheckpointVerifyOptions {
  db?: string;
  checkpoints: string;
  publicKey?: string;
  json?: boolean;
}

export async function auditVerifyCheckpointsCommand(opts: CheckpointVerifyOptions, ctx: CliContext): Promise<number> {
  if (opts.publicKey === undefined) throw new UsageError('svc audit: --checkpoints needs --public-key FILE (print it with `svc audit key`)');
  const keyPath = resolve(ctx.cwd, opts.publicKey);
  const keyRead = readBoundedFile(keyPath, { maxBytes: MAX_REFERENCED_FILE_BYTES });
  if (!keyRead.ok) throw new UsageError(`svc audit: public key ${keyPath} ${readFailureText(keyRead)}`);
  let publicKey;
  try {
    publicKey = ed25519PublicKey(keyRead.text);
  } catch (err) {
    throw new UsageError(`svc audit: public key ${keyPath} ${(err as Error).message}`);
  }
  const cpPath = resolve(ctx.cwd, opts.checkpoints);
  const file = readCheckpointFile(cpPath);
  if (!file.ok) {
    const where = file.line > 0 ? `${cpPath} line ${file.line}` : cpPath;
    const message = `${where}: ${file.error}; refused`;
    if (opts.json) ctx.stdout(`${JSON.stringify({ checkpoints: { ok: false, file: cpPath, line: file.line, error: file.error } })}\n`);
    else ctx.stdout(`${message}\n`, 'red');
    return 1;
  }
  const dbPath = resolve(ctx.cwd, opts.db ?? homePaths(svcHome(ctx.env)).db);
  const store = await openStore({ kind: 'sqlite', path: dbPath, leaseMs: 60_000, retention: { eventsMs: null, deadLettersMs: null } },
    { clock: ctx.clock, readOnly: true });
  let verify;
  let result;
  try {
    verify = await store.verifyAudit();
    const headSeq = verify.headSeq;
    result = await checkCheckpoints(file.checkpoints, publicKey, headSeq, async (seq) => {
      const [row] = await store.readAudit(seq - 1, 1);
      return row !== undefined && row.seq === seq ? row.hash : null;
    });
  } finally {
    await store.close();
  }
  const ok = verify.ok && result.ok;
  if (opts.json) {
    ctx.stdout(`${JSON.stringify({ file: dbPath, verify, checkpoints: { file: cpPath, ...result, tornTail: file.tornTail } })}\n`);
    return ok ? 0 : 1;
  }
  ctx.stdout(`${dbPath}: `);
  ctx.stdout(verifyLine(verify), verify.ok ? 'green' : 'red');
  ctx.stdout('\n');
  const summary = result.ok
    ? `checkpoints ok: ${result.checked} checked with key ${result.keyId}, newest at seq ${result.newestSeq}`
      + (file.tornTail ? ' (a torn last line was skipped)' : '')
    : `checkpoints FAILED at seq ${result.problem?.seq ?? '?'}: ${cpPath} ${result.problem?.message ?? ''}`;
  ctx.stdout(summary, result.ok ? 'green' : 'red');
  ctx.stdout('\n');
  return ok ? 0 : 1;
}
