/**
 * /logs fan-out: N SSE clients on one agent's log while `rate` lines/s are appended for `seconds`,
 * served (a) by the real route over the shared tailer registry (one reader per file) and (b) by the
 * same route over a naive private tailer per client (each client its own fs.watch, descriptor and
 * reads; written below), in the same run, one after the other.
 *
 * The server runs in a child process, so its CPU (process.cpuUsage, user + system, from the first
 * appended line until every client has had the last one) is not mixed with the clients'. The
 * clients run in worker threads of the parent (bench/lib/log-clients.ts), the appender on its main
 * thread. The clients are cheap on purpose, so that the generator is not what is measured: raw
 * sockets reading into one shared buffer per thread, a few native searches per read, no frame
 * decoded. Latency is per line and end to end: the appender notes each line's append time in a table
 * shared with the client threads (indexed by the line's `seq`) just before it writes the line; a
 * client's read that completes lines up to `seq` n counts, for each line since its previous read,
 * the time of that read minus the line's append time. Every 250th client parses every frame with
 * eventsource-parser and takes latency from the `t` in the line instead (check p50/p99): the same
 * figures by the old method. "client CPU" is the whole parent process (appender + client threads),
 * per delivered line, with each client thread's event-loop utilization (how busy it was).
 *
 * Each side first gets one second of the same load as a warm-up, not counted.
 * The shared side runs with the registry's defaults (including its fan-out linger, see
 * file-tailer.ts). The naive side cannot keep up at 1,000 clients on two cores: it is cut off 30 s
 * after the last append, so its CPU figure is a lower bound and its latency is queueing.
 * A client costs one descriptor here and one (naive: two) in the server; past `ulimit -n` the bench
 * says so and runs with as many clients as fit.
 *
 *   node --import tsx bench/logs-fanout.ts [--clients 1000] [--rate 1000] [--seconds 10] [--threads 2] [--only shared|naive]
 *   BENCH_CPU_PROF=/tmp/prof node --import tsx bench/logs-fanout.ts --only shared   # server CPU profile
 *   BENCH_LINGER_MS=20 node --import tsx bench/logs-fanout.ts --only shared        # another fan-out linger
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, watch, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { systemClock } from '../src/core/clock.js';
import { createLogsRoute } from '../src/control-plane/routes/logs-route.js';
import { createTailerRegistry } from '../src/logs/file-tailer.js';
import type { Subscription, TailLine, TailListener } from '../src/logs/tail-types.js';
import { HIST_PER_MS, monotonicMs, wallMs } from './lib/log-clients.js';
import type { ClientsFinal, ClientsProgress, FromClients, LogClientsData, ToClients } from './lib/log-clients.js';

type Mode = 'shared' | 'naive';

interface ServerResult {
  cpuMs: number; sysMs: number; wallMs: number; rssMb: number;
  /** Append → the shared reader hands the line to its first subscriber (watch, linger, read, split), p50/p99 ms. */
  readP50Ms: number; readP99Ms: number;
  /** First subscriber handed a batch → the turn after the last one was (the fan-out: frames, every socket's write), p50/p99/max ms. */
  fanoutP50Ms: number; fanoutP99Ms: number; fanoutMaxMs: number;
  /** Batches the shared reader handed out while measuring (each is one socket write per client). */
  batches: number;
}

interface ModeResult {
  mode: Mode;
  serverCpuMs: number;
  serverCpuPct: number;
  /** Of serverCpuPct, in the kernel (the sends). */
  serverSysPct: number;
  clientCpuMs: number;
  clientCpuPct: number;
  /** Of clientCpuPct, in the kernel (receives, ACKs). */
  clientSysPct: number;
  /** Client-side CPU (the whole parent process) per delivered line, in µs. */
  clientUsPerLine: number;
  clientThreads: number;
  /** Event-loop utilization of each client thread while measuring. */
  clientElu: number[];
  wallMs: number;
  serverRssMb: number;
  lines: number;
  /** Append → received, every line at every cheap client (a histogram of 10 µs buckets). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The same from the check clients, from the `t` in each parsed line. */
  checkP50Ms: number;
  checkP99Ms: number;
  /** Clients whose newest complete line was the last one appended. */
  completeClients: number;
  clients: number;
  /** Lines received, summed over clients, and what every client getting every line would be. */
  delivered: number;
  expected: number;
  checkClients: number;
  /** Must be 0: check-client frames out of order, lines without an append time. */
  checkOutOfOrder: number;
  unstamped: number;
  /** Fewest and most bytes one cheap client received while measuring (equal: every one got the same stream). */
  clientBytesMin: number;
  clientBytesMax: number;
  /** `event: system` frames seen by the check clients, and the sum of their `dropped` counts. */
  systemFrames: number;
  dropped: number;
  /** Server CPU per delivered line, in µs. */
  cpuUsPerFrame: number;
  /** Shared side: batches handed out per second, and server CPU per socket write (batch × client), in µs. */
  batchesPerSecond: number;
  cpuUsPerWrite: number;
  /** Where the latency is spent on the server (see ServerResult); the rest is the sockets and the clients. */
  readP50Ms: number; readP99Ms: number;
  fanoutP50Ms: number; fanoutP99Ms: number; fanoutMaxMs: number;
}

const now = wallMs;

// ---------------------------------------------------------------------------------------------
// Naive baseline: one private tailer per subscriber (own fs.watch on the file, own descriptor,
// own reads and line splitting), behind the same interface the route uses.
// ---------------------------------------------------------------------------------------------
function createPrivateTailers(): { subscribe(path: string, l: TailListener): Subscription; stats(): { subscribers: number } } {
  let subscribers = 0;
  return {
    stats: () => ({ subscribers }),
    subscribe(path, listener) {
      subscribers += 1;
      let closed = false;
      let reading = false;
      let again = false;
      let pos = 0;
      let ino = 0;
      let rest = Buffer.alloc(0);
      const buf = Buffer.allocUnsafe(64 * 1024);
      // Open, start at the end (the bench appends whole lines only, so the end is a line boundary).
      const ready = open(path, 'r').then(async (fh) => {
        const st = await fh.stat();
        ino = st.ino;
        pos = st.size;
        listener.start({ ino, end: pos, len: 0, crc: 0 });
        return fh;
      });
      const w = watch(path, () => { void pump(); });
      async function pump(): Promise<void> {
        if (reading) { again = true; return; }
        reading = true;
        const fh = await ready;
        do {
          again = false;
          const { size } = await fh.stat();
          while (!closed && pos < size) {
            const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
            if (bytesRead === 0) break;
            const data = Buffer.concat([rest, buf.subarray(0, bytesRead)]);
            const base = pos - rest.length;
            pos += bytesRead;
            const batch: TailLine[] = [];
            let i = 0;
            for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, i)) {
              batch.push({ text: data.toString('utf8', i, nl), start: base + i, end: base + nl + 1, ino, crc: crc32(data.subarray(i, nl + 1)), tooLong: false });
              i = nl + 1;
            }
            rest = Buffer.from(data.subarray(i));
            if (batch.length > 0 && !closed) listener.lines(batch);
          }
        } while (again && !closed);
        reading = false;
        if (closed) await fh.close();
      }
      return {
        unsubscribe() {
          if (closed) return;
          closed = true;
          subscribers -= 1;
          w.close();
          if (!reading) void ready.then((fh) => fh.close());
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Server side (child process).
// ---------------------------------------------------------------------------------------------
async function serve(mode: Mode, file: string): Promise<void> {
  // BENCH_LINGER_MS: a fixed fan-out linger instead of the registry's default, to weigh latency against CPU.
  const linger = process.env.BENCH_LINGER_MS;
  const shared = createTailerRegistry({ clock: systemClock, ...(linger !== undefined ? { lingerMs: () => Number(linger) } : {}) });
  const naive = createPrivateTailers();
  const tailers = mode === 'shared' ? shared : { subscribe: (p: string, l: TailListener) => naive.subscribe(p, l) };
  const stats = () => (mode === 'shared' ? shared.stats().subscribers : naive.stats().subscribers) - probes.length;
  const route = createLogsRoute({ agents: () => ['bench'], logPath: () => file, tailers, clock: systemClock });
  // Shared mode only: two probes on the same reader: one subscribed before every client (handed each batch first), one
  // after them all (handed it last). Read delay = first probe's time − the line's append time; fan-out
  // = the turn after the last probe was handed it − first probe's time. Not counted as clients.
  const readDelays: number[] = [];
  let batches = 0;
  const fanouts: number[] = [];
  let firstAt = 0;
  let measuring = false;
  const probe = (onLines: (batch: readonly TailLine[]) => void): TailListener =>
    ({ start() {}, lines: onLines, notice() {}, error() {} });
  const probes: Subscription[] = [];
  if (mode === 'shared') {
    probes.push(tailers.subscribe(file, probe((batch) => {
      firstAt = now();
      if (!measuring) return;
      batches += 1;
      for (const line of batch) readDelays.push(firstAt - (JSON.parse(line.text) as { t: number }).t);
    }), { fromStart: false }));
  }
  const lastProbe = (): void => {
    // At the next setImmediate: socket writes a response deferred to the next tick (its cork) are done by then.
    if (mode === 'shared') {
      probes.push(tailers.subscribe(file, probe(() => {
        const first = firstAt;
        if (measuring) setImmediate(() => fanouts.push(now() - first));
      }), { fromStart: false }));
    }
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    void route({ req, res, url, signal: ac.signal, principal: { expiresAtMs: null } });
  });
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, r));
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') process.send!({ type: 'stats', subscribers: stats() });
    if (m.type === 'probe') { lastProbe(); process.send!({ type: 'probing' }); }
    if (m.type === 'start') { cpu0 = process.cpuUsage(); t0 = performance.now(); measuring = true; process.send!({ type: 'started' }); }
    if (m.type === 'stop') {
      const d = process.cpuUsage(cpu0);
      measuring = false;
      readDelays.sort((a, b) => a - b);
      fanouts.sort((a, b) => a - b);
      const ms = (v: number): number => Math.round(v * 100) / 100;
      const result: ServerResult = {
        cpuMs: (d.user + d.system) / 1000, sysMs: d.system / 1000, wallMs: performance.now() - t0, rssMb: process.memoryUsage().rss / 2 ** 20,
        batches, readP50Ms: ms(percentile(readDelays, 50)), readP99Ms: ms(percentile(readDelays, 99)),
        fanoutP50Ms: ms(percentile(fanouts, 50)), fanoutP99Ms: ms(percentile(fanouts, 99)), fanoutMaxMs: ms(fanouts[fanouts.length - 1] ?? Number.NaN),
      };
      process.send!({ type: 'result', result });
    }
    if (m.type === 'exit') process.exit(0); // a normal exit, so --cpu-prof can write its profile
  });
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
}

// ---------------------------------------------------------------------------------------------
// Clients and appender (parent process).
// ---------------------------------------------------------------------------------------------
function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (m: { type: string } & T) => { if (m.type === type) { child.off('message', on); child.off('exit', onExit); resolve(m); } };
    const onExit = () => reject(new Error(`server exited while waiting for ${type}`));
    child.on('message', on);
    child.once('exit', onExit);
  });
}

function ask<T>(child: ChildProcess, type: string, answer: string): Promise<T> {
  const reply = nextMessage<T>(child, answer);
  child.send({ type });
  return reply;
}

/** Every CHECK_EVERY-th client parses every frame (node:http, eventsource-parser): a cross-check of the cheap clients. */
const CHECK_EVERY = 250;

function fromWorker<T extends FromClients['type']>(w: Worker, type: T, send?: ToClients): Promise<Extract<FromClients, { type: T }>> {
  return new Promise((resolve, reject) => {
    const on = (m: FromClients) => { if (m.type === type) { w.off('message', on); w.off('error', reject); resolve(m as Extract<FromClients, { type: T }>); } };
    w.on('message', on);
    w.once('error', reject);
    if (send !== undefined) w.postMessage(send);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Clients that got every line: check clients whose last parsed line is the last one (they parse every
 * frame), and cheap clients with the last line and, on the shared side, as many bytes as the most any
 * client received (a drop notice or a missing line makes a client's bytes fewer: the shared reader
 * writes each batch to every client, so every client of one agent gets the same stream). Not on the
 * naive side: each private tailer chunks the lines as its own reads found them, so the chunked
 * coding's framing, and with it the bytes, differ from client to client with every line there.
 */
function completeClients(finals: readonly ClientsFinal[], mode: Mode): number {
  const most = Math.max(...finals.map((f) => f.clientBytesMax));
  let n = 0;
  for (const f of finals) {
    n += f.checkReached;
    f.cheapBytes.forEach((bytes, i) => { if (f.cheapReached[i] === true && (mode === 'naive' || bytes === most)) n += 1; });
  }
  return n;
}

/** The p-th percentile of a histogram of 1/HIST_PER_MS ms buckets, in ms. */
function histogramPercentile(h: Uint32Array, total: number, p: number): number {
  if (total === 0) return Number.NaN;
  const rank = Math.min(total - 1, Math.floor((p / 100) * total));
  let seen = 0;
  for (let i = 0; i < h.length; i++) {
    seen += h[i]!;
    if (seen > rank) return i / HIST_PER_MS;
  }
  return Number.NaN;
}

async function runMode(mode: Mode, dir: string, clients: number, rate: number, seconds: number, threads: number): Promise<ModeResult> {
  const file = join(dir, `${mode}.log`);
  writeFileSync(file, '');
  const self = fileURLToPath(import.meta.url);
  const prof = process.env.BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), '--import', 'tsx', self, '--serve', mode, '--file', file],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const workers: Worker[] = [];
  const warm = rate;
  const appendTimes = new SharedArrayBuffer(8 * (warm + rate * seconds));
  try {
    const { port } = await nextMessage<{ port: number }>(child, 'ready');
    const per = Math.ceil(clients / threads);
    const clientsUrl = new URL('./lib/log-clients.ts', import.meta.url).href;
    for (let first = 0; first < clients; first += per) {
      // Node 20 workers do not inherit `--import tsx`: register tsx's loader in the worker, then load the clients.
      const boot = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(clientsUrl)}); })`;
      const workerData: LogClientsData = {
        port, path: '/logs?agent=bench', first, count: Math.min(per, clients - first), appendTimes, seqBase: warm, checkEvery: CHECK_EVERY,
      };
      const w = new Worker(boot, { eval: true, workerData });
      workers.push(w);
      await fromWorker(w, 'connected');
    }
    for (let s = 0; (await ask<{ subscribers: number }>(child, 'stats', 'stats')).subscribers < clients; s++) {
      if (s > 500) throw new Error('clients did not all subscribe');
      await new Promise((r) => setTimeout(r, 20));
    }
    await ask(child, 'probe', 'probing');
    await new Promise((r) => setTimeout(r, 300));
    return await measure(child, workers, file, new Float64Array(appendTimes), { rate, seconds, warm, mode, threads });
  } finally {
    await Promise.all(workers.map((w) => new Promise((r) => { w.once('exit', r); w.postMessage({ type: 'close' } satisfies ToClients); })));
    const exited = new Promise((r) => child.once('exit', r));
    if (child.connected) child.send({ type: 'exit' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Appends `count` lines at `rate` lines/s, seq from `firstSeq`; each line carries its append time
 * `t` (wallMs, for the server's probes and the check clients), and the same moment on the monotonic
 * clock goes into `appendAt[seq + seqBase]` before the write (for the cheap clients).
 */
async function append(fd: number, rate: number, count: number, firstSeq: number, appendAt: Float64Array, seqBase: number): Promise<void> {
  const t0 = performance.now();
  let written = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(count, Math.floor(((performance.now() - t0) / 1000) * rate));
      let chunk = '';
      const at = monotonicMs();
      const t = wallMs();
      for (; written < due; written++) {
        const seq = firstSeq + written;
        appendAt[seq + seqBase] = at;
        chunk += JSON.stringify({ agentId: 'bench', ts: new Date().toISOString(), level: 'info', event: 'bench.tick', seq, t }) + '\n';
      }
      if (chunk !== '') writeSync(fd, chunk);
      if (written >= count) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
}

interface MeasureOptions { rate: number; seconds: number; warm: number; mode: Mode; threads: number }

async function measure(child: ChildProcess, workers: Worker[], file: string, appendAt: Float64Array, o: MeasureOptions): Promise<ModeResult> {
  const fd = openSync(file, 'a');
  const total = o.rate * o.seconds;
  const progress = async (target: number): Promise<ClientsProgress> => {
    const all = await Promise.all(workers.map((w) => fromWorker(w, 'progress', { type: 'progress', target })));
    const sum = (k: keyof ClientsProgress): number => all.reduce((s, m) => s + m[k], 0);
    return { reached: sum('reached'), clients: sum('clients'), systemFrames: sum('systemFrames'), dropped: sum('dropped') };
  };
  // Warm-up (JIT, buffers, connection state): one second of the same load (seq -warm..-1), delivered
  // (or 20 s passed), not counted.
  await append(fd, o.rate, o.warm, -o.warm, appendAt, o.warm);
  const warmDeadline = performance.now() + 20_000;
  for (let p = await progress(-1); performance.now() < warmDeadline && p.reached + p.systemFrames < p.clients; p = await progress(-1)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 200));
  await Promise.all(workers.map((w) => fromWorker(w, 'started', { type: 'start' })));
  await ask(child, 'start', 'started');
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await append(fd, o.rate, total, 0, appendAt, o.warm);
  closeSync(fd);
  const deadline = performance.now() + 30_000;
  for (let p = await progress(total - 1); performance.now() < deadline && p.reached < p.clients; p = await progress(total - 1)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const { result } = await ask<{ result: ServerResult }>(child, 'stop', 'result');
  const clientCpu = process.cpuUsage(cpu0);
  const clientWall = performance.now() - wall0;
  const finals = await Promise.all(workers.map((w) => fromWorker(w, 'final', { type: 'final', target: total - 1 })));
  const histogram = new Uint32Array(finals[0]!.histogram.length);
  for (const f of finals) for (let i = 0; i < histogram.length; i++) histogram[i]! += f.histogram[i]!;
  const lines = finals.reduce((s, f) => s + f.lines, 0);
  const check = finals.flatMap((f) => f.checkLatencies).sort((a, b) => a - b);
  // As the client threads chose them (client index ≡ CHECK_EVERY / 2): none below 126 clients.
  const checkClients = finals.reduce((s, f) => s + f.clients - f.cheapBytes.length, 0);
  const clients = finals.reduce((s, f) => s + f.clients, 0);
  const delivered = lines + finals.reduce((s, f) => s + f.checkFrames, 0);
  const clientCpuMs = (clientCpu.user + clientCpu.system) / 1000;
  const round = (v: number, d = 100): number => Math.round(v * d) / d;
  return {
    mode: o.mode,
    serverCpuMs: Math.round(result.cpuMs),
    serverCpuPct: round((result.cpuMs / result.wallMs) * 100, 10),
    serverSysPct: round((result.sysMs / result.wallMs) * 100, 10),
    clientCpuMs: Math.round(clientCpuMs),
    clientCpuPct: round((clientCpuMs / clientWall) * 100, 10),
    clientSysPct: round((clientCpu.system / 1000 / clientWall) * 100, 10),
    clientUsPerLine: round((clientCpuMs * 1000) / Math.max(1, delivered), 1000),
    clientThreads: o.threads,
    clientElu: finals.map((f) => round(f.elu)),
    wallMs: Math.round(result.wallMs),
    serverRssMb: Math.round(result.rssMb),
    lines: total,
    p50Ms: round(histogramPercentile(histogram, lines, 50)),
    p99Ms: round(histogramPercentile(histogram, lines, 99)),
    maxMs: round(Math.max(...finals.map((f) => f.maxMs))),
    checkP50Ms: round(percentile(check, 50)),
    checkP99Ms: round(percentile(check, 99)),
    completeClients: completeClients(finals, o.mode),
    clients,
    delivered,
    expected: total * clients,
    checkClients,
    checkOutOfOrder: finals.reduce((s, f) => s + f.checkOutOfOrder, 0),
    unstamped: finals.reduce((s, f) => s + f.unstamped, 0),
    clientBytesMin: Math.min(...finals.map((f) => f.clientBytesMin)),
    clientBytesMax: Math.max(...finals.map((f) => f.clientBytesMax)),
    systemFrames: finals.reduce((s, f) => s + f.systemFrames, 0),
    dropped: finals.reduce((s, f) => s + f.dropped, 0),
    cpuUsPerFrame: round((result.cpuMs * 1000) / Math.max(1, delivered)),
    batchesPerSecond: round((result.batches * 1000) / result.wallMs, 10),
    cpuUsPerWrite: round((result.cpuMs * 1000) / Math.max(1, result.batches * clients), 10),
    readP50Ms: result.readP50Ms, readP99Ms: result.readP99Ms,
    fanoutP50Ms: result.fanoutP50Ms, fanoutP99Ms: result.fanoutP99Ms, fanoutMaxMs: result.fanoutMaxMs,
  };
}

/** Each client costs a socket in this process and one in the server (plus a descriptor per client in the naive server). */
function fdLimit(): number {
  try {
    return Number(execFileSync('/bin/sh', ['-c', 'ulimit -n']).toString().trim());
  } catch {
    return 1024;
  }
}

/** The readable line of one side. */
function describe(r: ModeResult): string {
  return `${r.mode}: latency p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms max ${r.maxMs} ms (check clients: ${r.checkP50Ms}/${r.checkP99Ms})` +
    (r.mode === 'shared' ? ` (server read p50/p99 ${r.readP50Ms}/${r.readP99Ms} ms, fan-out p50/p99/max ${r.fanoutP50Ms}/${r.fanoutP99Ms}/${r.fanoutMaxMs} ms)` : '') +
    `; server CPU ${r.serverCpuMs} ms (${r.serverCpuPct}% of a core, kernel ${r.serverSysPct}%, ${r.cpuUsPerFrame} µs per delivered line` +
    (r.mode === 'shared' ? `, ${r.batchesPerSecond} batches/s, ${r.cpuUsPerWrite} µs per socket write)` : ')') +
    `; client CPU ${r.clientCpuMs} ms (${r.clientCpuPct}% of a core, kernel ${r.clientSysPct}%, ${r.clientUsPerLine} µs per delivered line, ${r.clientThreads} threads busy ${r.clientElu.join('/')})` +
    `; ${r.completeClients}/${r.clients} clients got every line (${r.delivered}/${r.expected} lines; ${r.systemFrames} system frames, ${r.dropped} dropped;` +
    ` ${r.checkOutOfOrder} out of order, ${r.unstamped} unstamped; ${r.clientBytesMin}–${r.clientBytesMax} bytes a client), server rss ${r.serverRssMb} MB`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    clients: { type: 'string', default: '1000' }, rate: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' },
    threads: { type: 'string', default: '2' },
    // For profiling one side: `--only shared` (then no ratios are printed).
    only: { type: 'string' },
  } });
  const wanted = Number(values.clients);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const threads = Number(values.threads);
  const limit = fdLimit();
  const clients = Math.min(wanted, Math.floor((limit - 256) / 2));
  if (clients < wanted) console.error(`ulimit -n is ${limit}: running ${clients} clients instead of ${wanted}`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-logs-'));
  const load = (): string => loadavg().map((v) => v.toFixed(2)).join(' ');
  try {
    const loadBefore = load();
    if (values.only === 'shared' || values.only === 'naive') {
      const r = await runMode(values.only, dir, clients, rate, seconds, threads);
      console.log(JSON.stringify({ bench: 'logs-fanout', clients, rate, seconds, loadBefore, loadAfter: load(), [values.only]: r }));
      console.log(`logs-fanout: ${clients} clients, ${rate} lines/s for ${seconds} s on one agent, load average ${loadBefore} → ${load()}`);
      console.log(`  ${describe(r)}`);
      return;
    }
    const shared = await runMode('shared', dir, clients, rate, seconds, threads);
    const naive = await runMode('naive', dir, clients, rate, seconds, threads);
    const out = {
      bench: 'logs-fanout', clients, wantedClients: wanted, fdLimit: limit, rate, seconds, loadBefore, loadAfter: load(), shared, naive,
      cpuRatio: Math.round((naive.serverCpuMs / shared.serverCpuMs) * 100) / 100,
      cpuPerFrameRatio: Math.round((naive.cpuUsPerFrame / shared.cpuUsPerFrame) * 100) / 100,
      p50Ratio: Math.round((naive.p50Ms / shared.p50Ms) * 100) / 100,
      p99Ratio: Math.round((naive.p99Ms / shared.p99Ms) * 100) / 100,
    };
    console.log(JSON.stringify(out));
    console.log(`logs-fanout: ${clients} clients, ${rate} lines/s for ${seconds} s on one agent, load average ${loadBefore} → ${out.loadAfter}`);
    console.log(`  ${describe(shared)}`);
    console.log(`  ${describe(naive)}`);
    console.log(`  naive/shared: CPU x${out.cpuRatio} (per delivered line x${out.cpuPerFrameRatio}), p50 x${out.p50Ratio}, p99 x${out.p99Ratio}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values: cli } = parseArgs({ options: { serve: { type: 'string' }, file: { type: 'string' } }, strict: false });
if (typeof cli.serve === 'string' && typeof cli.file === 'string') void serve(cli.serve as Mode, cli.file);
else void main();
