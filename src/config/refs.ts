/**
 * `${env:NAME}`, `${file:PATH}` and `${secret:PATH}` references inside configuration values
 * (contract §2a). A reference that cannot be resolved is an error, never an empty string. Error texts
 * name the reference, never a resolved value; resolved text is not scanned again, so a secret that
 * happens to contain `${…}` cannot pull in anything else.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { homePaths } from './paths.js';
import { readSecret, validateSecretPath } from './secrets.js';

export interface RefContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /** Directory `${file:…}` paths are relative to: the directory of the configuration file. */
  baseDir: string;
}

export type RefResult = { ok: true; value: string; usedRef: boolean } | { ok: false; error: string };

type One = { ok: true; value: string } | { ok: false; error: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KINDS = ['env', 'file', 'secret'] as const;

/** Replaces every `${kind:arg}` in `value`; a `$` not followed by `{` stays as it is. */
export function resolveRefs(value: string, ctx: RefContext): RefResult {
  let out = '';
  let usedRef = false;
  let i = 0;
  while (i < value.length) {
    const start = value.indexOf('${', i);
    if (start < 0) {
      out += value.slice(i);
      break;
    }
    out += value.slice(i, start);
    const end = value.indexOf('}', start + 2);
    // The unterminated text is not quoted: it may be the start of a literal secret.
    if (end < 0) return { ok: false, error: 'malformed reference: "${" without a closing "}"' };
    const one = resolveOne(value.slice(start + 2, end), ctx);
    if (!one.ok) return one;
    out += one.value;
    usedRef = true;
    i = end + 1;
  }
  return { ok: true, value: out, usedRef };
}

function resolveOne(body: string, ctx: RefContext): One {
  const colon = body.indexOf(':');
  if (colon < 0) return { ok: false, error: 'malformed reference: expected ${env:NAME}, ${file:PATH} or ${secret:PATH}' };
  const kind = body.slice(0, colon);
  const arg = body.slice(colon + 1);
  if (!(KINDS as readonly string[]).includes(kind)) {
    const shown = /^[A-Za-z0-9_-]{1,32}$/.test(kind) ? `"${kind}"` : '';
    return { ok: false, error: `unknown reference kind ${shown}`.trimEnd() + ' (use env, file or secret)' };
  }
  if (arg.length === 0) return { ok: false, error: `malformed reference: \${${kind}:} names nothing` };
  if (kind === 'env') return envRef(arg, ctx);
  if (kind === 'file') return fileRef(arg, ctx);
  return secretRef(arg, ctx);
}

function envRef(name: string, ctx: RefContext): One {
  if (!ENV_NAME.test(name)) return { ok: false, error: `invalid environment variable name ${JSON.stringify(name)}` };
  const value = ctx.env[name];
  if (value === undefined) return { ok: false, error: `environment variable "${name}" is not set` };
  if (value.trim() === '') return { ok: false, error: `environment variable "${name}" is empty` };
  return { ok: true, value };
}

function fileRef(path: string, ctx: RefContext): One {
  const abs = resolve(ctx.baseDir, path);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    if (code === 'ENOENT') return { ok: false, error: `file ${JSON.stringify(path)} not found (${abs})` };
    return { ok: false, error: `file ${JSON.stringify(path)} cannot be read (${code})` };
  }
  const value = text.trim();
  if (value === '') return { ok: false, error: `file ${JSON.stringify(path)} is empty` };
  return { ok: true, value };
}

function secretRef(path: string, ctx: RefContext): One {
  try {
    validateSecretPath(path);
  } catch (err) {
    if (err instanceof UsageError) return { ok: false, error: err.message };
    throw err;
  }
  let value: string | null;
  try {
    value = readSecret(ctx.home, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    return { ok: false, error: `secret "${path}" cannot be read (${code})` };
  }
  if (value === null) {
    return {
      ok: false,
      error: `secret "${path}" not found in $SVC_HOME/secrets (${homePaths(ctx.home).secrets}); store it with \`svc secret set ${path}\``,
    };
  }
  if (value === '') return { ok: false, error: `secret "${path}" is empty` };
  return { ok: true, value };
}
