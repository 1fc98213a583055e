import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { createClientStream } from './client-stream.js';
import type { ClientStreamOptions } from './client-stream.js';
import { eventFrame } from './frames.js';
import { createKeepAliveTick } from './keep-alive-tick.js';

/** A response whose socket accepts writes only while `accepting`; 'drain' is emitted by hand. */
function fakeRes() {
  const res = new EventEmitter() as EventEmitter & {
    socket: null; accepting: boolean; chunks: string[]; raw: (string | Buffer)[]; writableEnded: boolean; destroyed: boolean;
    write(c: string | Buffer): boolean; end(): void; destroy(): void; text(): string;
  };
  res.socket = null; // no socket: every write goes through the response
  res.accepting = true;
  res.chunks = [];
  res.raw = [];
  res.writableEnded = false;
  res.destroyed = false;
  res.write = (c) => { res.raw.push(c); res.chunks.push(c.toString()); return res.accepting; };
  res.end = () => { res.writableEnded = true; res.emit('close'); };
  res.destroy = () => { res.destroyed = true; res.emit('close'); };
  res.text = () => res.chunks.join('');
  return res;
}

type FakeRes = ReturnType<typeof fakeRes>;

/** A stream on a fake response, with its own keep-alive tick unless one is given. */
function stream(res: FakeRes, o: Partial<Omit<ClientStreamOptions, 'res'>> = {}) {
  const clock = o.clock ?? fakeClock();
  return createClientStream({ res: res as unknown as ServerResponse, clock, keepAlive: o.keepAlive ?? createKeepAliveTick({ clock }), ...o });
}

const frame = (i: number) => eventFrame('log', JSON.stringify({ i }), `id${i}`);
const tick = () => new Promise((r) => setImmediate(r));
const droppedCounts = (text: string) => [...text.matchAll(/data: \{"system":"dropped","count":(\d+)\}/g)].map((m) => Number(m[1]));

describe('client stream', () => {
  it('sends ": keep-alive" every 15 s by default and stops on close', () => {
    const clock = fakeClock();
    const res = fakeRes();
    const s = stream(res, { clock });
    clock.advance(14_999);
    assert.equal(res.text(), '');
    clock.advance(1);
    assert.equal(res.text(), ': keep-alive\n\n');
    clock.advance(30_000);
    assert.equal(res.chunks.length, 3);
    let closed = 0;
    s.onClose(() => { closed += 1; });
    res.emit('close');
    assert.equal(closed, 1);
    assert.equal(clock.pendingTimers(), 0, 'heartbeat timer cleared');
    assert.equal(s.isClosed(), true);
  });

  it('coalesces frames written in one turn into one write', async () => {
    const res = fakeRes();
    const s = stream(res);
    s.sendLine(frame(1));
    s.sendLine(frame(2));
    await tick();
    assert.deepEqual(res.chunks, [frame(1) + frame(2)]);
    res.emit('close');
  });

  it('drops the whole buffer at 1024 pending log frames, one dropped frame per overflow', async () => {
    const res = fakeRes();
    const s = stream(res);
    s.sendLine(frame(0));
    res.accepting = false;
    await tick(); // written, but the socket does not accept more: pending from now on
    for (let i = 1; i <= 1023; i++) s.sendLine(frame(i));
    s.sendSystem(eventFrame('system', '{"system":"truncated"}'));
    assert.equal(droppedCounts(res.text()).length, 0, 'nothing dropped below the cap');
    s.sendLine(frame(1024)); // the 1024th pending log frame: cap hit
    for (let i = 1025; i < 1025 + 2048; i++) s.sendLine(frame(i)); // two more overflows
    for (let i = 3073; i < 3080; i++) s.sendLine(frame(i));
    assert.equal(s.room() !== null, true, 'no room while the socket does not drain');
    res.accepting = true;
    res.emit('drain');
    const text = res.chunks.slice(1).join('');
    assert.deepEqual(droppedCounts(text), [1024, 1024, 1024]);
    assert.deepEqual([...text.matchAll(/"i":(\d+)/g)].map((m) => Number(m[1])), [3073, 3074, 3075, 3076, 3077, 3078, 3079]);
    assert.equal(s.room(), null);
    res.emit('close');
  });

  it('writes a shared batch as one chunk, and frame by frame (counted) while blocked', async () => {
    const res = fakeRes();
    const s = stream(res, { maxPendingFrames: 4 });
    const frames = [frame(1), frame(2), frame(3)];
    const batch = { frames, bytes: Buffer.from(frames.join('')) };
    s.sendLines(batch);
    assert.deepEqual(res.chunks, [frames.join('')]);
    res.accepting = false;
    s.sendLines(batch); // accepted by write(), which says "no more"
    s.sendLines(batch); // 3 pending
    s.sendLines(batch); // 6 > 4: the cap was hit at the 4th
    res.accepting = true;
    res.emit('drain');
    await tick();
    assert.deepEqual(droppedCounts(res.chunks.slice(2).join('')), [4]);
    res.emit('close');
  });

  it('end() sends what is pending and the last frame; a client that does not read is cut after the grace period', () => {
    const clock = fakeClock();
    const res = fakeRes();
    const s = stream(res, { clock, endGraceMs: 5000 });
    res.accepting = false;
    s.sendLine(frame(1));
    s.sendLine(frame(2));
    s.end(eventFrame('system', '{"system":"token-expired"}'));
    assert.equal(res.writableEnded, false, 'waits for the socket');
    clock.advance(5000);
    assert.equal(res.destroyed, true);
    assert.equal(s.isClosed(), true);
    assert.equal(clock.pendingTimers(), 0);
  });
});
