import { strict as assert } from 'node:assert';
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../core/clock.js';
import { crc32 } from 'node:zlib';
import { createTailerRegistry } from './file-tailer.js';
import type { TailerRegistry } from './file-tailer.js';
import type { SubscribeOptions, TailLine, TailListener, TailNotice, TailPosition } from './tail-types.js';
import { waitFor } from '../../test/support/wait.js';

type Ev =
  | { t: 'start'; pos: TailPosition }
  | { t: 'line'; line: TailLine }
  | { t: 'notice'; kind: TailNotice; pos: TailPosition }
  | { t: 'error'; message: string };

interface Collector extends TailListener {
  events: Ev[];
  texts(): string[];
  lineObjs(): TailLine[];
}

function collector(): Collector {
  const events: Ev[] = [];
  return {
    events,
    start(pos) { events.push({ t: 'start', pos }); },
    lines(batch) { for (const line of batch) events.push({ t: 'line', line }); },
    notice(kind, pos) { events.push({ t: 'notice', kind, pos }); },
    error(err) { events.push({ t: 'error', message: err.message }); },
    texts: () => events.flatMap((e) => (e.t === 'line' ? [e.line.text] : [])),
    lineObjs: () => events.flatMap((e) => (e.t === 'line' ? [e.line] : [])),
  };
}

const started = (c: Collector) => () => c.events.some((e) => e.t === 'start');
/** The record of a collector without its start: line texts, `!notice`s and `error`s, in order. */
const sequence = (c: Collector): string[] =>
  c.events.filter((e) => e.t !== 'start').map((e) => (e.t === 'line' ? e.line.text : e.t === 'notice' ? `!${e.kind}` : e.t));

describe('file tailer', () => {
  let dir: string;
  let reg: TailerRegistry;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-tail-'));
    file = join(dir, 'a.log');
    reg = createTailerRegistry({ clock: systemClock, pollMs: 100 });
  });
  afterEach(() => {
    reg.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sub = (c: TailListener, opts: SubscribeOptions = { fromStart: false }) => reg.subscribe(file, c, opts);

  it('tails from the end: old lines are not sent, new ones are, with byte offsets', async () => {
    writeFileSync(file, 'old1\nold2\n');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    assert.deepEqual(c.events[0], { t: 'start', pos: { ino: (c.events[0] as { pos: TailPosition }).pos.ino, end: 10, len: 5, crc: crc32('old2\n') } });
    appendFileSync(file, 'new1\n');
    await waitFor('line', () => c.texts().length === 1);
    const l = c.lineObjs()[0]!;
    assert.equal(l.text, 'new1');
    assert.equal(l.start, 10);
    assert.equal(l.end, 15);
    assert.equal(l.crc, crc32('new1\n'));
  });

  it('starts at the last line boundary: a line being written when tailing starts arrives whole', async () => {
    writeFileSync(file, 'old\npart');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    appendFileSync(file, 'ial\n');
    await waitFor('line', () => c.texts().length === 1);
    assert.deepEqual(c.texts(), ['partial']);
  });

  it('holds a partial line until its newline', async () => {
    writeFileSync(file, '');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    appendFileSync(file, '{"a":');
    await reg.nextCheck(file); // the reader has read the partial line ...
    assert.deepEqual(sequence(c), [], '... and held it');
    appendFileSync(file, '1}\n{"b"');
    await reg.nextCheck(file);
    assert.deepEqual(sequence(c), ['{"a":1}'], 'the completed line, not the partial one after it');
    appendFileSync(file, ':2}\n');
    await reg.nextCheck(file);
    assert.deepEqual(sequence(c), ['{"a":1}', '{"b":2}']);
    assert.deepEqual(c.lineObjs().map((l) => [l.start, l.end]), [[0, 8], [8, 16]]);
  });

  it('keeps a multi-byte character split across two writes', async () => {
    writeFileSync(file, '');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    const bytes = Buffer.from('x€y😀z\n');
    // Each nextCheck is a read that ends where the write ended: the character is split across reads.
    appendFileSync(file, bytes.subarray(0, 2)); // "x" + first byte of "€"
    await reg.nextCheck(file);
    appendFileSync(file, bytes.subarray(2, 8)); // rest of "€", "y", half the emoji
    await reg.nextCheck(file);
    assert.deepEqual(sequence(c), []);
    appendFileSync(file, bytes.subarray(8));
    await reg.nextCheck(file);
    assert.deepEqual(sequence(c), ['x€y😀z']);
  });

  it('follows truncation: a notice, then the file from byte 0', async () => {
    writeFileSync(file, '');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    appendFileSync(file, 'one-long-line\ntwo-long-line\n');
    await waitFor('two lines', () => c.texts().length === 2);
    truncateSync(file, 0);
    appendFileSync(file, 'x\n');
    await waitFor('line after truncation', () => c.texts().length === 3);
    assert.deepEqual(sequence(c), ['one-long-line', 'two-long-line', '!truncated', 'x']);
    assert.equal(c.lineObjs()[2]!.start, 0);
  });

  it('follows rotation: rest of the old file, a notice, then the new file from byte 0', async () => {
    writeFileSync(file, '');
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    appendFileSync(file, 'a1\n');
    await waitFor('a1', () => c.texts().length === 1);
    // In one synchronous step, so no look at the file comes in between: a writer that keeps the old
    // file open (like the agent log) appends to it after the rename, and a new file takes the path.
    // The old file's last line is still unread when the reader meets the new file.
    const fd = openSync(file, 'a');
    try {
      renameSync(file, `${file}.1`);
      appendFileSync(fd, 'a2\n');
      writeFileSync(file, 'b1\n');
    } finally {
      closeSync(fd);
    }
    await waitFor('b1', () => c.texts().includes('b1'));
    assert.deepEqual(sequence(c), ['a1', 'a2', '!rotated', 'b1']);
    appendFileSync(file, 'b2\n');
    await waitFor('b2', () => c.texts().length === 4);
    assert.equal(c.lineObjs()[3]!.start, 3);
  });

  it('waits for a file that does not exist yet and sends it from byte 0', async () => {
    const c = collector();
    sub(c);
    await waitFor('start', started(c));
    assert.deepEqual((c.events[0] as { pos: TailPosition }).pos, { ino: 0, end: 0, len: 0, crc: 0 });
    writeFileSync(file, 'first\nsecond\n');
    await waitFor('lines', () => c.texts().length === 2);
    assert.deepEqual(c.texts(), ['first', 'second']);
  });

  it('replays from byte 0 and hands over to the live stream with no gap and no duplicate', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20000; i++) lines.push(`{"i":${i},"pad":"${'x'.repeat(i % 50)}"}`);
    writeFileSync(file, lines.join('\n') + '\n');
    const live = collector();
    sub(live); // the shared reader exists and is live before the replay starts
    await waitFor('live start', started(live));
    let n = 20000;
    const writer = setInterval(() => { for (let k = 0; k < 50; k++) appendFileSync(file, `{"i":${n++}}\n`); }, 1);
    const subs = [collector(), collector(), collector()];
    /** How many lines the file held when each replay handed over to the live stream. */
    const liveAt: number[] = [];
    subs.forEach((c, k) => sub({ ...c, live: () => { liveAt[k] = n; } },
      { fromStart: true, waitForRoom: () => (Math.random() < 0.3 ? new Promise((r) => setImmediate(r)) : null) }));
    await waitFor('every replay handed over to the live stream', () => liveAt.filter((x) => x !== undefined).length === 3);
    clearInterval(writer);
    const total = n;
    appendFileSync(file, `{"i":${total}}\n`); // the last line: whatever came before it was delivered by then
    for (const c of subs) {
      await waitFor(`line ${total}`, () => c.texts().at(-1) === `{"i":${total}}`, 10000);
      const got = c.texts().map((t) => (JSON.parse(t) as { i: number }).i);
      assert.equal(got.length, total + 1);
      got.forEach((v, i) => assert.equal(v, i));
    }
    for (const at of liveAt) assert.ok(at > 20000, `lines were appended during the replay (${at - 20000} before the hand-over)`);
  });

  it('resumes after a verified offset; a position that no longer matches replays from 0 with a reset notice', async () => {
    writeFileSync(file, 'l1\nl2\nl3\n');
    const c1 = collector();
    sub(c1, { fromStart: false, afterOffset: 3, verify: { ino: 0, len: 0, crc: 0 } }); // ino 0 with offset 3: stale
    await waitFor('reset replay', () => c1.texts().length === 3);
    assert.deepEqual(c1.events.map((e) => e.t), ['start', 'notice', 'line', 'line', 'line']);

    const first = collector();
    sub(first, { fromStart: true });
    await waitFor('lines', () => first.texts().length === 3);
    const l1 = first.lineObjs()[0]!;
    const c2 = collector();
    sub(c2, { fromStart: false, afterOffset: l1.end, verify: { ino: l1.ino, len: l1.end - l1.start, crc: l1.crc } });
    await waitFor('resumed', () => c2.texts().length === 2);
    assert.deepEqual(c2.texts(), ['l2', 'l3']);
    assert.equal(c2.events.filter((e) => e.t === 'notice').length, 0);

    const c3 = collector(); // same offset, wrong CRC: the file is not what the position describes
    sub(c3, { fromStart: false, afterOffset: l1.end, verify: { ino: l1.ino, len: 3, crc: l1.crc ^ 1 } });
    await waitFor('reset', () => c3.texts().length === 3);
    assert.deepEqual(c3.texts(), ['l1', 'l2', 'l3']);
  });

  it('refuses a symlinked log file: an error, never the target content', async () => {
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'TOP-SECRET\n');
    symlinkSync(secret, file);
    const c = collector();
    sub(c, { fromStart: true });
    await waitFor('error', () => c.events.some((e) => e.t === 'error'));
    appendFileSync(secret, 'MORE-SECRET\n');
    await reg.nextCheck(file); // the reader looked at the path again since the target grew
    rmSync(file);
    writeFileSync(file, 'plain\n'); // a regular file at the path now: the reader takes it from byte 0
    await waitFor('the regular file', () => c.texts().length > 0);
    assert.deepEqual(sequence(c), ['error', 'plain'], 'one error, then the regular file: never the target');
  });

  it('skips an over-long line but reports it, and keeps memory to the limit', async () => {
    const small = createTailerRegistry({ clock: systemClock, pollMs: 100, maxLineBytes: 1000 });
    try {
      writeFileSync(file, '');
      const c = collector();
      small.subscribe(file, c, { fromStart: false });
      await waitFor('start', started(c));
      appendFileSync(file, 'a'.repeat(3000));
      await small.nextCheck(file); // 3000 bytes read and no newline: the line is over the limit already
      appendFileSync(file, 'b'.repeat(3000) + '\nok\n');
      await waitFor('lines', () => c.lineObjs().length === 2);
      const [big, ok] = c.lineObjs();
      assert.equal(big!.tooLong, true);
      assert.equal(big!.end - big!.start, 6001);
      assert.equal(big!.crc, crc32('a'.repeat(3000) + 'b'.repeat(3000) + '\n'));
      assert.equal(ok!.text, 'ok');
    } finally {
      small.close();
    }
  });

  it('shares one reader per file and releases watcher, timer and descriptor when the last subscriber leaves', async () => {
    const count = (type: string) => process.getActiveResourcesInfo().filter((t) => t === type).length;
    // Nothing subscribes before this test: wait until what earlier tests closed is released.
    await waitFor('earlier watchers and reads released', () => count('FSEventWrap') === 0 && count('FSReqCallback') === 0);
    const fds = () => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
    const base = { w: count('FSEventWrap'), t: count('Timeout'), fds: fds() };
    writeFileSync(file, 'x\n');
    const cs = Array.from({ length: 50 }, () => collector());
    const subs = cs.map((c, i) => sub(c, { fromStart: i % 2 === 0 }));
    await waitFor('all started', () => cs.every((c) => started(c)()));
    assert.deepEqual(reg.stats(), { files: 1, subscribers: 50 });
    assert.equal(count('FSEventWrap') - base.w, 1, 'one watcher for 50 subscribers');
    appendFileSync(file, 'y\n');
    await waitFor('fan-out', () => cs.every((c) => c.texts().includes('y')));
    for (const s of subs) s.unsubscribe();
    assert.deepEqual(reg.stats(), { files: 0, subscribers: 0 });
    await waitFor('resources released', () => count('FSEventWrap') === base.w && count('Timeout') === base.t && count('FSReqCallback') === 0);
    await waitFor('descriptors closed', () => fds() === base.fds);
  });
});
