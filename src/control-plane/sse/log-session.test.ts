/**
 * The shared encoding of single-agent streams (AgentFrameCache): every client of a batch with the same
 * `since` is handed the same bytes, a client with another `since` its own filtered batch, and the
 * next batch is encoded anew.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createLineParser } from '../../logs/log-record.js';
import type { SubscribeOptions, Subscription, TailLine, TailListener } from '../../logs/tail-types.js';
import type { ClientStream, SharedBatch } from './client-stream.js';
import { createAgentFrameCache, startLogSession } from './log-session.js';
import type { AgentFrameCache } from './log-session.js';

/** A stream that records what the session hands it. */
function recordingStream(): ClientStream & { batches: SharedBatch[] } {
  const batches: SharedBatch[] = [];
  return {
    batches,
    sendLine() { throw new Error('a single-agent session sends shared batches'); },
    sendLines(batch) { batches.push(batch); },
    sendSystem() {},
    room: () => null,
    end() {},
    onClose() {},
    isClosed: () => false,
    closed: new Promise(() => {}),
  };
}

let offset = 0;
function line(ts: string, i: number): TailLine {
  const text = JSON.stringify({ ts, i });
  const start = offset;
  offset += Buffer.byteLength(text) + 1;
  return { text, start, end: offset, ino: 7, crc: i, tooLong: false };
}

describe('log session: one encoding of a batch for every single-agent client', () => {
  it('clients with the same since get the same bytes; another since, a batch of its own; a new batch is encoded anew', () => {
    const listeners: TailListener[] = [];
    const tailers = { subscribe(_path: string, l: TailListener, _o: SubscribeOptions): Subscription { listeners.push(l); return { unsubscribe() {} }; } };
    const cache = createAgentFrameCache();
    const caches = (): AgentFrameCache => cache;
    const parse = createLineParser();
    const open = (sinceMs: number | null) => {
      const stream = recordingStream();
      startLogSession({ stream, agents: ['a'], logPath: () => '/x/a.log', tailers, sinceMs, resume: null, parse, caches });
      listeners[listeners.length - 1]!.start({ ino: 7, end: 0, len: 0, crc: 0 });
      return stream;
    };
    const [one, two] = [open(null), open(null)];
    const since = open(Date.parse('2026-11-25T12:00:00Z'));
    const three = open(null);
    const first = [line('2026-11-25T11:00:00Z', 1), line('2026-11-25T12:30:00Z', 2)];
    for (const l of listeners) l.lines(first); // in subscription order: null, null, since, null
    assert.equal(two.batches[0], one.batches[0], 'the second client reuses the first one\'s encoding');
    assert.equal(three.batches[0], one.batches[0], 'after a client with another since, still the same one');
    assert.equal(one.batches[0]!.frames.length, 2);
    assert.notEqual(since.batches[0], one.batches[0]);
    assert.deepEqual(since.batches[0]!.frames.map((f) => /"i":(\d)/.exec(f)![1]), ['2']);
    const second = [line('2026-11-25T12:31:00Z', 3)];
    for (const l of listeners) l.lines(second);
    for (const s of [one, two, three]) assert.match(s.batches[1]!.bytes.toString(), /"i":3/);
    assert.equal(two.batches[1], one.batches[1]);
    assert.doesNotMatch(one.batches[1]!.bytes.toString(), /"i":[12]/);
  });
});
