/**
 * The clients of bench/logs-fanout.ts, run in a worker thread: `count` /logs streams on raw sockets.
 *
 * Cheap, so the load generator is not what is measured: no HTTP client, no stream machinery, no
 * Buffer per read — every socket of the thread reads into one shared buffer (`net.connect`'s
 * `onread`; reads are handled one at a time, synchronously), and a read costs two native searches
 * (sse-seq-scanner.ts) and one clock reading. Latency stays per line and end to end: the appender
 * writes each line's append time into a shared table indexed by `seq` before it writes the line; a
 * read that completes lines up to `seq` n records, for every line since the previous read, the time
 * of this read minus that line's append time, into a histogram of 10 µs buckets.
 *
 * A cheap client does not look for drop notices (a forward search of every read for one was 12 % of
 * its CPU): a client that lost lines received fewer bytes than the others, so the bench counts a
 * cheap client complete only with its last line AND as many bytes as the most any client received.
 * Every CHECK_EVERY-th client instead goes through node:http and parses every frame with
 * eventsource-parser, taking latency from the `t` inside the line and counting drop notices: a check
 * that the cheap reading counts the same lines and sees the same latency.
 */
import { request } from 'node:http';
import type { ClientRequest } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { createParser } from 'eventsource-parser';
import { CARRY_BYTES, lastCompletedSeq } from './sse-seq-scanner.js';

/** Histogram resolution: 100 buckets per ms, up to HIST_MS; later ones land in the last bucket (the max is kept apart). */
export const HIST_PER_MS = 100;
export const HIST_MS = 60_000;

export interface LogClientsData {
  port: number;
  path: string;
  /** Index of this thread's first client among all clients (for CHECK_EVERY). */
  first: number;
  count: number;
  /** Float64Array over it: append time (monotonicMs) of the line with seq `s` at index `s + seqBase`. */
  appendTimes: SharedArrayBuffer;
  seqBase: number;
  checkEvery: number;
}

export type ToClients =
  | { type: 'start' }
  | { type: 'progress'; target: number }
  | { type: 'final'; target: number }
  | { type: 'close' };

export interface ClientsProgress {
  /** Clients whose newest complete line has seq ≥ target. */
  reached: number;
  clients: number;
  /** `event: system` frames seen by the check clients, and the sum of `dropped` counts in them (the cheap clients' drops show in their bytes). */
  systemFrames: number;
  dropped: number;
}

export interface ClientsFinal extends ClientsProgress {
  type: 'final';
  /** Latency of every line (seq ≥ 0) at every cheap client: counts per 1/HIST_PER_MS ms bucket. */
  histogram: Uint32Array;
  lines: number;
  maxMs: number;
  /** Bytes received by the cheap clients while measuring, and lines whose append time was missing (must be 0). */
  bytes: number;
  /**
   * The fewest and most bytes one cheap client received while measuring: equal when every client got
   * the same stream (a line missing at one client without a drop notice would show here).
   */
  clientBytesMin: number;
  clientBytesMax: number;
  /** Per cheap client: bytes received while measuring, and whether its newest complete line reached the target. */
  cheapBytes: number[];
  cheapReached: boolean[];
  /** Check clients whose last parsed line reached the target. */
  checkReached: number;
  unstamped: number;
  /** The check clients: log frames parsed, and their latencies from `t` in the line (ms). */
  checkFrames: number;
  /** Log frames at a check client whose seq did not follow the one before (must be 0). */
  checkOutOfOrder: number;
  checkLatencies: number[];
  /** Event-loop utilization of this thread while measuring (0..1): how busy the clients were. */
  elu: number;
}

export type FromClients =
  | { type: 'connected' }
  | { type: 'started' }
  | ({ type: 'progress' } & ClientsProgress)
  | ClientsFinal;

/** Monotonic ms, the same clock in every thread of a process (the appender's and the clients'). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;
/** Wall-clock based ms with sub-ms precision, comparable across processes (the `t` in the lines). */
export const wallMs = (): number => performance.timeOrigin + performance.now();

interface Cheap { done: number; socket: Socket; status: 'waiting' | 'ok' | 'bad'; carry: number; bytes: number }

function runClients(d: LogClientsData): void {
  const port = parentPort!;
  const appendAt = new Float64Array(d.appendTimes);
  const histogram = new Uint32Array(HIST_MS * HIST_PER_MS + 1);
  const read = Buffer.allocUnsafe(CARRY_BYTES + 64 * 1024);
  const into = read.subarray(CARRY_BYTES);
  const carries = Buffer.alloc(CARRY_BYTES * d.count);
  const cheap: Cheap[] = [];
  const checks: ClientRequest[] = [];
  let lines = 0;
  let maxMs = 0;
  let bytes = 0;
  let unstamped = 0;
  let sysFrames = 0;
  let dropped = 0;
  let checkFrames = 0;
  let checkOutOfOrder = 0;
  const checkLatencies: number[] = [];
  const request200 = Buffer.from(`GET ${d.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  const firstSeq = -d.seqBase;

  function onRead(c: Cheap, n: number, connected: () => void): void {
    const at = monotonicMs();
    bytes += n;
    c.bytes += n;
    const end = CARRY_BYTES + n;
    carries.copy(read, 0, c.carry, c.carry + CARRY_BYTES);
    if (c.status === 'waiting') {
      c.status = read.toString('latin1', CARRY_BYTES, CARRY_BYTES + 13) === 'HTTP/1.1 200 ' ? 'ok' : 'bad';
      connected();
    }
    const seq = lastCompletedSeq(read, CARRY_BYTES, end);
    if (seq !== null && seq > c.done) {
      for (let s = Math.max(0, c.done + 1); s <= seq; s++) {
        const t = appendAt[s + d.seqBase]!;
        if (t === 0) { unstamped += 1; continue; }
        const ms = at - t;
        histogram[Math.min(histogram.length - 1, Math.max(0, Math.round(ms * HIST_PER_MS)))]! += 1;
        if (ms > maxMs) maxMs = ms;
        lines += 1;
      }
      c.done = seq;
    }
    read.copy(carries, c.carry, end - CARRY_BYTES, end);
  }

  const openCheap = (k: number): Promise<void> => new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1', port: d.port,
      onread: { buffer: into, callback: (n: number) => { onRead(c, n, resolve); return true; } }, // reads come after `c` is set
    });
    const c: Cheap = { done: firstSeq - 1, socket, status: 'waiting', carry: k * CARRY_BYTES, bytes: 0 };
    cheap.push(c);
    socket.setNoDelay(true);
    socket.once('connect', () => socket.write(request200));
    socket.once('error', reject);
  });

  const openCheck = (): Promise<void> => new Promise((resolve, reject) => {
    let last = firstSeq - 1;
    const req = request({ host: '127.0.0.1', port: d.port, path: d.path, agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      const decoder = new TextDecoder();
      const parser = createParser({
        onEvent: (e) => {
          if (e.event === 'system') { sysFrames += 1; dropped += Number((JSON.parse(e.data) as { count?: number }).count ?? 0); return; }
          if (e.event !== 'log') return;
          const r = JSON.parse(e.data) as { t: number; seq: number };
          if (r.seq !== last + 1) checkOutOfOrder += 1;
          last = r.seq;
          if (r.seq >= 0) { checkFrames += 1; checkLatencies.push(wallMs() - r.t); }
        },
      });
      res.on('data', (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
      resolve();
    });
    checkLast.push(() => last);
    checks.push(req);
    req.on('error', reject);
    req.end();
  });
  const checkLast: (() => number)[] = [];

  function progress(target: number): ClientsProgress {
    let reached = 0;
    for (const c of cheap) if (c.status === 'ok' && c.done >= target) reached += 1;
    for (const last of checkLast) if (last() >= target) reached += 1;
    return { reached, clients: cheap.length + checks.length, systemFrames: sysFrames, dropped };
  }

  void (async () => {
    for (let i = 0; i < d.count; i += 50) {
      const batch: Promise<void>[] = [];
      for (let k = i; k < Math.min(d.count, i + 50); k++) batch.push((d.first + k) % d.checkEvery === d.checkEvery >> 1 ? openCheck() : openCheap(k));
      await Promise.all(batch);
    }
    const bad = cheap.filter((c) => c.status === 'bad').length;
    if (bad > 0) throw new Error(`${bad} clients were not answered 200`);
    let elu0 = performance.eventLoopUtilization();
    port.on('message', (m: ToClients) => {
      if (m.type === 'start') {
        elu0 = performance.eventLoopUtilization();
        bytes = 0;
        sysFrames = 0;
        dropped = 0;
        for (const c of cheap) c.bytes = 0;
        port.postMessage({ type: 'started' } satisfies FromClients);
      }
      if (m.type === 'progress') {
        port.postMessage({ type: 'progress', ...progress(m.target) } satisfies FromClients);
      }
      if (m.type === 'final') {
        const elu = performance.eventLoopUtilization(elu0).utilization;
        const each = cheap.map((c) => c.bytes);
        const cheapReached = cheap.map((c) => c.status === 'ok' && c.done >= m.target);
        const checkReached = checkLast.filter((last) => last() >= m.target).length;
        port.postMessage({
          type: 'final', ...progress(m.target), histogram, lines, maxMs, bytes, clientBytesMin: Math.min(...each), clientBytesMax: Math.max(...each),
          cheapBytes: each, cheapReached, checkReached, unstamped, checkFrames, checkOutOfOrder, checkLatencies, elu,
        } satisfies FromClients);
      }
      if (m.type === 'close') {
        for (const c of cheap) c.socket.destroy();
        for (const r of checks) r.destroy();
        port.close();
      }
    });
    port.postMessage({ type: 'connected' } satisfies FromClients);
  })();
}

if (parentPort !== null && workerData !== null) runClients(workerData as LogClientsData);
