/**
 * A read command without `--url` means "the daemon of my `$SVC_HOME`". It finds the listener through
 * that home's up-state, or falls back to the default port (control-client.ts), where any other home's
 * daemon may be listening. Before it shows anything it checks the answer's /status `pid` against the
 * home's own pid file, and fails (exit 1) naming the mismatch: an empty or other home must never
 * silently show someone else's daemon. `--url` names a listener on purpose: no check.
 */
import { homePaths, svcHome } from '../config/paths.js';
import { RuntimeError } from '../core/errors.js';
import type { CliContext } from './context.js';
import type { ControlTarget } from './control-client.js';
import { controlTarget, getJson } from './control-client.js';
import { runningPid } from './daemon-files.js';

/** The mismatch between the home's daemon (`ownPid`, null: none runs) and the one that answered, or null when they are one. */
export function homeMismatch(home: string, ownPid: number | null, base: string, answeredPid: unknown): string | null {
  if (ownPid !== null && answeredPid === ownPid) return null;
  const other = typeof answeredPid === 'number' ? `the daemon at ${base} (pid ${answeredPid})` : `the listener at ${base}`;
  return ownPid === null
    ? `svc: no svc runs in $SVC_HOME ${home}, and ${other} belongs to another home; start this one (svc up), set SVC_HOME to that daemon's home, or name it with --url`
    : `svc: ${other} is not the daemon of $SVC_HOME ${home} (pid ${ownPid}); set SVC_HOME to that daemon's home, or name it with --url`;
}

/** Throws unless `target` is the daemon of this `$SVC_HOME` (skipped with `--url`). `status`: /status when already read. */
export async function checkOwnHome(ctx: CliContext, target: ControlTarget, opts: { url?: string }, status?: { pid?: unknown }): Promise<void> {
  if (opts.url !== undefined) return;
  const home = svcHome(ctx.env);
  const ownPid = runningPid(homePaths(home).pidFile);
  const answered = status ?? (await getJson(target, '/status')) as { pid?: unknown };
  const mismatch = homeMismatch(home, ownPid, target.base, answered.pid);
  if (mismatch !== null) throw new RuntimeError('EWRONGHOME', mismatch);
}

/** controlTarget, checked to be this home's daemon (or the `--url` named). */
export async function ownTarget(ctx: CliContext, opts: { url?: string; dir?: string }): Promise<ControlTarget> {
  const target = controlTarget(ctx, opts);
  await checkOwnHome(ctx, target, opts);
  return target;
}
