/**
 * One shared reader of one log file, fanned out to its subscribers.
 *
 * Reading: when the change pump (change-pump.ts: fs.watch + safety poll) says so, one check at a
 * time reads from the offset reached so far to the end of the file; a partial line waits for its
 * newline. Checks never overlap, so the reader's state only changes between awaits of one check.
 *
 * Generations: the file at the path is followed across truncation (same inode, size below the
 * offset → restart at 0) and rotation (another inode at the path → drain the old descriptor, then
 * the new file from 0). A descriptor is shared by the reader and any catch-up reading the same
 * generation, and closed when its last user lets go.
 *
 * Subscribers either join the live stream at the current line end, or first catch up from their own
 * start (byte 0 for a replay, a verified resume offset) by positional reads of the same descriptor
 * (see catch-up.ts). The hand-over: a catch-up reads up to the reader's current line end; when,
 * checked synchronously, nothing is left between its position and that line end, it joins the live
 * set in the same tick. The reader only dispatches in its own ticks, so nothing is missed or doubled.
 */
import { basename, dirname } from 'node:path';
import { runCatchUp } from './catch-up.js';
import type { FdRef, Generation, SharedReader } from './catch-up.js';
import { createLineSplitter } from './line-splitter.js';
import type { LineSplitter } from './line-splitter.js';
import { alignToLineEnd } from './align-end.js';
import { createChangePump } from './change-pump.js';
import { TailFileError, closeFd, fstatSize, lstatIno, openLogFile, readAt } from './tail-fs.js';
import type { SubscribeOptions, Subscription, TailLine, TailListener, TailNotice, TailPosition } from './tail-types.js';
import type { Clock } from '../core/clock.js';

export interface TailFileDeps {
  clock: Clock;
  pollMs: number;
  maxLineBytes: number;
  /** Pause between two reads that delivered lines, given the number of subscribers (see file-tailer.ts). */
  lingerMs: (subscribers: number) => number;
  /** A subscriber's listener threw: the subscriber is dropped and the error reported here. */
  onListenerError?: (err: unknown) => void;
}

export interface TailFile {
  subscribe(listener: TailListener, opts: SubscribeOptions): Subscription;
  /** Resolves once a look at the file that started after this call is over (see TailerRegistry.nextCheck). */
  nextCheck(): Promise<void>;
  subscriberCount(): number;
  close(): void;
}

/** Bytes read per system call by the shared reader; also the most memory a check holds at once. */
const READ_CHUNK = 64 * 1024;

interface LineMark { start: number; end: number; crc: number }
interface Opened { gen: Generation; splitter: LineSplitter; lastLine: LineMark | null }

interface Sub {
  listener: TailListener;
  closed: boolean;
  /** Joined ahead of the shared reader (a resume past its line end): live lines ending at or before `end` were had. */
  skip: { gen: Generation; end: number } | null;
  started: boolean;
}

export function createTailFile(path: string, deps: TailFileDeps, onIdle: () => void): TailFile {
  const buf = Buffer.allocUnsafe(READ_CHUNK);
  const live = new Set<Sub>();
  const catching = new Set<Sub>();
  let gen: Generation | null = null;
  let splitter: LineSplitter = createLineSplitter(0, { maxLineBytes: deps.maxLineBytes });
  let lastLine: LineMark | null = null;
  let error: Error | null = null;
  let closed = false;
  let firstOpen = true;

  const unref = (fd: FdRef): void => {
    fd.refs -= 1;
    if (fd.refs === 0) closeFd(fd.fd);
  };

  function call(s: Sub, fn: (l: TailListener) => void): void {
    if (s.closed) return;
    try {
      fn(s.listener);
    } catch (err) {
      drop(s);
      deps.onListenerError?.(err);
    }
  }

  function currentPosition(): TailPosition {
    if (gen === null) return { ino: 0, end: 0, len: 0, crc: 0 };
    const end = splitter.lineEnd;
    const known = lastLine !== null && lastLine.end === end;
    return { ino: gen.ino, end, len: known ? end - lastLine!.start : 0, crc: known ? lastLine!.crc : 0 };
  }

  function dispatch(g: Generation, batch: TailLine[]): void {
    for (const s of live) {
      let lines: readonly TailLine[] = batch;
      if (s.skip !== null) {
        const { end } = s.skip;
        if (s.skip.gen === g) lines = batch.filter((l) => l.end > end);
        if (s.skip.gen !== g || batch[batch.length - 1]!.end > end) s.skip = null;
        if (lines.length === 0) continue;
      }
      call(s, (l) => l.lines(lines));
    }
  }

  function notifyAll(kind: TailNotice): void {
    const pos = currentPosition();
    for (const s of live) {
      s.skip = null;
      call(s, (l) => l.notice(kind, pos));
    }
  }

  function setError(err: Error): void {
    if (error !== null && error.message === err.message) return; // reported once per distinct condition
    error = err;
    for (const s of live) call(s, (l) => l.error(err));
  }

  /** Opens the file now at the path as a new generation, without installing it. */
  async function openGeneration(): Promise<Opened | null> {
    const initial = firstOpen;
    firstOpen = false;
    const r = await openLogFile(path);
    if (!r.ok) {
      if (r.missing) error = null;
      else setError(r.error);
      return null;
    }
    error = null;
    const g: Generation = { ino: r.ino, fd: { fd: r.fd, refs: 1 }, retired: null };
    if (!initial || r.size === 0) return { gen: g, splitter: createLineSplitter(0, { maxLineBytes: deps.maxLineBytes }), lastLine: null };
    // The first subscribers tail from the end: start at the last line boundary, so a line being
    // written right now is delivered whole once its newline arrives.
    try {
      const a = await alignToLineEnd(r.fd, r.size, buf);
      const sp = createLineSplitter(a.lineEnd, { maxLineBytes: deps.maxLineBytes, skipFirst: a.skipFirst });
      if (a.tail.length > 0) sp.feed(a.tail, g.ino, []);
      return { gen: g, splitter: sp, lastLine: a.lastLine };
    } catch (err) {
      unref(g.fd);
      throw err;
    }
  }

  function install(o: Opened | null): void {
    if (o === null) return;
    if (closed) { unref(o.gen.fd); return; }
    gen = o.gen;
    splitter = o.splitter;
    lastLine = o.lastLine;
  }

  function retire(g: Generation, reason: 'truncated' | 'rotated'): void {
    g.retired = { finalEnd: splitter.lineEnd, reason };
  }

  /**
   * Reads what was appended since the last read. No fstat on the common path: a read shorter than
   * the buffer is the end of the file for now. A read of nothing may mean the file shrank below the
   * offset (truncation), which only a stat tells.
   */
  async function readNew(g: Generation): Promise<void> {
    let cur = g;
    for (;;) {
      const n = await readAt(cur.fd.fd, buf, buf.length, splitter.pos);
      if (closed || gen !== cur) return;
      if (n === 0) {
        const size = await fstatSize(cur.fd.fd);
        if (closed || gen !== cur || size >= splitter.pos) return;
        retire(cur, 'truncated');
        cur = { ino: cur.ino, fd: cur.fd, retired: null }; // same descriptor, new generation
        gen = cur;
        splitter = createLineSplitter(0, { maxLineBytes: deps.maxLineBytes });
        lastLine = null;
        notifyAll('truncated');
        continue;
      }
      const batch: TailLine[] = [];
      splitter.feed(buf.subarray(0, n), cur.ino, batch);
      const last = batch[batch.length - 1];
      if (last !== undefined) {
        lastLine = { start: last.start, end: last.end, crc: last.crc };
        pump.delivered();
        dispatch(cur, batch);
      }
      if (n < buf.length) return;
    }
  }

  async function check(full: boolean): Promise<void> {
    if (gen === null) {
      install(await openGeneration());
    } else if (full) {
      const old = gen;
      const ino = await lstatIno(path);
      if (ino !== null && ino !== old.ino && !closed) {
        // Rotation: open the new file first, drain what was written to the old one, then switch in
        // one synchronous step, so no catch-up ever sees a half-switched reader.
        const next = await openGeneration();
        try {
          await readNew(old);
        } catch (err) {
          if (next !== null) unref(next.gen.fd);
          throw err;
        }
        if (closed || gen === null) { if (next !== null) unref(next.gen.fd); return; }
        const cur = gen; // `old`, or its successor if the drain found it truncated
        retire(cur, 'rotated');
        unref(cur.fd);
        gen = null;
        install(next);
        notifyAll('rotated');
      }
    }
    if (gen !== null && !closed) await readNew(gen);
  }

  function release(): void {
    if (gen !== null) unref(gen.fd);
    gen = null;
  }

  function close(): void {
    if (closed) return;
    closed = true;
    for (const s of [...live, ...catching]) s.closed = true;
    live.clear();
    catching.clear();
    pump.close(); // releases the descriptor via onStopped once no check runs
  }

  function drop(s: Sub): void {
    if (s.closed) return;
    s.closed = true;
    live.delete(s);
    catching.delete(s);
    if (live.size + catching.size === 0 && !closed) {
      close();
      onIdle();
    }
  }

  const shared: SharedReader = {
    get gen() { return gen; },
    get lineEnd() { return splitter.lineEnd; },
    get closed() { return closed; },
    nextCheck: () => pump.nextCheck(),
    unref,
  };

  function join(s: Sub, g: Generation | null, pos: number): void {
    if (s.closed) return;
    s.skip = g !== null && g === gen && pos > splitter.lineEnd ? { gen: g, end: pos } : null;
    catching.delete(s);
    live.add(s);
    call(s, (l) => l.live?.());
    if (error !== null) { const err = error; call(s, (l) => l.error(err)); }
  }

  async function start(s: Sub, opts: SubscribeOptions): Promise<void> {
    await pump.ready;
    if (s.closed || closed) return;
    if (opts.afterOffset === undefined && !opts.fromStart) {
      const pos = currentPosition();
      s.started = true;
      call(s, (l) => l.start(pos));
      join(s, gen, pos.end);
      return;
    }
    await runCatchUp(shared, {
      isClosed: () => s.closed,
      start: (pos) => { s.started = true; call(s, (l) => l.start(pos)); },
      lines: (batch) => call(s, (l) => l.lines(batch)),
      notice: (kind, pos) => call(s, (l) => l.notice(kind, pos)),
      join: (g, pos) => join(s, g, pos),
    }, opts, deps.maxLineBytes);
  }

  const pump = createChangePump({
    dir: dirname(path),
    name: basename(path),
    clock: deps.clock,
    pollMs: deps.pollMs,
    lingerMs: () => deps.lingerMs(live.size + catching.size),
    check,
    onCheckError: (err) => setError(new TailFileError('io', `cannot read log file (${(err as NodeJS.ErrnoException).code ?? 'error'})`)),
    onStopped: release,
  });
  pump.start();

  return {
    subscribe(listener, opts) {
      const s: Sub = { listener, closed: false, skip: null, started: false };
      catching.add(s);
      start(s, opts).catch((err: unknown) => {
        if (s.closed) return;
        const e = new TailFileError('io', `cannot replay log file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
        const pos = currentPosition();
        if (!s.started) { s.started = true; call(s, (l) => l.start(pos)); }
        call(s, (l) => l.error(e));
        join(s, gen, pos.end); // go on live rather than leave the subscriber hanging
      });
      return { unsubscribe: () => drop(s) };
    },
    nextCheck: () => pump.nextCheck(),
    subscriberCount: () => live.size + catching.size,
    close,
  };
}
