/**
 * `${env:NAME}`, `${file:PATH}` and `${secret:PATH}` references inside configuration values
 * (contract §2a). A reference that cannot be resolved is an error, never an empty string. Error texts
 * name the reference, never a resolved value; resolved text is not scanned again, so a secret that
 * happens to contain `${…}` cannot pull in anything else.
 *
 * Reads are bounded (contract §11.7, read-bounded.ts): `${file:…}` takes only a regular file of at
 * most 64 KiB, so a FIFO, /dev/zero or a directory is refused at once instead of hanging or filling
 * memory; `${secret:…}` also refuses symbolic links and files open to group or others (secrets.ts).
 */
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { homePaths } from './paths.js';
import { MAX_REFERENCED_FILE_BYTES, readBoundedFile, readFailureText } from './read-bounded.js';
import { readSecret, validateSecretPath } from './secrets.js';

export interface RefContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /** Directory `${file:…}` paths are relative to: the directory of the configuration file. */
  baseDir: string;
}

export type RefKind = 'env' | 'file' | 'secret';

/**
 * `kinds`: the kinds of the references the value used, in order (empty for a literal). A key whose
 * value came from a reference is described by its kind in messages, never by its value.
 */
export type RefResult = { ok: true; value: string; usedRef: boolean; kinds: RefKind[] } | { ok: false; error: string };

type One = { ok: true; value: string; kind: RefKind } | { ok: false; error: string };
type Resolved = { ok: true; value: string } | { ok: false; error: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KINDS: readonly RefKind[] = ['env', 'file', 'secret'];

/** Replaces every `${kind:arg}` in `value`; a `$` not followed by `{` stays as it is. */
export function resolveRefs(value: string, ctx: RefContext): RefResult {
  let out = '';
  const kinds: RefKind[] = [];
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
    kinds.push(one.kind);
    i = end + 1;
  }
  return { ok: true, value: out, usedRef: kinds.length > 0, kinds };
}

function resolveOne(body: string, ctx: RefContext): One {
  const colon = body.indexOf(':');
  if (colon < 0) return { ok: false, error: 'malformed reference: expected ${env:NAME}, ${file:PATH} or ${secret:PATH}' };
  const kind = body.slice(0, colon);
  const arg = body.slice(colon + 1);
  if (!isKind(kind)) {
    const shown = /^[A-Za-z0-9_-]{1,32}$/.test(kind) ? `"${kind}"` : '';
    return { ok: false, error: `unknown reference kind ${shown}`.trimEnd() + ' (use env, file or secret)' };
  }
  if (arg.length === 0) return { ok: false, error: `malformed reference: \${${kind}:} names nothing` };
  const resolved = kind === 'env' ? envRef(arg, ctx) : kind === 'file' ? fileRef(arg, ctx) : secretRef(arg, ctx);
  return resolved.ok ? { ok: true, value: resolved.value, kind } : resolved;
}

function isKind(kind: string): kind is RefKind {
  return (KINDS as readonly string[]).includes(kind);
}

function envRef(name: string, ctx: RefContext): Resolved {
  if (!ENV_NAME.test(name)) return { ok: false, error: `invalid environment variable name ${JSON.stringify(name)}` };
  const value = ctx.env[name];
  if (value === undefined) return { ok: false, error: `environment variable "${name}" is not set` };
  if (value.trim() === '') return { ok: false, error: `environment variable "${name}" is empty` };
  return { ok: true, value };
}

function fileRef(path: string, ctx: RefContext): Resolved {
  const abs = resolve(ctx.baseDir, path);
  const read = readBoundedFile(abs, { maxBytes: MAX_REFERENCED_FILE_BYTES });
  if (!read.ok) {
    if (read.reason === 'not-found') return { ok: false, error: `file ${JSON.stringify(path)} not found (${abs})` };
    return { ok: false, error: `file ${JSON.stringify(path)} ${readFailureText(read)}` };
  }
  const value = read.text.trim();
  if (value === '') return { ok: false, error: `file ${JSON.stringify(path)} is empty` };
  return { ok: true, value };
}

function secretRef(path: string, ctx: RefContext): Resolved {
  try {
    validateSecretPath(path);
  } catch (err) {
    if (err instanceof UsageError) return { ok: false, error: err.message };
    throw err;
  }
  const read = readSecret(ctx.home, path);
  if (!read.ok) {
    const where = `${homePaths(ctx.home).secrets}/${path}`;
    switch (read.reason) {
      case 'not-found':
        return {
          ok: false,
          error: `secret "${path}" not found in $SVC_HOME/secrets (${homePaths(ctx.home).secrets}); store it with \`svc secret set ${path}\``,
        };
      case 'symlink':
        return { ok: false, error: `secret "${path}" is a symbolic link (${where} or a directory on the way); `
          + `secrets are regular files: store it with \`svc secret set ${path}\`, or use \${file:…}` };
      case 'group-or-other-access':
        return { ok: false, error: `secret "${path}" is accessible by group or others (mode ${read.mode.toString(8).padStart(4, '0')}); `
          + `secrets must be private: chmod 600 ${where}` };
      default:
        return { ok: false, error: `secret "${path}" ${readFailureText(read)}` };
    }
  }
  if (read.text === '') return { ok: false, error: `secret "${path}" is empty` };
  return { ok: true, value: read.text };
}
