import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { commentFrame, eventFrame, systemFrame } from './frames.js';

function parse(text: string): { events: EventSourceMessage[]; comments: string[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const p = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  p.feed(text);
  return { events, comments };
}

describe('SSE frames', () => {
  it('serialises event, id and data', () => {
    assert.equal(eventFrame('log', '{"a":1}', 'abc'), 'event: log\nid: abc\ndata: {"a":1}\n\n');
    assert.deepEqual(parse(eventFrame('log', '{"a":1}', 'abc')).events, [{ event: 'log', id: 'abc', data: '{"a":1}' }]);
  });

  it('splits data with line breaks into several data lines, which the client joins with \\n', () => {
    const text = eventFrame('system', 'one\ntwo\r\nthree\rfour');
    assert.equal(text, 'event: system\ndata: one\ndata: two\ndata: three\ndata: four\n\n');
    assert.equal(parse(text).events[0]!.data, 'one\ntwo\nthree\nfour');
  });

  it('writes comment frames and system frames', () => {
    assert.equal(commentFrame('keep-alive'), ': keep-alive\n\n');
    assert.deepEqual(parse(commentFrame('a\nb')).comments.map((c) => c.trim()), ['a', 'b']);
    assert.deepEqual(JSON.parse(parse(systemFrame({ system: 'dropped', count: 1024 })).events[0]!.data), { system: 'dropped', count: 1024 });
  });

  it('refuses an id that would break the framing', () => {
    assert.throws(() => eventFrame('log', '{}', 'a\nevent: evil'));
  });
});
