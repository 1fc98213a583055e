/**
 * Loads one YAML configuration file: parse with positions, resolve `${…}` references, validate with
 * zod, and report every problem as `<file>:<line>:<col>: <key.path>: <message>` (contract §2:
 * "configuration errors name the file, line and key path"). Messages never carry configuration
 * values, so a secret can never leak through an error: a key whose value came from a reference is
 * described by the reference's kind (`from a ${file:…} reference`), and every message of the file is
 * also scrubbed of the values its references resolved to, as a backstop (contract §11.7).
 *
 * The file itself is read bounded (read-bounded.ts): a regular file of at most 1 MiB, its size taken
 * from the open descriptor and at most 1 MiB + 1 byte read, so a huge, growing or special file is
 * refused before it costs time or memory.
 */
import { dirname, resolve } from 'node:path';
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { MAX_CONFIG_FILE_BYTES, readBoundedFile, readFailureText } from './read-bounded.js';
import { resolveRefs } from './refs.js';
import type { RefContext, RefKind } from './refs.js';

export type KeyPath = ReadonlyArray<string | number>;

/** What a secret key holding a literal is told (the literal itself is never quoted). */
export const LITERAL_SECRET = 'must be a ${env:…}, ${file:…} or ${secret:…} reference, not a literal secret';

export interface YamlLoadContext {
  env: NodeJS.ProcessEnv;
  home: string;
  /** Dotted key paths (`sources.0.secret`) whose value must come from a reference, never a literal. */
  secretKeys?: RegExp[];
}

/** A validated file plus a way to point at its keys in later (cross-file) checks. */
export interface YamlFile<T> {
  /** The path as the caller gave it; used verbatim in messages. */
  file: string;
  value: T;
  /** `<file>:<line>:<col>` of the node at `path`, or of its nearest ancestor present in the file. */
  where(path: KeyPath): string;
  /** One problem line: `<file>:<line>:<col>: <key.path>: <message>`, scrubbed of resolved reference values. */
  problem(path: KeyPath, message: string): string;
  /** The kinds of the references the value at `path` was resolved from; empty for a literal. */
  refKinds(path: KeyPath): readonly RefKind[];
  /** `value` quoted for a message (`"x"`), or `<${env:…} value>` when it came from a reference. */
  quote(path: KeyPath, value: string | number): string;
}

interface Pos { line: number; col: number }
interface Located {
  /** Where the value starts; null for an empty value (`key:`), which has no text of its own. */
  value: Pos | null;
  /** Where the key starts, for entries of a mapping. */
  key: Pos | null;
}
interface Problem { pos: Pos; text: string }

/** Aliases may nest, but an anchor that contains itself would recurse forever. */
const MAX_DEPTH = 64;
/** Nodes visited with aliases expanded: stops a "billion laughs" document from exhausting memory. */
const MAX_NODES = 100_000;

export function dottedPath(path: KeyPath): string {
  return path.map(String).join('.');
}

/**
 * Reads, resolves and validates `filePath` against `schema`. Throws ConfigError listing every
 * problem, one per line, sorted by position.
 */
export function loadYamlFile<T>(filePath: string, schema: z.ZodType<T>, ctx: YamlLoadContext): YamlFile<T> {
  const text = readConfigText(filePath);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): Pos => lineCounter.linePos(offset);

  if (doc.errors.length > 0) throw new ConfigError(syntaxErrors(filePath, text, doc.errors, at));

  const positions = new Map<string, Located>();
  const problems: Problem[] = [];
  // Keys whose problem is already reported (bad reference, literal secret): zod would only repeat it.
  const reported: string[] = [];
  const refCtx: RefContext = { env: ctx.env, home: ctx.home, baseDir: dirname(resolve(filePath)) };
  /** Keys whose value came from references, and the kinds used. */
  const refKinds = new Map<string, RefKind[]>();
  /** What the references of this file resolved to: never to appear in a message. */
  const resolvedValues: Array<{ value: string; kinds: RefKind[] }> = [];
  const secretKeys = ctx.secretKeys ?? [];

  const nodeStart = (node: { range?: [number, number, number] | null } | null | undefined): Pos | null =>
    node?.range ? at(node.range[0]) : null;

  const report = (path: KeyPath, pos: Pos | null, message: string, suppress = true): void => {
    problems.push({ pos: pos ?? { line: 1, col: 1 }, text: withPath(path, message) });
    if (suppress) reported.push(dottedPath(path));
  };

  let visited = 0;
  let tooLarge = false;
  const convert = (node: unknown, path: (string | number)[], depth: number): unknown => {
    if (tooLarge) return undefined;
    if (++visited > MAX_NODES) {
      tooLarge = true;
      report([], null, `more than ${MAX_NODES} values once aliases are expanded`);
      return undefined;
    }
    if (depth > MAX_DEPTH) {
      report(path, null, `nested deeper than ${MAX_DEPTH} levels (recursive alias?)`);
      return undefined;
    }
    if (isAlias(node)) {
      // parseDocument does not flag an alias without an anchor; toJS would throw later.
      const target = node.resolve(doc);
      if (!target) {
        report(path, nodeStart(node), `alias "*${node.source}" refers to no anchor`);
        return undefined;
      }
      return convert(target, path, depth + 1);
    }
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const rawKey: unknown = isScalar(keyNode) ? keyNode.value : null;
        if (typeof rawKey !== 'string' && typeof rawKey !== 'number' && typeof rawKey !== 'boolean') {
          // Only this entry is skipped; the rest of the mapping is still validated.
          report(path, nodeStart(keyNode) ?? nodeStart(node), 'mapping keys must be plain strings', false);
          continue;
        }
        const key = String(rawKey);
        const childPath = [...path, key];
        const valueNode = pair.value as Node | null;
        positions.set(dottedPath(childPath), { key: nodeStart(keyNode), value: emptyValue(valueNode) ? null : nodeStart(valueNode) });
        out[key] = convert(valueNode, childPath, depth + 1);
      }
      return out;
    }
    if (isSeq(node)) {
      return node.items.map((item, index) => {
        const childPath = [...path, index];
        const itemNode = item as Node | null;
        positions.set(dottedPath(childPath), { key: null, value: nodeStart(itemNode) });
        return convert(itemNode, childPath, depth + 1);
      });
    }
    if (isScalar(node)) {
      const isSecretKey = secretKeys.some((re) => re.test(dottedPath(path)));
      if (typeof node.value !== 'string') {
        if (isSecretKey && node.value !== null) {
          report(path, nodeStart(node), LITERAL_SECRET);
          return undefined;
        }
        return node.value;
      }
      const resolved = resolveRefs(node.value, refCtx);
      if (!resolved.ok) {
        report(path, nodeStart(node), resolved.error);
        return undefined;
      }
      if (isSecretKey && !resolved.usedRef) {
        report(path, nodeStart(node), LITERAL_SECRET);
        return undefined;
      }
      if (resolved.usedRef) {
        refKinds.set(dottedPath(path), resolved.kinds);
        resolvedValues.push({ value: resolved.value, kinds: resolved.kinds });
      }
      return resolved.value;
    }
    return node === null || node === undefined ? null : undefined;
  };

  positions.set('', { key: null, value: nodeStart(doc.contents) });
  const plain = convert(doc.contents, [], 0);

  const locate = (path: KeyPath, preferKey: boolean): Pos => {
    for (let n = path.length; n >= 0; n--) {
      const found = positions.get(dottedPath(path.slice(0, n)));
      if (!found) continue;
      const pos = preferKey ? (found.key ?? found.value) : (found.value ?? found.key);
      if (pos) return pos;
    }
    return { line: 1, col: 1 };
  };

  // `port: ${env:INGEST_PORT}` (contract §13): a reference resolves to text; where the schema wants a
  // number or a boolean, the text is converted and the whole file validated again.
  let parsed = schema.safeParse(plain);
  if (!parsed.success && coerceRefs(plain, parsed.error.issues, new Set(refKinds.keys()))) parsed = schema.safeParse(plain);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      if (isUnder(dottedPath(path), reported)) continue;
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const keyPath = [...path, key];
          problems.push({ pos: locate(keyPath, true), text: withPath(keyPath, `unknown key "${key}"`) });
        }
        continue;
      }
      const value = valueAt(plain, path);
      const missing = value === undefined && path.length > 0;
      // A missing key has no node of its own: point at the mapping that should hold it.
      const pos = missing ? locate(path.slice(0, -1), false) : locate(path, false);
      const kinds = refKinds.get(dottedPath(path));
      // A value from a reference is never shown, only where it came from.
      const fromReference = kinds !== undefined && issue.code === 'invalid_type' && typeof value === 'string';
      const message = kinds === undefined ? issueMessage(issue, value, missing)
        : `${fromReference ? `expected ${String(issue.expected)}; the reference resolved to text that is not one` : issueMessage(issue, value, missing)} ${refNote(kinds)}`;
      problems.push({ pos, text: withPath(path, message) });
    }
  }

  if (problems.length > 0 || !parsed.success) {
    problems.sort((a, b) => a.pos.line - b.pos.line || a.pos.col - b.pos.col);
    throw new ConfigError(problems.map((p) => scrub(`${filePath}:${fmt(p.pos)}: ${p.text}`, resolvedValues)).join('\n'));
  }

  const where = (path: KeyPath): string => `${filePath}:${fmt(locate(path, false))}`;
  return {
    file: filePath,
    value: parsed.data,
    where,
    problem: (path, message) => scrub(`${where(path)}: ${withPath(path, message)}`, resolvedValues),
    refKinds: (path) => refKinds.get(dottedPath(path)) ?? [],
    quote: (path, value) => {
      const kinds = refKinds.get(dottedPath(path));
      return kinds === undefined ? JSON.stringify(value) : refValueLabel(kinds);
    },
  };
}

/** `<${file:…} value>`: what a message says in place of a value that came from references. */
function refValueLabel(kinds: readonly RefKind[]): string {
  return `<${[...new Set(kinds)].map((k) => `\${${k}:…}`).join(' and ')} value>`;
}

/** `(from a ${file:…} reference; the value is not shown)`: how a message names a referenced value. */
export function refNote(kinds: readonly RefKind[]): string {
  const names = [...new Set(kinds)].map((k) => `\${${k}:…}`);
  return `(from a ${names.join(' and ')} reference; the value is not shown)`;
}

/** Shortest resolved text that is scrubbed from messages: shorter ones match ordinary words by chance. */
const MIN_SCRUBBED_CHARS = 4;

/**
 * The backstop of "no message quotes a resolved value": any resolved value, any of its lines, and its
 * JSON-escaped form found in `text` is replaced by `<${kind:…} value>`.
 */
function scrub(text: string, values: ReadonlyArray<{ value: string; kinds: RefKind[] }>): string {
  let out = text;
  for (const { value, kinds } of values) {
    const label = refValueLabel(kinds);
    const forms = [value, JSON.stringify(value).slice(1, -1), ...value.split(/\r?\n/).map((l) => l.trim())]
      .filter((f) => f.length >= MIN_SCRUBBED_CHARS)
      .sort((a, b) => b.length - a.length);
    for (const form of new Set(forms)) if (out.includes(form)) out = out.split(form).join(label);
  }
  return out;
}

/** Converts referenced text the schema wanted as a number or boolean, in place; true when anything changed. */
function coerceRefs(root: unknown, issues: readonly z.core.$ZodIssue[], fromRef: ReadonlySet<string>): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean')) continue;
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const key = path.at(-1);
    if (key === undefined || !fromRef.has(dottedPath(path))) continue;
    const parent = valueAt(root, path.slice(0, -1)) as Record<string | number, unknown> | undefined;
    const text = parent?.[key];
    if (typeof text !== 'string') continue;
    const trimmed = text.trim();
    let value: number | boolean | undefined;
    if (issue.expected === 'number' && /^-?\d+(\.\d+)?$/.test(trimmed)) value = Number(trimmed);
    if (issue.expected === 'boolean' && (trimmed === 'true' || trimmed === 'false')) value = trimmed === 'true';
    if (value === undefined || parent === undefined) continue;
    parent[key] = value;
    changed = true;
  }
  return changed;
}

function readConfigText(filePath: string): string {
  const read = readBoundedFile(filePath, { maxBytes: MAX_CONFIG_FILE_BYTES });
  if (read.ok) return read.text;
  if (read.reason === 'not-found') throw new ConfigError(`${filePath}: file not found`);
  throw new ConfigError(`${filePath}: the file ${readFailureText(read)}; configuration files are regular files of at most 1 MiB`);
}

/** `key:` with nothing after it parses as a null scalar positioned after the key; point at the key. */
function emptyValue(node: Node | null): boolean {
  return node === null || (isScalar(node) && node.value === null && node.source === '');
}

function withPath(path: KeyPath, message: string): string {
  return path.length > 0 ? `${dottedPath(path)}: ${message}` : message;
}

/** YAML syntax errors past these are nearly always the first one's echo (one unquoted `${…}` gave 90). */
const MAX_SYNTAX_ERRORS = 3;

/** The first syntax errors, each at file:line:col, the rest counted; a bare `${…}` inside `{ … }` says to quote it. */
function syntaxErrors(filePath: string, text: string, errors: ReadonlyArray<{ pos: [number, number]; message: string }>, at: (offset: number) => Pos): string {
  const lines = errors.slice(0, MAX_SYNTAX_ERRORS).map((e) => {
    const bareReference = text[e.pos[0]] === '{' && text[e.pos[0] - 1] === '$';
    const hint = bareReference ? ' (a ${…} reference inside { … } must be quoted: "${secret:…}")' : '';
    return `${filePath}:${fmt(at(e.pos[0]))}: ${firstLine(e.message)}${hint}`;
  });
  const more = errors.length - MAX_SYNTAX_ERRORS;
  if (more > 0) lines.push(`${filePath}: and ${more} more YAML syntax error(s) after these, most often caused by the first: fix it and check again`);
  return lines.join('\n');
}

function fmt(pos: Pos): string {
  return `${pos.line}:${pos.col}`;
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0] ?? message;
}

function isUnder(path: string, prefixes: string[]): boolean {
  return prefixes.some((p) => p === '' || path === p || path.startsWith(`${p}.`));
}

function valueAt(root: unknown, path: KeyPath): unknown {
  let cur = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

/** Names the type of a value, never the value itself (it may be a secret). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'mapping';
  return typeof value;
}

const TYPE_NAMES: Record<string, string> = { object: 'mapping' };

/** zod's default texts read "Invalid input: expected …, received …"; say it the way a YAML author thinks. */
function issueMessage(issue: z.core.$ZodIssue, value: unknown, missing: boolean): string {
  // An absent key fails as whatever its schema expected (a type, an enum value, a union member).
  if (missing && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) {
    return 'required key missing';
  }
  switch (issue.code) {
    case 'invalid_type':
      if (value === null && issue.path.length === 0) return 'file is empty (expected a mapping)';
      return `expected ${TYPE_NAMES[issue.expected] ?? issue.expected}, got ${kindOf(value)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return `expected one of ${options.map((v) => JSON.stringify(v)).join(', ')}`;
      return 'does not match any of the allowed forms';
    }
    case 'too_small':
    case 'too_big':
      return isDefaultMessage(issue.message) ? boundMessage(issue) : issue.message;
    default:
      return issue.message;
  }
}

function isDefaultMessage(message: string): boolean {
  return message.startsWith('Too small:') || message.startsWith('Too big:');
}

function boundMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      return `must be ${small ? 'at least' : 'at most'} ${bound} characters`;
    case 'array':
      return `must have ${small ? 'at least' : 'at most'} ${bound} item${bound === '1' ? '' : 's'}`;
    default:
      return `must be ${small ? (inclusive ? '>=' : '>') : (inclusive ? '<=' : '<')} ${bound}`;
  }
}
