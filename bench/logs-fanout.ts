/**
 * /logs fan-out: N SSE clients on one agent's log while `rate` lines/s are appended for `seconds`,
 * served (a) by the real route over the shared tailer registry (one reader per file) and (b) by the
 * same route over a naive private tailer per client (each client its own fs.watch, descriptor and
 * reads; written below), in the same run, one after the other.
 *
 * The server runs in a child process, so its CPU (process.cpuUsage, user + system, from the first
 * appended line until every client has had the last one) is not mixed with the clients'. The
 * clients run in two worker threads of the parent, the appender on its main thread; every appended
 * line carries its append time (`t`, performance.timeOrigin + now(): wall-clock based, comparable
 * across threads), so latency is append → parsed by a client. Every 25th client parses all frames
 * with eventsource-parser and feeds the latency figures; the others count bytes. "client CPU" is
 * the whole parent process (appender + client threads).
 *
 * Each side first gets one second of the same load as a warm-up, not counted.
 * The shared side runs with the registry's defaults (including its fan-out linger, see
 * file-tailer.ts). The naive side cannot keep up at 1,000 clients on two cores: it is cut off 30 s
 * after the last append, so its CPU figure is a lower bound and its latency is queueing.
 * A client costs one descriptor here and one (naive: two) in the server; past `ulimit -n` the bench
 * says so and runs with as many clients as fit.
 *
 *   node --import tsx bench/logs-fanout.ts [--clients 1000] [--rate 1000] [--seconds 10] [--only shared|naive]
 *   BENCH_CPU_PROF=/tmp/prof node --import tsx bench/logs-fanout.ts --only shared   # server CPU profile
 *   BENCH_LINGER_MS=20 node --import tsx bench/logs-fanout.ts --only shared        # another fan-out linger
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, watch, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { createParser } from 'eventsource-parser';
import { systemClock } from '../src/core/clock.js';
import { createLogsRoute } from '../src/control-plane/routes/logs-route.js';
import { createTailerRegistry } from '../src/logs/file-tailer.js';
import type { Subscription, TailLine, TailListener } from '../src/logs/tail-types.js';

type Mode = 'shared' | 'naive';

interface ServerResult {
  cpuMs: number; wallMs: number; rssMb: number;
  /** Append → the shared reader hands the line to its first subscriber (watch, linger, read, split), p50/p99 ms. */
  readP50Ms: number; readP99Ms: number;
  /** First subscriber handed a batch → the turn after the last one was (the fan-out: frames, every socket's write), p50/p99/max ms. */
  fanoutP50Ms: number; fanoutP99Ms: number; fanoutMaxMs: number;
}

interface ModeResult {
  mode: Mode;
  serverCpuMs: number;
  serverCpuPct: number;
  clientCpuMs: number;
  wallMs: number;
  serverRssMb: number;
  lines: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Clients that got every line (sampled: every frame parsed; others: as many bytes as a sampled one). */
  completeClients: number;
  clients: number;
  sampledFrames: number;
  sampledExpected: number;
  /** Sum of `dropped` counts seen by sampled clients. */
  dropped: number;
  /** Server CPU per delivered frame (deliveries estimated from the sampled clients), in µs. */
  cpuUsPerFrame: number;
  /** Where the latency is spent on the server (see ServerResult); the rest is the sockets and the clients. */
  readP50Ms: number; readP99Ms: number;
  fanoutP50Ms: number; fanoutP99Ms: number; fanoutMaxMs: number;
}

const now = (): number => performance.timeOrigin + performance.now();

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
        cpuMs: (d.user + d.system) / 1000, wallMs: performance.now() - t0, rssMb: process.memoryUsage().rss / 2 ** 20,
        readP50Ms: ms(percentile(readDelays, 50)), readP99Ms: ms(percentile(readDelays, 99)),
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

/** Every SAMPLE_EVERY-th client parses its frames (latency, completeness); parsing all would saturate the client side. */
const SAMPLE_EVERY = 25;
/** Client threads: the clients of one process share its event loop; two spread them over both cores. */
const CLIENT_THREADS = 2;

interface ClientCounts { bytes: number; frames: number; warm: number; dropped: number; sampled: boolean }
type ToClients = { type: 'progress' } | { type: 'final' } | { type: 'reset' } | { type: 'close' };
type FromClients =
  | { type: 'connected' }
  | { type: 'reset' }
  | { type: 'progress'; counts: ClientCounts[] }
  | { type: 'final'; counts: ClientCounts[]; latencies: number[] };

/** A client thread: `count` SSE clients; sampled ones parse every frame with eventsource-parser. */
async function runClients(port: number, first: number, count: number): Promise<void> {
  const port2 = parentPort!;
  const reqs: ClientRequest[] = [];
  const counts: ClientCounts[] = [];
  const latencies: number[] = [];
  const connect = (k: number): Promise<void> => new Promise((resolve, reject) => {
    const c: ClientCounts = { bytes: 0, frames: 0, warm: 0, dropped: 0, sampled: k % SAMPLE_EVERY === 0 };
    counts.push(c);
    const req = request({ host: '127.0.0.1', port, path: '/logs?agent=bench', agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      // Every client of one agent gets the same bytes: an unsampled client is complete when it has
      // as many as a sampled client that parsed every frame.
      res.on('data', (d: Buffer) => { c.bytes += d.length; });
      if (c.sampled) {
        const decoder = new TextDecoder();
        const parser = createParser({
          onEvent: (e) => {
            if (e.event === 'log') {
              const r = JSON.parse(e.data) as { t: number; seq: number };
              if (r.seq >= 0) { c.frames += 1; latencies.push(now() - r.t); } // negative: warm-up lines
              else c.warm += 1;
            }
            if (e.event === 'system') c.dropped += Number((JSON.parse(e.data) as { count?: number }).count ?? 0);
          },
        });
        res.on('data', (d: Buffer) => parser.feed(decoder.decode(d, { stream: true })));
      }
      resolve();
    });
    reqs.push(req);
    req.on('error', reject);
    req.end();
  });
  for (let i = 0; i < count; i += 50) {
    const batch: Promise<void>[] = [];
    for (let k = i; k < Math.min(count, i + 50); k++) batch.push(connect(first + k));
    await Promise.all(batch);
  }
  port2.on('message', (m: ToClients) => {
    if (m.type === 'progress') port2.postMessage({ type: 'progress', counts } satisfies FromClients);
    if (m.type === 'final') port2.postMessage({ type: 'final', counts, latencies } satisfies FromClients);
    if (m.type === 'reset') {
      for (const c of counts) { c.bytes = 0; c.frames = 0; c.dropped = 0; }
      latencies.length = 0;
      port2.postMessage({ type: 'reset' } satisfies FromClients);
    }
    if (m.type === 'close') { for (const r of reqs) r.destroy(); port2.close(); }
  });
  port2.postMessage({ type: 'connected' } satisfies FromClients);
}

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

async function runMode(mode: Mode, dir: string, clients: number, rate: number, seconds: number): Promise<ModeResult> {
  const file = join(dir, `${mode}.log`);
  writeFileSync(file, '');
  const self = fileURLToPath(import.meta.url);
  const prof = process.env.BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), '--import', 'tsx', self, '--serve', mode, '--file', file],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const workers: Worker[] = [];
  try {
    const { port } = await nextMessage<{ port: number }>(child, 'ready');
    const per = Math.ceil(clients / CLIENT_THREADS);
    for (let first = 0; first < clients; first += per) {
      // Node 20 workers do not inherit `--import tsx`: register tsx's loader in the worker, then load this file.
      const boot = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(import.meta.url)}); })`;
      const w = new Worker(boot, { eval: true, workerData: { port, first, count: Math.min(per, clients - first) } });
      workers.push(w);
      await fromWorker(w, 'connected');
    }
    for (let s = 0; (await ask<{ subscribers: number }>(child, 'stats', 'stats')).subscribers < clients; s++) {
      if (s > 500) throw new Error('clients did not all subscribe');
      await new Promise((r) => setTimeout(r, 20));
    }
    await ask(child, 'probe', 'probing');
    await new Promise((r) => setTimeout(r, 300));
    return await measure(child, workers, file, rate, seconds, mode);
  } finally {
    await Promise.all(workers.map((w) => new Promise((r) => { w.once('exit', r); w.postMessage({ type: 'close' } satisfies ToClients); })));
    const exited = new Promise((r) => child.once('exit', r));
    if (child.connected) child.send({ type: 'exit' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** Clients that got every line: sampled ones parsed all frames, the others have as many bytes. */
function completeCount(counts: ClientCounts[], total: number): number {
  const sampled = counts.filter((c) => c.sampled);
  if (!sampled.every((c) => c.frames + c.dropped >= total)) return 0;
  const full = Math.max(...sampled.map((c) => c.bytes));
  return counts.filter((c) => c.bytes >= full).length;
}

/** Appends `count` lines at `rate` lines/s, each stamped with its append time. */
async function append(fd: number, rate: number, count: number, firstSeq: number): Promise<void> {
  const t0 = performance.now();
  let written = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(count, Math.floor(((performance.now() - t0) / 1000) * rate));
      let chunk = '';
      for (; written < due; written++) {
        chunk += JSON.stringify({ agentId: 'bench', ts: new Date().toISOString(), level: 'info', event: 'bench.tick', seq: firstSeq + written, t: now() }) + '\n';
      }
      if (chunk !== '') writeSync(fd, chunk);
      if (written >= count) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
}

async function measure(child: ChildProcess, workers: Worker[], file: string, rate: number, seconds: number, mode: Mode): Promise<ModeResult> {
  const fd = openSync(file, 'a');
  const total = rate * seconds;
  // Warm-up (JIT, buffers, connection state): one second of the same load, delivered (or 20 s
  // passed), then the counts start over.
  const warm = rate;
  await append(fd, rate, warm, -warm);
  const warmDeadline = performance.now() + 20_000;
  const progress = async (): Promise<ClientCounts[]> =>
    (await Promise.all(workers.map((w) => fromWorker(w, 'progress', { type: 'progress' })))).flatMap((m) => m.counts);
  while (performance.now() < warmDeadline && !(await progress()).every((c) => !c.sampled || c.warm + c.dropped >= warm)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 200));
  await Promise.all(workers.map((w) => fromWorker(w, 'reset', { type: 'reset' })));
  await ask(child, 'start', 'started');
  const cpu0 = process.cpuUsage();
  await append(fd, rate, total, 0);
  closeSync(fd);
  const deadline = performance.now() + 30_000;
  let counts = await progress();
  while (performance.now() < deadline && completeCount(counts, total) < counts.length) {
    await new Promise((r) => setTimeout(r, 100));
    counts = await progress();
  }
  const { result } = await ask<{ result: ServerResult }>(child, 'stop', 'result');
  const clientCpu = process.cpuUsage(cpu0);
  const finals = await Promise.all(workers.map((w) => fromWorker(w, 'final', { type: 'final' })));
  counts = finals.flatMap((m) => m.counts);
  const lat = finals.flatMap((m) => m.latencies).sort((a, b) => a - b);
  const sampled = counts.filter((c) => c.sampled);
  return {
    mode,
    serverCpuMs: Math.round(result.cpuMs),
    serverCpuPct: Math.round((result.cpuMs / result.wallMs) * 1000) / 10,
    clientCpuMs: Math.round((clientCpu.user + clientCpu.system) / 1000),
    wallMs: Math.round(result.wallMs),
    serverRssMb: Math.round(result.rssMb),
    lines: total,
    p50Ms: Math.round(percentile(lat, 50) * 100) / 100,
    p99Ms: Math.round(percentile(lat, 99) * 100) / 100,
    maxMs: Math.round((lat[lat.length - 1] ?? Number.NaN) * 100) / 100,
    completeClients: completeCount(counts, total),
    clients: counts.length,
    sampledFrames: sampled.reduce((s, c) => s + c.frames, 0),
    sampledExpected: total * sampled.length,
    dropped: sampled.reduce((s, c) => s + c.dropped, 0),
    cpuUsPerFrame: Math.round((result.cpuMs * 1000 / Math.max(1, (sampled.reduce((s, c) => s + c.frames, 0) / sampled.length) * counts.length)) * 100) / 100,
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

async function main(): Promise<void> {
  const { values } = parseArgs({ options: {
    clients: { type: 'string', default: '1000' }, rate: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' },
    // For profiling one side: `--only shared` (then no ratios are printed).
    only: { type: 'string' },
  } });
  const wanted = Number(values.clients);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const limit = fdLimit();
  const clients = Math.min(wanted, Math.floor((limit - 256) / 2));
  if (clients < wanted) console.error(`ulimit -n is ${limit}: running ${clients} clients instead of ${wanted}`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-logs-'));
  try {
    if (values.only === 'shared' || values.only === 'naive') {
      console.log(JSON.stringify(await runMode(values.only, dir, clients, rate, seconds)));
      return;
    }
    const shared = await runMode('shared', dir, clients, rate, seconds);
    const naive = await runMode('naive', dir, clients, rate, seconds);
    const out = {
      bench: 'logs-fanout', clients, wantedClients: wanted, fdLimit: limit, rate, seconds, shared, naive,
      cpuRatio: Math.round((naive.serverCpuMs / shared.serverCpuMs) * 100) / 100,
      cpuPerFrameRatio: Math.round((naive.cpuUsPerFrame / shared.cpuUsPerFrame) * 100) / 100,
      p50Ratio: Math.round((naive.p50Ms / shared.p50Ms) * 100) / 100,
      p99Ratio: Math.round((naive.p99Ms / shared.p99Ms) * 100) / 100,
    };
    console.log(JSON.stringify(out));
    const line = (r: ModeResult) => `${r.mode}: server CPU ${r.serverCpuMs} ms (${r.serverCpuPct}% of a core over ${r.wallMs} ms, ${r.cpuUsPerFrame} µs per delivered frame), ` +
      `latency p50 ${r.p50Ms} ms p99 ${r.p99Ms} ms max ${r.maxMs} ms` +
      (r.mode === 'shared' ? ` (of it: read p50/p99 ${r.readP50Ms}/${r.readP99Ms} ms, fan-out p50/p99/max ${r.fanoutP50Ms}/${r.fanoutP99Ms}/${r.fanoutMaxMs} ms)` : '') +
      `, client CPU ${r.clientCpuMs} ms, ${r.completeClients}/${r.clients} clients got every line (sampled: ${r.sampledFrames}/${r.sampledExpected} frames, ${r.dropped} reported dropped), server rss ${r.serverRssMb} MB`;
    console.log(`logs-fanout: ${clients} clients, ${rate} lines/s for ${seconds} s on one agent`);
    console.log(`  ${line(shared)}`);
    console.log(`  ${line(naive)}`);
    console.log(`  naive/shared: CPU x${out.cpuRatio} (per delivered frame x${out.cpuPerFrameRatio}), p50 x${out.p50Ratio}, p99 x${out.p99Ratio}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values: cli } = parseArgs({ options: { serve: { type: 'string' }, file: { type: 'string' } }, strict: false });
const asClients = workerData as { port: number; first: number; count: number } | null;
if (!isMainThread && asClients !== null) void runClients(asClients.port, asClients.first, asClients.count);
else if (typeof cli.serve === 'string' && typeof cli.file === 'string') void serve(cli.serve as Mode, cli.file);
else void main();
