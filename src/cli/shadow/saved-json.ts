/**
 * Reading an old pager's saved API answers for `svc shadow report --compare` (contract §22.3): each
 * file one answer, `name.json` and its further pages `name.2.json`, `name.3.json`, … as docs/shadow.md
 * has `curl` write them. Bounded (MAX_FILE_BYTES a file, MAX_FILES in all, JSON no deeper than the
 * house bound), and every value read knows where it came from: a value that is not what the vendor's
 * API reference says is a usage error naming the file and the JSON path
 * (`log_entries.json: $.log_entries[3].created_at: expected an ISO-8601 time, found the number 5`), exit 2.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { checkJsonShape } from '../../core/json-shape.js';
import { UsageError } from '../../core/errors.js';

export const MAX_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_FILES = 100_000;

/** A value of a saved answer, with the file and the JSON path it sits at. */
export interface At {
  value: unknown;
  file: string;
  path: string;
}

export function inputError(at: Pick<At, 'file' | 'path'>, problem: string): UsageError {
  return new UsageError(`svc shadow report: ${at.file}: ${at.path}: ${problem}`);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}

const fail = (at: At, expected: string): never => {
  throw inputError(at, `expected ${expected}, found ${describe(at.value)}`);
};

/** The member `key` of an object (absent reads as undefined). */
export function field(at: At, key: string): At {
  if (typeof at.value !== 'object' || at.value === null || Array.isArray(at.value)) fail(at, 'an object');
  const record = at.value as Record<string, unknown>;
  return { value: Object.hasOwn(record, key) ? record[key] : undefined, file: at.file, path: `${at.path}.${key}` };
}

export const isAbsent = (at: At): boolean => at.value === null || at.value === undefined;

export function items(at: At): At[] {
  if (!Array.isArray(at.value)) fail(at, 'an array');
  return (at.value as unknown[]).map((value, i) => ({ value, file: at.file, path: `${at.path}[${i}]` }));
}

export function str(at: At): string {
  return typeof at.value === 'string' ? at.value : fail(at, 'a string');
}

export function optStr(at: At): string | null {
  return isAbsent(at) ? null : str(at);
}

/** An ISO-8601 instant with its zone, as both vendors write them; milliseconds since the epoch. */
export function instant(at: At): number {
  const ms = typeof at.value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(at.value)
    ? Date.parse(at.value) : NaN;
  return Number.isFinite(ms) ? ms : fail(at, 'an ISO-8601 time');
}

/** One saved answer: a JSON object within the bounds. `shown` is how the file is named in errors. */
export function readAnswer(path: string, shown: string): At {
  const size = statSync(path).size;
  const root: At = { value: undefined, file: shown, path: '$' };
  if (size > MAX_FILE_BYTES) throw inputError(root, `${size} bytes, over the ${MAX_FILE_BYTES}-byte bound of one answer`);
  const text = readFileSync(path, 'utf8');
  const shape = checkJsonShape(text);
  if (!shape.ok) {
    throw inputError(root, shape.reason === 'not-object' ? 'expected a JSON object (the vendor\'s answer), found another JSON value'
      : shape.reason === 'too-deep' ? 'nested too deep to be a vendor answer' : 'not valid JSON');
  }
  return { ...root, value: JSON.parse(text) as unknown };
}

/**
 * Every page of one saved request: `<base>.json`, then `<base>.2.json`, `<base>.3.json`, … while
 * they exist. None when `<base>.json` is not there. `shownBase` names them in errors.
 */
export function readPages(base: string, shownBase: string, budget: { files: number }): At[] {
  const pages: At[] = [];
  for (let n = 1; ; n += 1) {
    const suffix = n === 1 ? '.json' : `.${n}.json`;
    if (!existsSync(`${base}${suffix}`)) return pages;
    budget.files += 1;
    if (budget.files > MAX_FILES) throw inputError({ file: `${shownBase}${suffix}`, path: '$' }, `more than ${MAX_FILES} answer files`);
    pages.push(readAnswer(`${base}${suffix}`, `${shownBase}${suffix}`));
  }
}
