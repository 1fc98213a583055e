/**
 * The writer of one event-stream response, with the back-pressure rule of the specification (GET
 * /logs, framing rule 4): at most `maxPendingFrames` (1024) log frames pending per client, where
 * pending means not yet accepted by the socket (a write returned false and 'drain' has not come).
 * When the cap is hit the whole buffer is dropped and replaced by one frame
 * `event: system` / `{"system":"dropped","count":<log frames dropped>}`.
 *
 * Decisions beyond the specification:
 * - Only frames that stand for a log line (`log`, `invalid-record`) count toward the cap and the
 *   count, so a hit cap always reports 1024.
 * - A `dropped` frame still pending when the buffer overflows again is kept (it is the only record of
 *   that loss), so each overflow yields exactly one frame. At most 1024 of them are kept; past that,
 *   the last one's count grows instead.
 * - A byte cap (16 MiB) bounds memory when lines are long; it drops the buffer the same way.
 * - Frames queued while the socket accepts writes are coalesced into one write per event-loop turn;
 *   a batch of line frames that many clients receive alike is written as one shared Buffer.
 * - Once the headers are on the socket, writes go to the socket itself, each one chunk of HTTP/1.1
 *   chunked transfer coding framed here, and a shared batch's chunk is framed once for all its
 *   clients: one `write` per client per batch, without the response's per-write machinery (chunk
 *   header, cork and uncork on the next tick), which was a third of the cost of a write
 *   (bench/logs-fanout.ts). `res.end()` still writes the last chunk after them, in order.
 * - `: keep-alive` at every beat of the route's one keep-alive tick (keep-alive-tick.ts, 15 s),
 *   skipped while the socket is not accepting writes. No timer of its own while it streams: a
 *   client that stops reading is handled by the socket's 'drain' and the frame cap above.
 *
 * Teardown on 'close' of the response (client cancel, abort, TCP reset) or `end()`: out of the
 * keep-alive tick, the grace timer cleared, pending frames released, `onClose` callbacks run (the
 * route unsubscribes from the tailer there).
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { KEEP_ALIVE_FRAME, systemFrame } from './frames.js';
import type { KeepAliveTick } from './keep-alive-tick.js';

export interface ClientStreamOptions {
  res: ServerResponse;
  /** For the grace period after `end()` only. */
  clock: Clock;
  /** Shared by the streams of a route: one timer beats them all. */
  keepAlive: KeepAliveTick;
  /** Default 1024 (specification, Limits). */
  maxPendingFrames?: number;
  /** Default 16 MiB. */
  maxPendingBytes?: number;
  /** After `end()`, how long a client that does not read may keep the socket; default 5000 ms. */
  endGraceMs?: number;
}

export interface ClientStream {
  /** A frame standing for one log line: counts toward the cap and toward `dropped`. */
  sendLine(frame: string): void;
  /**
   * Several line frames at once: `bytes` is their concatenation, encoded once and shared by every
   * client receiving the same batch. Written as is while the socket accepts writes; frame by frame
   * (so the cap counts frames) while it does not.
   */
  sendLines(batch: SharedBatch): void;
  /** Any other frame (system notices); not counted, dropped with the buffer on overflow. */
  sendSystem(frame: string): void;
  /** null when there is room for more now; else resolves once the socket drained (or the stream closed). */
  room(): Promise<void> | null;
  /** Sends what is pending and `last`, then ends the response. */
  end(last?: string): void;
  /** Runs `fn` once when the stream is torn down (at once if it already is). */
  onClose(fn: () => void): void;
  isClosed(): boolean;
  /** Resolves when the stream is torn down. */
  readonly closed: Promise<void>;
}

export interface SharedBatch {
  readonly frames: readonly string[];
  readonly bytes: Buffer;
  /** `bytes` as one chunk of chunked transfer coding; framed by the first client that writes it. */
  chunk?: Buffer;
}

const CRLF = Buffer.from('\r\n');

/** `body` as one chunk of HTTP/1.1 chunked transfer coding (RFC 9112 §7.1); an empty one would end the body. */
export function httpChunk(body: Buffer): Buffer;
export function httpChunk(body: string | Buffer): string | Buffer;
export function httpChunk(body: string | Buffer): string | Buffer {
  if (typeof body === 'string') return `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`;
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, CRLF]);
}

/** At most this many `dropped` frames are kept pending; past it the last one's count grows. */
const MAX_KEPT_DROPS = 1024;

export function createClientStream(o: ClientStreamOptions): ClientStream {
  const { res, clock } = o;
  const cap = o.maxPendingFrames ?? 1024;
  const maxBytes = o.maxPendingBytes ?? 16 * 1024 * 1024;
  /** While the socket accepts writes, flush synchronously past this many queued frames. */
  const flushAt = Math.max(1, Math.min(256, cap >> 1));
  let queue: (string | SharedBatch)[] = [];
  let lineCount = 0;
  let bytes = 0;
  let drops: number[] = [];
  let blocked = false;
  /** What the stream waits on for 'drain' while blocked: the socket or, before the headers are on it, the response. */
  let drainOn: Socket | ServerResponse | null = null;
  /** A write through the response has carried its headers. */
  let wroteThroughRes = false;
  /** Writes go to the socket itself (see directSocket). */
  let direct = false;
  let ending = false;
  let done = false;
  let immediate: NodeJS.Immediate | null = null;
  let leaveKeepAlive: (() => void) | null = null;
  let grace: TimerHandle | null = null;
  let roomWaiters: (() => void)[] = [];
  const closeFns: (() => void)[] = [];
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });

  function wakeRoom(): void {
    const ws = roomWaiters;
    roomWaiters = [];
    for (const w of ws) w();
  }

  function overflow(): void {
    const count = lineCount;
    queue = [];
    lineCount = 0;
    bytes = 0;
    if (count === 0) return;
    if (drops.length < MAX_KEPT_DROPS) drops.push(count);
    else drops[drops.length - 1]! += count;
  }

  /**
   * The socket, once the response's headers are on it: the first write goes through the response
   * (`headersSent` is already true after writeHead, with the headers not yet written), and once the
   * response holds no bytes of its own (its writableLength is all the socket's) later writes cannot
   * overtake anything it buffered.
   */
  function directSocket(): Socket | null {
    const socket = res.socket;
    if (socket === null || socket.destroyed) return null;
    if (!direct && wroteThroughRes && res.writableLength === socket.writableLength) direct = true;
    return direct ? socket : null;
  }

  /** Writes what is pending in one write; false when the socket wants a 'drain' first. */
  function writeOut(): boolean {
    const only = queue.length === 1 && drops.length === 0 ? queue[0]! : null;
    let body: string | Buffer = '';
    if (only !== null) body = typeof only === 'string' ? only : only.bytes;
    else {
      for (const count of drops) body += systemFrame({ system: 'dropped', count });
      if (queue.every((q) => typeof q === 'string')) body += queue.join('');
      else body = Buffer.concat([Buffer.from(body), ...queue.map((q) => (typeof q === 'string' ? Buffer.from(q) : q.bytes))]);
    }
    if (body.length === 0) return true;
    const socket = directSocket();
    drainOn = socket ?? res;
    if (socket === null) { wroteThroughRes = true; return res.write(body); }
    if (!res.chunkedEncoding) return socket.write(body); // HTTP/1.0: the body runs to the close
    if (only !== null && typeof only !== 'string') return socket.write(only.chunk ??= httpChunk(only.bytes));
    return socket.write(httpChunk(body));
  }

  function flush(): void {
    if (immediate !== null) { clearImmediate(immediate); immediate = null; }
    if (done || blocked) return;
    if (drops.length > 0 || queue.length > 0) {
      const accepted = writeOut();
      drops = [];
      queue = [];
      lineCount = 0;
      bytes = 0;
      if (!accepted) {
        blocked = true;
        drainOn!.once('drain', onDrain);
        return;
      }
    }
    wakeRoom();
    if (ending && !res.writableEnded) res.end();
  }

  function onDrain(): void {
    blocked = false;
    drainOn = null;
    flush();
  }

  function enqueue(frame: string, isLine: boolean): void {
    if (done || ending) return;
    queue.push(frame);
    bytes += frame.length;
    if (isLine) lineCount += 1;
    if (blocked) {
      if (lineCount >= cap || bytes > maxBytes) overflow();
    } else if (queue.length >= flushAt || bytes > maxBytes) {
      flush();
    } else {
      immediate ??= setImmediate(flush);
    }
  }

  function beat(): void {
    if (done || ending || blocked) return;
    queue.push(KEEP_ALIVE_FRAME);
    flush();
  }

  function stopBeating(): void {
    leaveKeepAlive?.();
    leaveKeepAlive = null;
  }

  function teardown(): void {
    if (done) return;
    done = true;
    if (immediate !== null) clearImmediate(immediate);
    immediate = null;
    stopBeating();
    if (grace !== null) clock.clearTimer(grace);
    grace = null;
    drainOn?.off('drain', onDrain);
    drainOn = null;
    queue = [];
    drops = [];
    wakeRoom();
    for (const fn of closeFns.splice(0)) fn();
    resolveClosed();
  }

  res.on('close', teardown);
  // A write racing a reset fails on the response; 'close' follows and tears the stream down.
  res.on('error', () => {});
  leaveKeepAlive = o.keepAlive.add(beat);

  return {
    sendLine: (frame) => enqueue(frame, true),
    sendLines(batch) {
      if (done || ending || batch.frames.length === 0) return;
      if (blocked || queue.length > 0 || drops.length > 0) {
        for (const f of batch.frames) enqueue(f, true);
        return;
      }
      // The common case: nothing pending, the socket accepts writes. One write of the shared bytes.
      queue.push(batch);
      lineCount += batch.frames.length;
      bytes += batch.bytes.length;
      flush();
    },
    sendSystem: (frame) => enqueue(frame, false),
    room() {
      if (done || (!blocked && lineCount < cap >> 1)) return null;
      return new Promise<void>((resolve) => { roomWaiters.push(resolve); });
    },
    end(last) {
      if (done || ending) return;
      if (last !== undefined) { queue.push(last); bytes += last.length; }
      ending = true;
      stopBeating();
      // A client that does not read cannot hold the socket open: destroy it after a grace period.
      grace = clock.setTimer(() => { grace = null; res.destroy(); }, o.endGraceMs ?? 5000);
      flush();
    },
    onClose(fn) {
      if (done) fn();
      else closeFns.push(fn);
    },
    isClosed: () => done,
    closed,
  };
}
