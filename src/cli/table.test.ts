import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { CliContext } from './context.js';
import { colourOn, printTable, terminalContext } from './style.js';
import { formatTable } from './table.js';

let written = '';
const ctx = (columns: number | null, env: NodeJS.ProcessEnv = {}): CliContext => ({
  env, cwd: '/', clock: fakeClock(0), pid: 1, stdout: (t) => { written += t; }, stderr: () => undefined, readStdin: () => Promise.resolve(''),
  waitForSignal: () => new Promise(() => undefined), mainScript: '', columns: () => columns,
});
const printed = (c: CliContext, f: (c: CliContext) => void): string => {
  written = '';
  f(terminalContext(c));
  return written;
};

describe('formatTable', () => {
  const headers = ['ID', 'REASON', 'ERROR'];
  const rows = [['dl-1', 'delivery-failed', 'connect ECONNREFUSED 127.0.0.1:9 after 5 attempts, giving up on this one']];

  it('piped: never cut', () => {
    const text = formatTable(headers, rows);
    assert.ok(text.includes(rows[0]?.[2] ?? ''));
  });

  it('on a terminal: the widest column is cut with … so every line fits', () => {
    const text = formatTable(headers, rows, { width: 50 });
    for (const line of text.trimEnd().split('\n')) assert.ok(line.length <= 50, `${line.length}: ${line}`);
    assert.match(text, /ECONNREFUSED.*…$/m);
    assert.match(text, /^ID {4}REASON {11}ERROR$/m);
  });

  it('a wrap column continues under itself, broken between words, instead of being cut', () => {
    const text = formatTable(['ID', { header: 'WHAT', min: 20, wrap: true }], [['dl-1', 'delivered to oncall-dm (attempt 2) after the channel came back']],
      { width: 40 });
    assert.equal(text, 'ID    WHAT\n'
      + 'dl-1  delivered to oncall-dm (attempt 2)\n'
      + '      after the channel came back\n');
    assert.equal(formatTable(['ID', { header: 'WHAT', wrap: true }], [['dl-1', 'short']], { width: 40 }), 'ID    WHAT\ndl-1  short\n');
  });

  it('never below a header: a screen too narrow wraps instead', () => {
    const text = formatTable(headers, rows, { width: 5 });
    assert.match(text, /^ID {4}REASON/m);
  });
});

describe('colour', () => {
  it('only on a terminal, and never with NO_COLOR set', () => {
    assert.equal(colourOn(ctx(80)), true);
    assert.equal(colourOn(ctx(null)), false);
    assert.equal(colourOn(ctx(80, { NO_COLOR: '1' })), false);
    assert.equal(colourOn(ctx(80, { NO_COLOR: '' })), true);
    assert.equal(colourOn(ctx(80, { TERM: 'dumb' })), false);
    assert.equal(printed(ctx(80, { NO_COLOR: '1' }), (c) => c.stdout('x', 'red')), 'x');
    assert.equal(printed(ctx(80), (c) => c.stdout('x', 'red')), '\x1b[31mx\x1b[39m');
    assert.equal(printed(ctx(null), (c) => printTable(c, ['H'], [['v']])), 'H\nv\n');
    assert.equal(printed(ctx(80), (c) => printTable(c, ['H'], [['v']])), '\x1b[1mH\x1b[22m\nv\n');
  });

  it('the colours are the printer\'s own: the same codes in the text are shown, not obeyed', () => {
    assert.equal(printed(ctx(80), (c) => c.stdout('\x1b[31mfake\x1b[39m', 'green')), '\x1b[32m\\u001b[31mfake\\u001b[39m\x1b[39m');
  });
});

describe('a table of hostile cells', () => {
  it('a line break, an escape sequence or a bidi override in a cell is shown on its own line, and columns stay aligned', () => {
    const text = formatTable(['ID', 'LABEL', 'N'], [['a', 'x\n\x1b]52;c;aGk=\x07\u202eevil', '1'], ['b', 'plain', '2']]);
    assert.equal(text, [
      `ID  ${'LABEL'.padEnd(39)}  N`,
      'a   x\\u000a\\u001b]52;c;aGk=\\u0007\\u202eevil  1',
      `b   ${'plain'.padEnd(39)}  2`,
      '',
    ].join('\n'));
  });
});
