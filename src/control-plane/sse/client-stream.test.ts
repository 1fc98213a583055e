import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { createClientStream } from './client-stream.js';
import type { ClientStreamOptions, SharedBatch } from './client-stream.js';
import { eventFrame } from './frames.js';
import { createKeepAliveTick } from './keep-alive-tick.js';

/** A response whose socket accepts writes only while `accepting`; 'drain' is emitted by hand. */
function fakeRes() {
  const res = new EventEmitter() as EventEmitter & {
    socket: null; accepting: boolean; chunks: string[]; writableEnded: boolean; destroyed: boolean;
    write(c: string | Buffer): boolean; end(): void; destroy(): void; text(): string;
  };
  res.socket = null; // no socket: every write goes through the response
  res.accepting = true;
  res.chunks = [];
  res.writableEnded = false;
  res.destroyed = false;
  res.write = (c) => { res.chunks.push(c.toString()); return res.accepting; };
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

/**
 * A response on an HTTP/1.1 connection, as the stream sees it: chunked, with a socket that takes
 * writes while `accepting`. Its first write (through the response) carries the headers; nothing
 * stays buffered in the response, so later writes may go to the socket.
 */
function socketRes() {
  const socket = new EventEmitter() as EventEmitter & {
    destroyed: boolean; writableLength: number; accepting: boolean; writes: (string | Buffer)[]; write(c: string | Buffer): boolean;
  };
  socket.destroyed = false;
  socket.writableLength = 0;
  socket.accepting = true;
  socket.writes = [];
  socket.write = (c) => { socket.writes.push(c); return socket.accepting; };
  const res = new EventEmitter() as EventEmitter & {
    socket: typeof socket; chunkedEncoding: boolean; headersSent: boolean; writableLength: number; writableEnded: boolean;
    viaRes: string[]; write(c: string | Buffer): boolean; end(): void; destroy(): void;
  };
  Object.assign(res, { socket, chunkedEncoding: true, headersSent: true, writableLength: 0, writableEnded: false, viaRes: [] });
  res.write = (c) => { res.viaRes.push(c.toString()); return true; };
  res.end = () => { res.writableEnded = true; res.emit('close'); };
  res.destroy = () => { res.emit('close'); };
  return res;
}

function batchOf(from: number, count: number): SharedBatch {
  const frames = Array.from({ length: count }, (_, k) => frame(from + k));
  return { frames, bytes: Buffer.from(frames.join('')) };
}

/** The body carried by a chunk of chunked transfer coding. */
function unchunk(c: string | Buffer): string {
  const text = c.toString();
  const m = /^([0-9a-f]+)\r\n/.exec(text);
  assert.ok(m !== null, `a chunk: ${JSON.stringify(text.slice(0, 20))}`);
  const body = Buffer.from(text.slice(m[0].length));
  assert.equal(body.subarray(Number.parseInt(m[1]!, 16)).toString(), '\r\n', 'the size names the body');
  return body.subarray(0, Number.parseInt(m[1]!, 16)).toString();
}

/** 1,000 streams on one fake clock and keep-alive tick, each past its first write (caught-up). */
async function thousandCaughtUp() {
  const clock = fakeClock();
  const keepAlive = createKeepAliveTick({ clock });
  const ress = Array.from({ length: 1000 }, () => socketRes());
  const streams = ress.map((res) => createClientStream({ res: res as unknown as ServerResponse, clock, keepAlive }));
  for (const s of streams) s.sendSystem(eventFrame('system', '{"system":"caught-up"}'));
  await tick();
  return { clock, ress, streams };
}

describe('client streams of one batch (fan-out)', () => {
  it('1,000 clients: after the write that carries the headers, one socket write each per batch, of one chunk framed once', async () => {
    const { clock, ress, streams } = await thousandCaughtUp();
    assert.ok(ress.every((r) => r.viaRes.length === 1 && r.socket.writes.length === 0), 'the first write goes through the response (it carries the headers)');
    const batches = [batchOf(0, 50), batchOf(50, 50)];
    for (const b of batches) for (const s of streams) s.sendLines(b);
    for (const [k, b] of batches.entries()) {
      const chunk = ress[0]!.socket.writes[k];
      assert.ok(Buffer.isBuffer(chunk));
      assert.equal(chunk, b.chunk, 'the batch carries its one chunk');
      assert.ok(ress.every((r) => r.socket.writes[k] === chunk), `batch ${k}: every socket got the very same Buffer`);
      assert.equal(unchunk(chunk), b.frames.join(''));
    }
    assert.ok(ress.every((r) => r.socket.writes.length === 2 && r.viaRes.length === 1), 'one write per client per batch');
    clock.advance(15_000);
    assert.ok(ress.every((r) => r.socket.writes.length === 3 && unchunk(r.socket.writes[2]!) === ': keep-alive\n\n'), 'keep-alive framed as a chunk too');
    assert.equal(clock.pendingTimers(), 1);
    for (const r of ress) r.emit('close');
  });

  it('a response still holding bytes (its socket not caught up with it) is written through, not overtaken', async () => {
    const res = socketRes();
    const s = createClientStream({ res: res as unknown as ServerResponse, clock: fakeClock(), keepAlive: createKeepAliveTick({ clock: fakeClock() }) });
    res.writableLength = 100; // bytes the response itself still holds: more than its socket's 0
    s.sendSystem(': a\n\n');
    await tick();
    s.sendLines(batchOf(0, 2));
    assert.deepEqual(res.viaRes, [': a\n\n', frame(0) + frame(1)]);
    assert.equal(res.socket.writes.length, 0);
    res.emit('close');
  });

  it('a slow client among 1,000: its buffer is dropped at the cap with one dropped notice, no timer armed; the others get every batch', async () => {
    const { clock, ress, streams } = await thousandCaughtUp();
    const slow = ress[500]!;
    slow.socket.accepting = false;
    // 30 batches of 50 lines: the slow socket takes the first and then says it is full.
    for (let k = 0; k < 30; k++) {
      const b = batchOf(k * 50, 50);
      for (const s of streams) s.sendLines(b);
    }
    assert.equal(clock.pendingTimers(), 1, 'only the keep-alive tick: back-pressure arms no timer');
    assert.ok(ress.every((r, i) => i === 500 || r.socket.writes.length === 30), 'every other client got every batch, one write each');
    assert.equal(slow.socket.writes.length, 1, 'nothing written while the socket does not drain');
    assert.equal(streams[500]!.room() !== null, true, 'the replay back-pressure sees the slow client as full');
    // 29 × 50 = 1,450 frames pending: the cap (1,024) was hit once, 426 are kept.
    slow.socket.accepting = true;
    slow.socket.emit('drain');
    const after = slow.socket.writes.slice(1).map(unchunk).join('');
    assert.deepEqual(droppedCounts(after), [1024]);
    assert.ok(after.startsWith('event: system\ndata: {"system":"dropped","count":1024}\n\n'), 'the notice comes first');
    const ids = [...after.matchAll(/"i":(\d+)/g)].map((m) => Number(m[1]));
    assert.deepEqual(ids, Array.from({ length: 426 }, (_, k) => 50 + 1024 + k), 'the frames after the dropped ones, in order');
    assert.equal(streams[500]!.room(), null);
    for (const r of ress) r.emit('close');
    assert.equal(clock.pendingTimers(), 0);
  });
});
