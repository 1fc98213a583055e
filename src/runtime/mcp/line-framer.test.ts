import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLineFramer } from './line-framer.js';

function framer(max = 16) {
  const lines: string[] = [];
  let dropped = 0;
  let overlong = 0;
  const f = createLineFramer({ maxLineBytes: max, onLine: (l) => lines.push(l), onDropped: (n, first) => { dropped += n; if (first) overlong += 1; } });
  return { f, lines, dropped: () => dropped, overlong: () => overlong };
}

describe('createLineFramer', () => {
  it('splits lines across chunks, strips \\r, passes blank lines as \'\' (they cost a read too), keeps an unfinished line for later', () => {
    const { f, lines } = framer();
    f.write(Buffer.from('{"a":1}\r\n\n {"b"'));
    f.write(Buffer.from(':2}\n{"c":'));
    assert.deepEqual(lines, ['{"a":1}', '', ' {"b":2}']);
    f.write(Buffer.from('3}\n \r\n'));
    assert.deepEqual(lines, ['{"a":1}', '', ' {"b":2}', '{"c":3}', '']);
  });

  it('gives each line its bytes on the wire, newline included', () => {
    const sizes: number[] = [];
    const f = createLineFramer({ maxLineBytes: 16, onLine: (_l, bytes) => sizes.push(bytes), onDropped: () => undefined });
    f.write(Buffer.from('ab\r\n\nxyz'));
    f.write(Buffer.from('\n'));
    assert.deepEqual(sizes, [4, 1, 4]);
  });

  it('stop() ends framing at once, even in the middle of a chunk', () => {
    const lines: string[] = [];
    const f = createLineFramer({ maxLineBytes: 16, onLine: (l) => { lines.push(l); if (lines.length === 2) f.stop(); }, onDropped: () => undefined });
    f.write(Buffer.from('a\nb\nc\nd\n'));
    f.write(Buffer.from('e\n'));
    assert.deepEqual(lines, ['a', 'b']);
  });

  it('drops a line over the cap as it streams, counts its bytes, and frames the next line', () => {
    const { f, lines, dropped, overlong } = framer(16);
    f.write(Buffer.from('x'.repeat(10)));
    f.write(Buffer.from('x'.repeat(10)));
    assert.equal(dropped(), 20, 'counted as soon as it passed the cap');
    for (let i = 0; i < 100; i++) f.write(Buffer.from('y'.repeat(1000)));
    assert.equal(dropped(), 100_020);
    f.write(Buffer.from('zz\n{"ok":true}\n'));
    assert.equal(dropped(), 100_022);
    assert.deepEqual(lines, ['{"ok":true}']);
    assert.equal(overlong(), 1, 'one over-long line');
  });

  it('a line of exactly the cap passes; one byte more does not', () => {
    const { f, lines, dropped } = framer(4);
    f.write(Buffer.from('abcd\nabcde\nok\n'));
    assert.deepEqual(lines, ['abcd', 'ok']);
    assert.equal(dropped(), 5);
  });

  it('an endless line costs linear time: 64 MiB in chunks without a newline keeps nothing', () => {
    const { f, dropped } = framer(10 * 1024 * 1024);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 1024; i++) f.write(chunk);
    assert.equal(dropped(), 64 * 1024 * 1024);
  });
});
