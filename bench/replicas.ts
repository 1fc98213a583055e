/**
 * Replicas on PostgreSQL against the embedded store, same run, same burst (contract §16): real
 * `svc up -d` daemons, a durable throwaway PostgreSQL cluster (fsync on, synchronous_commit on, as
 * SQLite runs synchronous=FULL), and a burst of signed alerts with unique fingerprints posted by a
 * load generator in a process of its own.
 *
 * Scenarios, each on a fresh home and database: SQLite (1 replica), PostgreSQL with 1 and with 2
 * replicas; each with the file channel and with a webhook channel whose far end answers in 50 ms.
 * Measured: accepted/s (the burst's 202s over the time to answer them all), delivered/s (the burst
 * over the time until its last message was handed to the channel), the CPU seconds per wall second
 * of the replicas, PostgreSQL and the generator (where the 2 cores went), and audit appends/s with
 * 4 concurrent writers in-process. The generator's own ceiling is measured against a bare
 * `node:http` server in the same run, so it is shown not to be the bottleneck.
 *
 *   node --import tsx bench/replicas.ts [--count 2000] [--concurrency 32]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { NewAuditEntry } from '../src/audit/audit-row.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import type { PgCluster } from '../test/support/postgres.js';
import { startPgCluster } from '../test/support/postgres.js';
import { startDaemon } from '../test/support/daemon.js';
import { startReplicas, startWebhookReceiver, webhookChannelYaml } from '../test/support/replicas.js';
import { scaffoldAgent, tempEnv } from '../test/support/svc.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const COUNT = arg('count', 2000);
const CONCURRENCY = arg('concurrency', 32);
const DISPATCH_CONCURRENCY = 8;
const WEBHOOK_DELAY_MS = 50;
const TARGET_WEBHOOK_RATIO = 1.8;

/**
 * The load generator, plain JS in a child process: pre-signs `count` unique alerts, then posts them
 * round-robin over the targets with `concurrency` in flight on keep-alive connections, and reports
 * statuses, seconds and its own CPU time.
 */
const GENERATOR = `
const http = require('node:http');
const { createHmac } = require('node:crypto');
const { targets, secret, fixture, count, concurrency, prefix } = JSON.parse(process.argv[1]);
const reqs = [];
for (let i = 0; i < count; i++) {
  const fp = prefix + '-' + i;
  const body = Buffer.from(fixture.replace('c3a1f0e29b7d4e55', fp));
  reqs.push({ body, fp, sig: 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') });
}
const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
const statuses = {};
let next = 0;
const one = (i) => new Promise((resolve) => {
  const t = i % targets.length;
  const u = new URL(targets[t]);
  const r = reqs[i];
  const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent: agents[t],
    headers: { 'content-type': 'application/json', 'content-length': r.body.length, 'x-signature': r.sig, 'x-alert-fingerprint': r.fp } }, (res) => {
    statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', () => { statuses.error = (statuses.error || 0) + 1; resolve(); });
  req.end(r.body);
});
const worker = async () => { while (next < count) await one(next++); };
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  for (const a of agents) a.destroy();
  process.stdout.write(JSON.stringify({ statuses, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 }));
});
`;

interface GeneratorResult { statuses: Record<string, number>; seconds: number; cpuSeconds: number }

function generate(targets: string[], secret: string, fixture: string, prefix: string, count = COUNT): Promise<GeneratorResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', GENERATOR, JSON.stringify({ targets, secret, fixture, count, concurrency: CONCURRENCY, prefix })],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as GeneratorResult) : reject(new Error(`generator exited ${code}`))));
  });
}

/** CPU seconds (user + system) of a process, all its threads, so far, from /proc (Linux). */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    // utime, stime are fields 14 and 15 of stat (index 11, 12 after the comm field is cut).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Pids of this cluster's server processes: the postmaster (first line of postmaster.pid) and its children. */
function postgresPids(cluster: PgCluster): number[] {
  const postmaster = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      // Field 4 of stat is the parent pid (after the parenthesised command name).
      return Number(readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]) === postmaster;
    } catch {
      return false;
    }
  }).map(Number);
  return [postmaster, ...children];
}

const sumCpu = (pids: number[]): number => pids.reduce((n, p) => n + cpuSecondsOf(p), 0);

const countLines = (path: string): number => {
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0).length;
  } catch {
    return 0;
  }
};

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What a scenario needs of a daemon: where to post, what it delivered, its pid. */
interface BenchDaemon { url: string; secret: string; fixture: string; outFile: string; pid(): number; stop(): Promise<void> }

async function sqliteDaemon(channelsYaml: string | null): Promise<BenchDaemon> {
  const d = await startDaemon({ agentYaml: `dispatch:\n  concurrency: ${DISPATCH_CONCURRENCY}`, ...(channelsYaml === null ? {} : { channelsYaml }) });
  return { ...d, outFile: join(d.dir, 'out', 'oncall-dm.jsonl') };
}

async function pgReplicas(cluster: PgCluster, db: string, n: number, channelsYaml: string | null): Promise<BenchDaemon[]> {
  return startReplicas(n, { dbUrl: await cluster.createDatabase(db), agentYaml: `dispatch:\n  concurrency: ${DISPATCH_CONCURRENCY}`,
    ...(channelsYaml === null ? {} : { channelsYaml }) });
}

interface Scenario {
  name: string;
  channel: 'file' | 'webhook';
  acceptedPerSec: number;
  deliveredPerSec: number;
  cpu: { replicas: number; postgres: number; generator: number };
  /** PostgreSQL only: transactions that held the chain head (distinct xmin of the audit rows) per second, and rows per transaction. */
  chain?: { txPerSec: number; rowsPerTx: number };
}

/** How the chain head was used: every transaction that appended holds it, so its rate is the whole system's. */
async function chainUse(cluster: PgCluster, db: string, seconds: number): Promise<Scenario['chain']> {
  const [row] = await cluster.query<{ tx: string; rows: string }>(db, 'SELECT count(DISTINCT xmin::text) AS tx, count(*) AS rows FROM audit');
  const tx = Number(row?.tx ?? 0);
  return { txPerSec: Math.round(tx / seconds), rowsPerTx: Math.round((Number(row?.rows ?? 0) / Math.max(1, tx)) * 10) / 10 };
}

async function runScenario(cluster: PgCluster, name: string, channel: 'file' | 'webhook', start: (channelsYaml: string | null) => Promise<BenchDaemon[]>,
  chainOf?: (seconds: number) => Promise<Scenario['chain']>): Promise<Scenario> {
  const receiver = channel === 'webhook' ? await startWebhookReceiver(WEBHOOK_DELAY_MS) : null;
  const daemons = await start(receiver === null ? null : webhookChannelYaml(receiver.url));
  try {
    const first = daemons[0] as BenchDaemon;
    const delivered = (): number => (receiver === null
      ? daemons.reduce((n, d) => n + countLines(d.outFile), 0)
      : new Set(receiver.received.map((m) => m.eventId)).size);
    const pids = daemons.map((d) => d.pid());
    const pgPids = (): number[] => postgresPids(cluster);
    const cpu0 = { replicas: sumCpu(pids), postgres: sumCpu(pgPids()) };
    const t0 = performance.now();
    const gen = await generate(daemons.map((d) => d.url), first.secret, first.fixture, name);
    if ((gen.statuses['202'] ?? 0) !== COUNT) throw new Error(`${name}: not every alert was accepted: ${JSON.stringify(gen.statuses)}`);
    await until(() => delivered() >= COUNT, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = { replicas: (sumCpu(pids) - cpu0.replicas) / seconds, postgres: (sumCpu(pgPids()) - cpu0.postgres) / seconds,
      generator: gen.cpuSeconds / seconds };
    return { name, channel, acceptedPerSec: COUNT / gen.seconds, deliveredPerSec: COUNT / seconds, cpu,
      ...(chainOf ? { chain: await chainOf(seconds) } : {}) };
  } finally {
    for (const d of daemons) await d.stop();
    await receiver?.close();
  }
}

/** The generator against a bare node:http server answering 202 at once: its own ceiling. */
async function generatorCeiling(fixture: string): Promise<number> {
  const server = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(202).end('{"status":"accepted"}')); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const gen = await generate([`http://127.0.0.1:${port}/webhooks/alertmanager`], 'x', fixture, 'bare', COUNT * 2);
    return (COUNT * 2) / gen.seconds;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const entry = (i: number): NewAuditEntry => ({ kind: 'event.accepted', actor: 'source:alertmanager', agentId: 'oncall-escalator',
  data: { eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, sourceId: 'alertmanager', fingerprint: `fp-${i}` } });

/** 4 writers appending one row at a time each, spread over `stores`; appends/s over `seconds`. */
async function appendRate(stores: Store[], seconds = 5): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 4 }, async (_, w) => {
    const store = stores[w % stores.length] as Store;
    while (performance.now() < end) await store.appendAudit(entry(n++), Date.now());
  }));
  return n / ((performance.now() - t0) / 1000);
}

async function main(): Promise<void> {
  const cluster = await startPgCluster({ durable: true });
  try {
    const probe = tempEnv();
    const fixture = (await scaffoldAgent(probe)).fixture;
    probe.cleanup();
    const ceiling = await generatorCeiling(fixture);

    const scenarios: Scenario[] = [];
    let db = 0;
    for (const channel of ['file', 'webhook'] as const) {
      scenarios.push(await runScenario(cluster, `sqlite-1-${channel}`, channel, async (c) => [await sqliteDaemon(c)]));
      for (const n of [1, 2]) {
        const name = `bench_${++db}`;
        scenarios.push(await runScenario(cluster, `postgres-${n}-${channel}`, channel, (c) => pgReplicas(cluster, name, n, c),
          (seconds) => chainUse(cluster, name, seconds)));
      }
    }

    const sqliteDir = mkdtempSync('/tmp/svc-bench-append-');
    const sqlite = await openSqliteStore({ path: `${sqliteDir}/svc.db` });
    const pgUrl = await cluster.createDatabase('bench_append');
    const pgA = await openPostgresStore({ url: pgUrl });
    const pgB = await openPostgresStore({ url: pgUrl });
    const appends = { sqlite: await appendRate([sqlite]), postgres1: await appendRate([pgA]), postgres2: await appendRate([pgA, pgB]) };
    await Promise.all([sqlite.close(), pgA.close(), pgB.close()]);
    rmSync(sqliteDir, { recursive: true, force: true });

    const get = (name: string): Scenario => scenarios.find((s) => s.name === name) as Scenario;
    const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
    const webhookRatio = ratio(get('postgres-2-webhook').deliveredPerSec, get('postgres-1-webhook').deliveredPerSec);
    const fileRatio = ratio(get('postgres-2-file').deliveredPerSec, get('postgres-1-file').deliveredPerSec);
    const round = (n: number): number => Math.round(n * 10) / 10;
    const result = {
      bench: 'replicas', count: COUNT, concurrency: CONCURRENCY, dispatchConcurrency: DISPATCH_CONCURRENCY, webhookDelayMs: WEBHOOK_DELAY_MS,
      generatorCeilingPerSec: Math.round(ceiling),
      scenarios: scenarios.map((s) => ({ ...s, acceptedPerSec: Math.round(s.acceptedPerSec), deliveredPerSec: Math.round(s.deliveredPerSec),
        cpu: { replicas: round(s.cpu.replicas), postgres: round(s.cpu.postgres), generator: round(s.cpu.generator) } })),
      auditAppendsPerSec4Writers: { sqlite: Math.round(appends.sqlite), postgres1Replica: Math.round(appends.postgres1),
        postgres2Replicas: Math.round(appends.postgres2) },
      ratios: { webhook2vs1: webhookRatio, file2vs1: fileRatio,
        pg1vsSqliteFile: ratio(get('postgres-1-file').deliveredPerSec, get('sqlite-1-file').deliveredPerSec) },
      target: { webhook2vs1: TARGET_WEBHOOK_RATIO }, pass: webhookRatio >= TARGET_WEBHOOK_RATIO,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    for (const s of result.scenarios) {
      process.stdout.write(`${s.name.padEnd(20)} accepted ${String(s.acceptedPerSec).padStart(5)}/s  delivered ${String(s.deliveredPerSec).padStart(5)}/s`
        + `  cpu (cores): replicas ${s.cpu.replicas}, postgres ${s.cpu.postgres}, generator ${s.cpu.generator}`
        + `${s.chain ? `  chain: ${s.chain.txPerSec} tx/s, ${s.chain.rowsPerTx} rows/tx` : ''}\n`);
    }
    process.stdout.write(`audit appends/s, 4 writers: sqlite ${result.auditAppendsPerSec4Writers.sqlite}, postgres 1 replica `
      + `${result.auditAppendsPerSec4Writers.postgres1Replica}, 2 replicas ${result.auditAppendsPerSec4Writers.postgres2Replicas}\n`);
    process.stdout.write(`replicas: webhook (${WEBHOOK_DELAY_MS} ms) 2 vs 1 replica delivered ${webhookRatio}x (target >= ${TARGET_WEBHOOK_RATIO}: `
      + `${result.pass ? 'pass' : 'FAIL'}); file channel 2 vs 1 ${fileRatio}x; generator ceiling ${result.generatorCeilingPerSec}/s\n`);
  } finally {
    cluster.close();
  }
}

await main();
