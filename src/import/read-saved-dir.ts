/**
 * Reads a directory of saved vendor answers (answers.ts says the layout) into memory, bounded: at most
 * MAX_FILES files of at most MAX_FILE_BYTES each and MAX_TOTAL_BYTES in all, JSON objects no deeper
 * than the house bound (core/json-shape.ts). `X.2.json` is page 2 of `X` only when `X.json` is there
 * too, so an id made of digits is never taken for a page number. Anything unreadable is an
 * ImportInputError naming the file (exit 2); files other than `*.json` are left alone.
 */
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { checkJsonShape } from '../core/json-shape.js';
import { Answers } from './answers.js';
import { ImportInputError } from './json-cursor.js';

export const MAX_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
export const MAX_FILES = 200_000;

/** Every `*.json` file under `dir`, as paths relative to it with `/` separators. */
function jsonFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.json')) {
        found.push(relative(dir, path).split(sep).join('/'));
        if (found.length > MAX_FILES) throw new ImportInputError(relative(dir, path), '$', `more than ${MAX_FILES} answer files in ${dir}`);
      }
    }
  };
  walk(dir);
  return found.sort();
}

/** Parses one answer: a JSON object within the bounds, or an ImportInputError saying what is wrong with it. */
export function parseAnswer(file: string, text: string): unknown {
  const shape = checkJsonShape(text);
  if (!shape.ok) {
    let problem = 'not valid JSON';
    try {
      JSON.parse(text);
    } catch (err) {
      // Node names the position for most mistakes; the text around it is the user's own data and stays out.
      const at = /position (\d+)/.exec((err as Error).message);
      if (at) {
        const before = text.slice(0, Number(at[1]));
        const line = before.split('\n').length;
        problem += ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
      }
    }
    if (shape.reason === 'not-object') problem = 'expected a JSON object (the vendor\'s answer), found another JSON value';
    if (shape.reason === 'too-deep') problem = 'nested too deep to be a vendor answer';
    throw new ImportInputError(file, '$', problem);
  }
  return JSON.parse(text) as unknown;
}

export function readSavedDir(dir: string): Answers {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    throw new ImportInputError(dir, '$', 'no such directory');
  }
  if (!stat.isDirectory()) throw new ImportInputError(dir, '$', 'not a directory of saved answers');
  const files = jsonFiles(dir);
  const present = new Set(files);
  const answers = new Answers();
  let total = 0;
  for (const file of files) {
    const size = lstatSync(join(dir, file)).size;
    if (size > MAX_FILE_BYTES) throw new ImportInputError(file, '$', `${size} bytes, over the ${MAX_FILE_BYTES}-byte bound of one answer`);
    total += size;
    if (total > MAX_TOTAL_BYTES) throw new ImportInputError(file, '$', `the answers pass ${MAX_TOTAL_BYTES} bytes in all`);
    const body = parseAnswer(file, readFileSync(join(dir, file), 'utf8'));
    const paged = /^(.*)\.(\d{1,6})\.json$/.exec(file);
    if (paged && present.has(`${paged[1]}.json`) && Number(paged[2]) >= 2) answers.add(paged[1] as string, Number(paged[2]), body, file);
    else answers.add(file.slice(0, -'.json'.length), 1, body, file);
  }
  return answers;
}
