import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { terminalLine, terminalText, terminalWriter } from './terminal-text.js';

describe('terminalText and terminalLine', () => {
  // [what, input, terminalText, terminalLine]
  const cases: Array<[string, string, string, string]> = [
    ['plain text', 'HighLatency on checkout: p99 2.1 s', 'HighLatency on checkout: p99 2.1 s', 'HighLatency on checkout: p99 2.1 s'],
    ['a line break is kept in text, shown in a line', 'a\nb', 'a\nb', 'a\\u000ab'],
    ['a tab becomes a space', 'a\tb', 'a b', 'a b'],
    ['OSC 52 clipboard write (ESC … BEL)', '\x1b]52;c;cm0gLXJmIH4=\x07', '\\u001b]52;c;cm0gLXJmIH4=\\u0007', '\\u001b]52;c;cm0gLXJmIH4=\\u0007'],
    ['line erase and carriage return', 'ok\r\x1b[2Kfake', 'ok\\u000d\\u001b[2Kfake', 'ok\\u000d\\u001b[2Kfake'],
    ['a CRLF line break (iCalendar) is kept in text, shown in a line; a lone CR never', 'a\r\nb\rc', 'a\r\nb\\u000dc', 'a\\u000d\\u000ab\\u000dc'],
    ['C1 CSI, NEL and DEL', 'a\u009b2Jb\u0085c\u007f', 'a\\u009b2Jb\\u0085c\\u007f', 'a\\u009b2Jb\\u0085c\\u007f'],
    ['NUL and backspace', 'a\u0000b\bc', 'a\\u0000b\\u0008c', 'a\\u0000b\\u0008c'],
    ['bidi override and isolates', 'x\u202eyz\u2066w\u2069', 'x\\u202eyz\\u2066w\\u2069', 'x\\u202eyz\\u2066w\\u2069'],
    ['every embedding and override', '\u202a\u202b\u202c\u202d', '\\u202a\\u202b\\u202c\\u202d', '\\u202a\\u202b\\u202c\\u202d'],
    ['other Unicode is left alone', 'Zürich → 東京 ✓ \u00a0', 'Zürich → 東京 ✓ \u00a0', 'Zürich → 東京 ✓ \u00a0'],
  ];
  for (const [what, input, text, line] of cases) {
    it(what, () => {
      assert.equal(terminalText(input), text);
      assert.equal(terminalLine(input), line);
      assert.equal(terminalText(text), text, 'idempotent');
    });
  }

  it('JSON passed through keeps its values: the escapes are JSON\'s own', () => {
    const value = { label: 'a\u009b\u202e\u2066b\u007f', nested: ['\u0085'] };
    const json = JSON.stringify(value);
    assert.match(json, /[\u007f-\u009f\u202e\u2066]/, 'JSON.stringify leaves these raw');
    const safe = terminalText(json);
    assert.doesNotMatch(safe, /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    assert.deepEqual(JSON.parse(safe), value);
  });

  it('the writer styles after neutralising, and only when colour is on', () => {
    let out = '';
    const write = (t: string): void => { out += t; };
    terminalWriter(write, () => true)('\x1b[1mx', 'bold');
    assert.equal(out, '\x1b[1m\\u001b[1mx\x1b[22m');
    out = '';
    terminalWriter(write, () => false)('y\x07', 'red');
    assert.equal(out, 'y\\u0007');
  });
});
