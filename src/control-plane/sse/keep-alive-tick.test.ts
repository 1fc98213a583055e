import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { createClientStream } from './client-stream.js';
import { KEEP_ALIVE_FRAME } from './frames.js';
import { createKeepAliveTick } from './keep-alive-tick.js';

/** A response that records what was written; `accepting` false makes write() report a full socket. */
function fakeRes() {
  const res = new EventEmitter() as EventEmitter & {
    socket: null; accepting: boolean; chunks: string[]; write(c: string | Buffer): boolean; end(): void; destroy(): void;
  };
  res.socket = null;
  res.accepting = true;
  res.chunks = [];
  res.write = (c) => { res.chunks.push(c.toString()); return res.accepting; };
  res.end = () => { res.emit('close'); };
  res.destroy = () => { res.emit('close'); };
  return res;
}

describe('keep-alive tick', () => {
  it('1,000 streams: one timer armed, one keep-alive each per interval, none once all have closed', () => {
    const clock = fakeClock();
    const keepAlive = createKeepAliveTick({ clock, intervalMs: 15_000 });
    const ress = Array.from({ length: 1000 }, () => fakeRes());
    const streams = ress.map((res) => createClientStream({ res: res as unknown as ServerResponse, clock, keepAlive }));
    assert.equal(clock.pendingTimers(), 1, 'one timer for 1,000 streams');
    assert.equal(keepAlive.size(), 1000);
    clock.advance(14_999);
    assert.ok(ress.every((r) => r.chunks.length === 0), 'nothing before the interval');
    for (let k = 1; k <= 3; k++) {
      clock.advance(k === 1 ? 1 : 15_000);
      assert.ok(ress.every((r) => r.chunks.length === k && r.chunks[k - 1] === KEEP_ALIVE_FRAME), `one keep-alive each at beat ${k}`);
      assert.equal(clock.pendingTimers(), 1, `still one timer after beat ${k}`);
    }
    for (const r of ress.slice(0, 999)) r.emit('close');
    assert.equal(keepAlive.size(), 1);
    assert.equal(clock.pendingTimers(), 1, 'the last open stream keeps the tick');
    ress[999]!.emit('close');
    assert.equal(keepAlive.size(), 0);
    assert.equal(clock.pendingTimers(), 0, 'no timer without streams');
    assert.ok(streams.every((s) => s.isClosed()));
  });

  it('a stream that joins between beats is beaten at the next beat; a blocked or ended one is skipped', () => {
    const clock = fakeClock();
    const keepAlive = createKeepAliveTick({ clock, intervalMs: 1000 });
    const [early, late, blocked, ended] = [fakeRes(), fakeRes(), fakeRes(), fakeRes()];
    const open = (r: ReturnType<typeof fakeRes>) => createClientStream({ res: r as unknown as ServerResponse, clock, keepAlive });
    open(early);
    const b = open(blocked);
    const e = open(ended);
    blocked.accepting = false;
    b.sendSystem(': x\n\n');
    b.end(); // flushes ": x", which fills the socket: ending and blocked
    const endedWrites = ended.chunks.length;
    ended.accepting = false;
    e.end(': bye\n\n');
    clock.advance(600);
    open(late);
    clock.advance(400);
    assert.deepEqual(early.chunks, [KEEP_ALIVE_FRAME]);
    assert.deepEqual(late.chunks, [KEEP_ALIVE_FRAME], '400 ms after it joined');
    assert.deepEqual(blocked.chunks, [': x\n\n'], 'no keep-alive queued behind a full socket');
    assert.equal(ended.chunks.length, endedWrites + 1, 'only its last frame');
    assert.equal(keepAlive.size(), 2, 'ended streams left the tick');
  });

  it('beats added twice count twice; removing one keeps the other', () => {
    const clock = fakeClock();
    const keepAlive = createKeepAliveTick({ clock, intervalMs: 10 });
    let beats = 0;
    const beat = () => { beats += 1; };
    const leave = keepAlive.add(beat);
    keepAlive.add(beat);
    clock.advance(10);
    assert.equal(beats, 2);
    leave();
    leave(); // idempotent
    clock.advance(10);
    assert.equal(beats, 3);
    assert.equal(clock.pendingTimers(), 1);
  });
});
