import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseDotenv } from './dotenv-parse.js';

function vars(text: string): Record<string, string> {
  const r = parseDotenv(text);
  assert.ok(r.ok, r.ok ? '' : r.problems.join('\n'));
  return Object.fromEntries(r.vars);
}

function problems(text: string): string[] {
  const r = parseDotenv(text);
  assert.ok(!r.ok, 'expected a problem');
  return r.problems;
}

describe('.env parsing', () => {
  it('reads KEY=value lines, comments, export, quotes and escapes; a BOM is dropped', () => {
    assert.deepEqual(vars('\uFEFF# a comment\n\nA=1\nexport B = two words \r\nC="x\\ty\\n\\"q\\" \\\\" # why\nD=\'$raw \\n\'\nE=\nF=""\n'), {
      A: '1', B: 'two words', C: 'x\ty\n"q" \\', D: '$raw \\n', E: '', F: '',
    });
  });

  it('keeps a # inside an unquoted value whole (a secret is never cut)', () => {
    assert.deepEqual(vars('PASS=abcdefghijklmnopq#rs\nURL=http://h/#frag\n'), { PASS: 'abcdefghijklmnopq#rs', URL: 'http://h/#frag' });
  });

  it('refuses what would change a value silently, naming the line and key but never the value', () => {
    const cases: Array<[string, RegExp]> = [
      ['PORT=S3CR8080 # the port', /^line 1: PORT: a comment after an unquoted value/],
      ['A="S3CRx" trailing', /^line 1: A: text after the closing quote/],
      ["P='S3CRab'c'", /^line 1: P: text after the closing quote/],
      ['Q="S3CRopen\nNEXT=1\n"', /^line 1: Q: the quote is not closed on its line/],
      ['E="S3CR \\q"', /^line 1: E: unknown escape/],
      ['K=S3CR1\nK=S3CR2', /^line 2: K: already set on line 1/],
      ['not a pair S3CR', /^line 1: expected KEY=value/],
      ['1BAD=S3CR', /^line 1: expected KEY=value/],
    ];
    for (const [text, expected] of cases) {
      const found = problems(text);
      assert.match(found[0] ?? '', expected, text);
      assert.ok(!found.some((p) => p.includes('S3CR')), `${found.join()} quotes the value`);
    }
  });

  it('a value written in single or double quotes reads back as written (property)', () => {
    const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/);
    const value = fc.string({ unit: fc.constantFrom(...'ab #=$\'"\\\t'.split('')), maxLength: 20 });
    fc.assert(fc.property(key, value, (k, v) => {
      const double = `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\t/g, '\\t')}"`;
      assert.equal(vars(`${k}=${double}\n`)[k], v);
      if (!v.includes("'")) assert.equal(vars(`${k}='${v}'\n`)[k], v);
    }), { seed: 20_261_124, numRuns: 300 });
  });
});
