import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJsonShape, MAX_DEPTH } from './json-shape.js';

/** What the check must say, computed the slow way: JSON.parse, then the nesting measured. */
function reference(text: string, maxDepth = MAX_DEPTH): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not-json';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-object';
  const depth = (v: unknown): number => (typeof v === 'object' && v !== null
    ? 1 + Math.max(0, ...(Array.isArray(v) ? v : Object.values(v)).map(depth)) : 0);
  return depth(value) > maxDepth ? 'too-deep' : 'ok';
}
const verdict = (text: string, maxDepth?: number): string => {
  const r = checkJsonShape(text, maxDepth);
  return r.ok ? 'ok' : r.reason;
};

/** A deterministic generator of JSON-ish texts: valid ones, and ones with a character changed. */
function* texts(seed: number, count: number): Generator<string> {
  let s = seed;
  const rand = (n: number): number => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
  const atoms = ['0', '-0', '1.5', '-12e+3', '1E-2', '"a"', '"\\u00e9\\n\\"\\\\\\/"', '""', 'true', 'false', 'null', '"é😀"'];
  const value = (d: number): string => {
    const k = rand(d > 5 ? 2 : 4);
    if (k < 2) return atoms[rand(atoms.length)] as string;
    const n = rand(4);
    if (k === 2) return `[${Array.from({ length: n }, () => value(d + 1)).join(',')}]`;
    return `{${Array.from({ length: n }, (_, j) => `"k${j}":${value(d + 1)}`).join(', ')}}`;
  };
  const noise = ['', ' ', ',', ':', '{', '}', '[', ']', '"', '\\', '\u0001', 'x', '01', '-', '.', 'e', 'tru', 'nul'];
  for (let i = 0; i < count; i++) {
    const v = `{"root":${value(0)}}`;
    if (rand(2) === 0) { yield v; continue; }
    const at = rand(v.length + 1);
    yield v.slice(0, at) + (noise[rand(noise.length)] as string) + v.slice(at + rand(2));
  }
}

describe('webhook body shape', () => {
  it('accepts objects and names what is wrong with everything else', () => {
    const cases: Array<[string, string]> = [
      ['{}', 'ok'], [' {"a": [1, {"b": null}], "c": "\\u0041"} \n', 'ok'], ['{"a":1,}', 'not-json'], ['{"a" 1}', 'not-json'],
      ['', 'not-json'], ['   ', 'not-json'], ['[]', 'not-object'], ['"s"', 'not-object'], ['42', 'not-object'], ['null', 'not-object'],
      ['{"a":1} x', 'not-json'], ['{"a":01}', 'not-json'], ['{"a":"tab\there"}', 'not-json'], ['{"a":"\\x"}', 'not-json'],
      ['{"a":"\\u12g4"}', 'not-json'], ['{"a":-}', 'not-json'], ['{"a":1.}', 'not-json'], ['{"a":1e}', 'not-json'], ['{a:1}', 'not-json'],
      ['{"a":[1,2', 'not-json'], ['{"a":[1,2}', 'not-json'], ['{"a":{"b":1]}', 'not-json'], ['{"a":tru}', 'not-json'], ['x', 'not-json'],
    ];
    for (const [text, want] of cases) assert.equal(verdict(text), want, JSON.stringify(text));
  });

  it('counts the top-level object as level 1: 64 levels pass, 65 do not, however deep the rest', () => {
    const nest = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    assert.equal(verdict(nest(64)), 'ok');
    assert.equal(verdict(nest(65)), 'too-deep');
    assert.equal(verdict(`{"a":${'['.repeat(63)}${']'.repeat(63)}}`), 'ok');
    assert.equal(verdict(`{"a":${'['.repeat(64)}${']'.repeat(64)}}`), 'too-deep');
    // Far past any stack: answered without recursion.
    assert.equal(verdict(`{"a":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`), 'too-deep');
    // The scan stops at the 65th level: the rest, however long or broken, is never read.
    assert.equal(verdict('['.repeat(1_000_000)), 'too-deep');
  });

  it('agrees with JSON.parse and a measured depth on thousands of generated and damaged texts', () => {
    let checked = 0;
    for (const text of texts(7, 4000)) {
      assert.equal(verdict(text, 5), reference(text, 5), JSON.stringify(text));
      checked++;
    }
    assert.equal(checked, 4000);
  });

  it('checks a megabyte of 300,000 tiny objects without building them', () => {
    const body = `{"alerts":[${Array.from({ length: 300_000 }, () => '{}').join(',')}]}`;
    assert.ok(body.length > 900_000);
    assert.equal(verdict(body), 'ok');
  });
});
