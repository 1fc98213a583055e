/** `svc secret set <path>`: stores the value read from stdin under `$SVC_HOME/secrets/<path>` (0600). */
import { svcHome } from '../config/paths.js';
import { validateSecretPath, writeSecret } from '../config/secrets.js';
import { UsageError } from '../core/errors.js';
import type { CliContext } from './context.js';

export async function secretSetCommand(path: string, ctx: CliContext): Promise<number> {
  validateSecretPath(path);
  const value = (await ctx.readStdin()).trim();
  if (value.length === 0) throw new UsageError('svc secret set: no value on standard input');
  writeSecret(svcHome(ctx.env), path, value);
  ctx.stdout(`svc secret set: stored ${path}\n`);
  return 0;
}
