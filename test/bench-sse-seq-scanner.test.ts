/**
 * The cheap clients of bench/logs-fanout.ts count a line as received only when its frame is
 * complete, whatever the read boundaries: a stream of real /logs frames (chunked coding, a drop
 * notice and a keep-alive included) fed in reads cut at every offset gives the same newest complete
 * line as parsing it whole, and nothing past the end of a read is looked at.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CARRY_BYTES, lastCompletedSeq } from '../bench/lib/sse-seq-scanner.js';
import { httpChunk } from '../src/control-plane/sse/client-stream.js';
import { eventFrame, systemFrame } from '../src/control-plane/sse/frames.js';

const logFrame = (seq: number): string =>
  eventFrame('log', JSON.stringify({ agentId: 'bench', level: 'info', event: 'bench.tick', seq, t: 1764115200123.456 + seq }), `bench:1:${seq * 200}:120:99`);

/** What a client holding the first `n` bytes has completely: the last log seq whose frame ended. */
function expectedAfter(stream: Buffer, n: number): number | null {
  const text = stream.subarray(0, n).toString('latin1');
  const seqs = [...text.matchAll(/"seq":(-?\d+)[^\n]*\n\n/g)].map((m) => Number(m[1]));
  return seqs.length > 0 ? seqs[seqs.length - 1]! : null;
}

/** Feeds `stream` as reads of the given sizes, like log-clients.ts: carry in front, new bytes after it. */
function feed(stream: Buffer, cuts: number[]): { seqs: (number | null)[] } {
  const buf = Buffer.alloc(CARRY_BYTES + stream.length);
  const carry = Buffer.alloc(CARRY_BYTES);
  const seqs: (number | null)[] = [];
  let at = 0;
  for (const size of cuts) {
    carry.copy(buf, 0);
    stream.copy(buf, CARRY_BYTES, at, at + size);
    buf.fill(0x41, CARRY_BYTES + size); // stale bytes past the read must not count
    if (at > 0) stream.copy(buf, CARRY_BYTES + size + 1, 0, Math.min(200, stream.length)); // nor stale frames
    const end = CARRY_BYTES + size;
    seqs.push(lastCompletedSeq(buf, CARRY_BYTES, end));
    buf.copy(carry, 0, end - CARRY_BYTES, end);
    at += size;
  }
  return { seqs };
}

describe('sse-seq-scanner (bench/lib)', () => {
  const body = [logFrame(-2), logFrame(-1), logFrame(0), systemFrame({ system: 'dropped', count: 1024 }), logFrame(1), ': keep-alive\n\n', logFrame(2)];
  const stream = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'), ...body.map((f) => httpChunk(Buffer.from(f)))]);

  it('two reads cut at every offset: the newest complete line matches a whole parse (a drop notice and a keep-alive between lines)', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const r = feed(stream, [cut, stream.length - cut]);
      assert.equal(r.seqs[0], expectedAfter(stream, cut), `cut ${cut}`);
      assert.equal(r.seqs[1] ?? r.seqs[0], 2, `cut ${cut}`);
    }
  });

  it('reads of 7 bytes: the seqs seen only grow, end at the last line, and none is claimed before its frame ends', () => {
    const cuts = Array.from({ length: Math.ceil(stream.length / 7) }, (_, i) => Math.min(7, stream.length - i * 7));
    const r = feed(stream, cuts);
    let at = 0;
    let newest = Number.NEGATIVE_INFINITY;
    r.seqs.forEach((s, i) => {
      at += cuts[i]!;
      if (s === null) return;
      assert.ok(s >= newest);
      newest = s;
      assert.equal(s, expectedAfter(stream, at));
    });
    assert.equal(newest, 2);
  });

  it('a read that ends inside a frame does not count that frame', () => {
    const whole = Buffer.from(logFrame(7));
    const buf = Buffer.concat([Buffer.alloc(CARRY_BYTES), whole]);
    assert.equal(lastCompletedSeq(buf, CARRY_BYTES, buf.length - 1), null);
    assert.equal(lastCompletedSeq(buf, CARRY_BYTES, buf.length), 7);
  });
});
