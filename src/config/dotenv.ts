/**
 * `svc up DIR` reads `DIR/.env` when present (contract §13); the real environment wins over it. Several
 * directories' files are merged; two that set one variable differently are a configuration error
 * naming both files and the variable (never the values). `SVC_HOME` is taken from the real
 * environment only: every other command (`svc down`, `svc ps`) must find the same home without a DIR.
 */
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import { parseDotenv } from './dotenv-parse.js';
import { MAX_REFERENCED_FILE_BYTES, readBoundedFile, readFailureText } from './read-bounded.js';

/** Variables a `.env` file may not set, and why. */
const IGNORED: Readonly<Record<string, string>> = {
  SVC_HOME: 'set it in the environment: svc down and svc ps read it without a DIR',
};

export interface DotenvResult {
  env: NodeJS.ProcessEnv;
  /** `.env` files read, in order. */
  files: string[];
  /** Variables a file set that were ignored (with why), or that the real environment overrode. */
  notes: string[];
}

export function withDotenv(dirs: readonly string[], env: NodeJS.ProcessEnv): DotenvResult {
  const fromFiles = new Map<string, { value: string; file: string }>();
  const files: string[] = [];
  const notes: string[] = [];
  const problems: string[] = [];
  for (const dir of dirs) {
    const file = join(dir, '.env');
    // Bounded like every configuration read: a regular file of at most 64 KiB (a FIFO never blocks).
    const read = readBoundedFile(file, { maxBytes: MAX_REFERENCED_FILE_BYTES });
    if (!read.ok) {
      if (read.reason === 'not-found') continue;
      throw new ConfigError(`${file}: ${readFailureText(read)}`);
    }
    files.push(file);
    const parsed = parseDotenv(read.text);
    if (!parsed.ok) {
      problems.push(...parsed.problems.map((p) => `${file}: ${p}`));
      continue;
    }
    for (const [key, value] of parsed.vars) {
      if (IGNORED[key] !== undefined) {
        notes.push(`${file}: ${key} ignored (${IGNORED[key]})`);
        continue;
      }
      const earlier = fromFiles.get(key);
      if (earlier !== undefined && earlier.value !== value) {
        problems.push(`${file}: ${key}: also set, differently, in ${earlier.file}; agents started together share one environment`);
        continue;
      }
      fromFiles.set(key, { value, file });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const merged: NodeJS.ProcessEnv = {};
  for (const [key, { value }] of fromFiles) {
    if (env[key] !== undefined) continue; // the real environment wins
    merged[key] = value;
  }
  return { env: { ...merged, ...env }, files, notes };
}
