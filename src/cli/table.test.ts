import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { CliContext } from './context.js';
import { colourOn, paint, tableOptions } from './style.js';
import { formatTable } from './table.js';

const ctx = (columns: number | null, env: NodeJS.ProcessEnv = {}): CliContext => ({
  env, cwd: '/', clock: fakeClock(0), pid: 1, stdout: () => undefined, stderr: () => undefined, readStdin: () => Promise.resolve(''),
  waitForSignal: () => new Promise(() => undefined), mainScript: '', columns: () => columns,
});

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
    assert.equal(paint(ctx(80, { NO_COLOR: '1' }), 'red', 'x'), 'x');
    assert.notEqual(paint(ctx(80), 'red', 'x'), 'x');
    assert.equal(tableOptions(ctx(null)).header('H'), 'H');
  });
});
