/**
 * `svc store copy --to URL [--from FILE]` (contract §16.7): moves an SQLite store (default
 * `$SVC_HOME/svc.db`) into an empty PostgreSQL database, both ends opened through `openStore`. The
 * chain is verified before and after (store/copy-store.ts). Refused while the daemon of this home runs
 * on the file: a copy of a store that is still being written would miss what comes after it.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { homePaths, svcHome } from '../config/paths.js';
import type { StoreSettings } from '../config/store.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../config/store.js';
import { RuntimeError } from '../core/errors.js';
import { copyStore } from '../store/copy-store.js';
import { openStore } from '../store/open-store.js';
import { redactUrl } from '../store/postgres/pool.js';
import type { Store } from '../store/store.js';
import type { CliContext } from './context.js';
import { runningPid } from './daemon-files.js';

const NO_RETENTION = { eventsMs: null, deadLettersMs: null };

const sameRealPath = (a: string, b: string): boolean => {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
};

export async function storeCopyCommand(opts: { to: string; from?: string }, ctx: CliContext): Promise<number> {
  const home = svcHome(ctx.env);
  const paths = homePaths(home);
  const from = opts.from === undefined ? paths.db : resolve(ctx.cwd, opts.from);
  if (!/^postgres(ql)?:\/\//.test(opts.to)) {
    ctx.stderr('svc store copy: --to must be a postgres:// or postgresql:// URL\n');
    return 2;
  }
  if (!existsSync(from)) throw new RuntimeError('ESTORE_COPY', `svc store copy: no store at ${from}`);
  const pid = runningPid(paths.pidFile);
  // By real path: a symbolic link to the store, or a path through a linked directory, is the store.
  if (pid !== null && sameRealPath(from, paths.db)) {
    throw new RuntimeError('ESTORE_COPY', `svc store copy: svc is running on ${from} (pid ${pid}); stop it with \`svc down\` first`);
  }

  const sqlite: StoreSettings = { kind: 'sqlite', path: from, leaseMs: 60_000, retention: NO_RETENTION };
  const postgres: StoreSettings = { kind: 'postgres', url: opts.to, leaseMs: 60_000, retention: NO_RETENTION };
  const opened: Store[] = [];
  try {
    const source = await openStore(sqlite, { clock: ctx.clock });
    opened.push(source);
    const target = await openStore(postgres, { clock: ctx.clock });
    opened.push(target);
    ctx.stdout(`copying ${from} into ${redactUrl(opts.to)}\n`);
    const report = await copyStore(source, target, { nowMs: ctx.clock.now(), windowMs: DEFAULT_IDEMPOTENCY_WINDOW_MS,
      progress: (line) => ctx.stdout(`  ${line}\n`) });
    ctx.stdout(`copied ${report.events} event(s), ${report.deadLetters} dead letter(s), ${report.auditRows} audit row(s), `
      + `${report.fingerprints} live fingerprint(s), ${report.cursors} export cursor(s); the chain verifies in both `
      + `(head ${report.after.headSeq}${report.after.headHash === null ? '' : ` ${report.after.headHash}`})\n`);
    return 0;
  } finally {
    for (const s of opened.reverse()) await s.close().catch(() => undefined);
  }
}
