/**
 * Signed webhook ingest throughput against a bare `node:http` POST handler, measured in the same run
 * with the same client and the same pre-built requests.
 *
 * Ingest side: the real pipeline (HMAC check, JSON parse, fingerprint, sqlite store with WAL and
 * synchronous=FULL as the store sets it, agent log line) with unique fingerprints, so every request
 * is a durable 202. Bare side: reads the body and answers 202 JSON.
 * Client: keep-alive `http.Agent` in a worker thread, `concurrency` requests in flight, `count` timed
 * requests per side after `warmup`, rounds interleaved; the best round of each side counts.
 *
 *   node --import tsx bench/webhook-ingest.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { OutgoingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../src/core/clock.js';
import { signBody } from '../src/ingest/signature.js';
import { createWebhookIngest } from '../src/ingest/webhook-server.js';
import { createAgentLog } from '../src/logs/agent-log.js';
import { createSourceStats } from '../src/metrics/source-stats.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';

const SECRET = 'bench-secret-0123456789abcdef';
const TARGET_RATIO = 0.3;

export interface WebhookIngestBenchResult {
  bench: 'webhook-ingest';
  count: number;
  concurrency: number;
  rounds: number;
  bodyBytes: number;
  bareRps: number;
  ingestRps: number;
  ratio: number;
  target: number;
  pass: boolean;
}

interface Req {
  body: Buffer;
  headers: OutgoingHttpHeaders;
}

function buildRequests(n: number, offset: number): Req[] {
  const out: Req[] = [];
  for (let i = 0; i < n; i++) {
    const id = offset + i;
    // Roughly the size of one Alertmanager notification (~1 KiB).
    const body = Buffer.from(JSON.stringify({
      version: '4', status: 'firing', receiver: 'oncall', groupKey: `{}:{alertname="DiskFull",n="${id}"}`,
      commonLabels: { alertname: 'DiskFull', severity: 'critical', team: 'storage' },
      commonAnnotations: { summary: 'Disk almost full', description: 'Filesystem /var is above 95% on db-1.' },
      externalURL: 'http://alertmanager.example:9093',
      alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: `db-${id}:9100`, severity: 'critical',
        mountpoint: '/var', team: 'storage' }, annotations: { summary: 'Disk almost full', runbook: 'https://runbooks.example/disk' },
      startsAt: '2025-01-15T12:00:00Z', endsAt: '0001-01-01T00:00:00Z', fingerprint: id.toString(16).padStart(16, '0') }],
    }));
    out.push({ body, headers: {
      'content-type': 'application/json',
      'content-length': body.length,
      'x-signature': signBody(SECRET, body),
      'x-alert-fingerprint': `bench-${id}`,
    } });
  }
  return out;
}

/**
 * The load client, plain JavaScript run in a worker thread so that it does not share an event loop
 * with the servers being measured. Sends every request with `concurrency` in flight over a
 * keep-alive agent; posts back req/s and the count of non-202 answers.
 */
const CLIENT = `
const { workerData, parentPort } = require('node:worker_threads');
const http = require('node:http');
const { port, path, reqs, concurrency } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
let next = 0;
let bad = 0;
const one = (r) => new Promise((resolve, reject) => {
  const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: r.headers, agent }, (res) => {
    if (res.statusCode !== 202) bad += 1;
    res.resume();
    res.on('end', resolve);
  });
  req.on('error', reject);
  req.end(Buffer.from(r.body));
});
const worker = async () => { while (next < reqs.length) await one(reqs[next++]); };
const started = process.hrtime.bigint();
Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  parentPort.postMessage({ rps: reqs.length / seconds, bad });
}, (err) => { throw err; });
`;

function load(port: number, path: string, reqs: Req[], concurrency: number): Promise<{ rps: number; bad: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { port, path, reqs, concurrency } });
    worker.once('message', (m: { rps: number; bad: number }) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load client exited with code ${code}`));
    });
  });
}

function bareServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const text = JSON.stringify({ status: 'accepted', bytes: body.length });
      res.writeHead(202, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function runWebhookIngestBench(opts: { count?: number; warmup?: number; concurrency?: number; rounds?: number } = {}): Promise<WebhookIngestBenchResult> {
  const count = opts.count ?? 5000;
  const warmup = opts.warmup ?? 1000;
  const concurrency = opts.concurrency ?? 32;
  const rounds = opts.rounds ?? 2;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
  const store = await openSqliteStore({ path: join(dir, 'svc.db') });
  const log = createAgentLog({ path: join(dir, 'logs', 'oncall.log'), agentId: 'oncall', clock: systemClock });
  let accepted = 0;
  const ingest = createWebhookIngest({
    store, clock: systemClock, stats: createSourceStats(), onAccepted: () => { accepted += 1; }, rejected: () => undefined,
    onError: (err) => { throw err; },
    routes: [{ agentId: 'oncall', log, source: { id: 'alertmanager', type: 'webhook', port: 0, bind: '127.0.0.1', secret: SECRET,
      fingerprintHeader: 'X-Alert-Fingerprint', signatureHeader: 'X-Signature' } }],
  });
  const bare = await bareServer();
  try {
    await ingest.start();
    const ingestPort = ingest.ports()[0] ?? 0;
    const barePort = (bare.address() as AddressInfo).port;
    let offset = 0;
    const batch = (n: number): Req[] => {
      const reqs = buildRequests(n, offset);
      offset += n;
      return reqs;
    };

    await load(barePort, '/', batch(warmup), concurrency);
    await load(ingestPort, '/webhooks/alertmanager', batch(warmup), concurrency);
    let bareRps = 0;
    let ingestRps = 0;
    let bodyBytes = 0;
    for (let round = 0; round < rounds; round++) {
      const bareReqs = batch(count);
      const ingestReqs = batch(count);
      bodyBytes = ingestReqs[0]?.body.length ?? 0;
      const b = await load(barePort, '/', bareReqs, concurrency);
      const i = await load(ingestPort, '/webhooks/alertmanager', ingestReqs, concurrency);
      if (b.bad > 0 || i.bad > 0) throw new Error(`non-202 answers: bare ${b.bad}, ingest ${i.bad}`);
      bareRps = Math.max(bareRps, b.rps);
      ingestRps = Math.max(ingestRps, i.rps);
    }
    const expected = warmup + rounds * count;
    const stored = (await store.backlog()).reduce((n, c) => n + c.count, 0);
    if (accepted !== expected || stored !== expected) {
      throw new Error(`expected ${expected} accepted and stored events, got ${accepted} accepted, ${stored} stored`);
    }
    const ratio = ingestRps / bareRps;
    return { bench: 'webhook-ingest', count, concurrency, rounds, bodyBytes, bareRps: Math.round(bareRps),
      ingestRps: Math.round(ingestRps), ratio: Math.round(ratio * 1000) / 1000, target: TARGET_RATIO, pass: ratio >= TARGET_RATIO };
  } finally {
    await ingest.close();
    await new Promise((resolve) => bare.close(resolve));
    await store.close();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runWebhookIngestBench();
  console.log(JSON.stringify(result));
  console.log(`webhook ingest: ${result.ingestRps} req/s durable (signed, unique fingerprints, sqlite synchronous=FULL) vs bare node:http ${result.bareRps} req/s, ratio ${result.ratio} (target >= ${result.target}: ${result.pass ? 'met' : 'NOT met'})`);
}
