import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { createBoundedLines } from './bounded-lines.js';

function sink(opts: { maxLineChars?: number; maxLines?: number; windowMs?: number } = {}) {
  const clock = fakeClock(0);
  const out: Array<[string, number]> = [];
  const lines = createBoundedLines({
    clock, maxLineChars: opts.maxLineChars ?? 10, maxLines: opts.maxLines ?? 100, windowMs: opts.windowMs ?? 1_000,
    emit: (line, suppressed) => out.push([line, suppressed]),
  });
  return { clock, out, lines };
}

describe('createBoundedLines', () => {
  it('splits chunks into lines, joining partial ones and skipping blank ones', () => {
    const s = sink();
    s.lines.write('one\ntw');
    s.lines.write('o\r\n\n  \nthr');
    assert.deepEqual(s.out, [['one', 0], ['two', 0]]);
    s.lines.end();
    assert.deepEqual(s.out, [['one', 0], ['two', 0], ['thr', 0]]);
  });

  it('keeps multi-byte characters split across chunks whole', () => {
    const s = sink();
    const bytes = Buffer.from('é\n');
    s.lines.write(bytes.subarray(0, 1));
    s.lines.write(bytes.subarray(1));
    assert.deepEqual(s.out, [['é', 0]]);
  });

  it('cuts a long line once and drops the rest of it, even across chunks', () => {
    const s = sink({ maxLineChars: 5 });
    s.lines.write('abcdefgh');
    s.lines.write('ijklmn\nok\n');
    assert.deepEqual(s.out, [['abcde…', 0], ['ok', 0]]);
  });

  it('emits at most maxLines per window and reports the dropped count on the next line', () => {
    const s = sink({ maxLines: 2, windowMs: 1_000 });
    s.lines.write('a\nb\nc\nd\n');
    assert.deepEqual(s.out, [['a', 0], ['b', 0]]);
    s.clock.advance(1_000);
    s.lines.write('e\n');
    assert.deepEqual(s.out, [['a', 0], ['b', 0], ['e', 2]]);
  });
});
