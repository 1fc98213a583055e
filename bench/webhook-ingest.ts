/**
 * Durable signed ingest against a bare POST handler, each in a process of its own, both driven by wrk
 * with the same signed body (target ≥ 0.3). The svc side is the ingest path alone
 * (bench/lib/ingest-server.ts: HMAC, JSON check, SQLite WAL with synchronous=FULL in the store's writer
 * thread, agent log line; every request a new event, nothing dispatching): what a 202 costs.
 * bench/dispatch-burst.ts measures the whole daemon, dispatch included.
 *
 * Rounds alternate bare, svc, bare, svc…; the ratio is best against best, and each round's own
 * ratio is printed too, with the load average, so a run on a shared host shows its range. The bare
 * server's rate is wrk's ceiling: while it is several times the svc rate, wrk is not what limits svc.
 *
 *   node --import tsx bench/webhook-ingest.ts [connections] [rounds]
 *   BENCH_CPU_PROF=/tmp/prof node --import tsx bench/webhook-ingest.ts   # CPU profiles of the svc side: one file per thread
 *                                                                       # (main, store writer, reader), startup included
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signBody } from '../src/ingest/signature.js';
import { compareRates } from './lib/compare.js';
import { bareServer, r3 } from './lib/daemon.js';

const CONNECTIONS = Number(process.argv[2] ?? 64);
const ROUNDS = Number(process.argv[3] ?? 3);
const SECRET = 'bench-secret-0123456789abcdef';
// No groupKey: an Alertmanager body with one gets a derived fingerprint (contract §12.2), and every
// repeat of this one body would be a duplicate; without it each request is a new event.
const body = JSON.stringify({
  version: '4', status: 'firing', receiver: 'oncall',
  commonLabels: { alertname: 'DiskFull', severity: 'critical', team: 'storage' },
  commonAnnotations: { summary: 'Disk almost full', description: 'Filesystem /var is above 95% on db-1.' },
  externalURL: 'http://alertmanager.example:9093',
  alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: 'db-1:9100', severity: 'critical', mountpoint: '/var', team: 'storage' },
    annotations: { summary: 'Disk almost full', runbook: 'https://runbooks.example/disk' }, startsAt: '2026-11-21T03:12:00Z',
    endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://prometheus.example:9090/graph', fingerprint: 'c3a1f0e29b7d4e55' }],
});
const headers = { 'Content-Type': 'application/json', 'X-Signature': signBody(SECRET, body) };

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-ingest-'));
// SVC_BENCH_ROOT points the svc side at another checkout (a "before" figure), as in lib/daemon.ts.
const ingestServer = process.env.SVC_BENCH_ROOT === undefined ? fileURLToPath(new URL('./lib/ingest-server.ts', import.meta.url))
  : join(process.env.SVC_BENCH_ROOT, 'bench/lib/ingest-server.ts');
const prof = process.env.BENCH_CPU_PROF;
const server = spawn(process.execPath, [...(prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), '--import', 'tsx', ingestServer, dir, SECRET],
  { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const port = await new Promise<number>((resolve) => { server.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))); });
  const bare = await bareServer('post');
  const c = await compareRates({ url: `http://127.0.0.1:${port}/webhooks/alertmanager`, method: 'POST', body, headers, seconds: 5, connections: CONNECTIONS },
    { url: `${bare.url}/webhooks/alertmanager`, method: 'POST', body, headers, seconds: 5, connections: CONNECTIONS }, ROUNDS,
    { svc: server.pid ?? 0, bare: bare.pid });
  await bare.stop();
  const result = { bench: 'webhook-ingest', connections: CONNECTIONS, bodyBytes: Buffer.byteLength(body), ingestRps: Math.round(c.svc.rps),
    bareRps: Math.round(c.bare.rps), ratio: r3(c.ratio), target: 0.3, ingestP99Ms: r3(c.svc.p99Ms), bareP99Ms: r3(c.bare.p99Ms), pass: c.ratio >= 0.3,
    rounds: c.rounds.map((x) => ({ ingestRps: Math.round(x.svc.rps), bareRps: Math.round(x.bare.rps), ratio: r3(x.svc.rps / x.bare.rps),
      ingestCpuUs: Math.round(x.svcCpuUsPerReq ?? 0), ingestMainThreadCpuUs: Math.round(x.svcMainCpuUsPerReq ?? 0),
      bareCpuUs: Math.round(x.bareCpuUsPerReq ?? 0) })),
    loadAverage: c.load.map(r3) };
  const ratios = result.rounds.map((x) => x.ratio);
  const cpu = result.rounds.map((x) => `${x.ingestCpuUs} (main thread ${x.ingestMainThreadCpuUs})/${x.bareCpuUs}`).join(', ');
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`webhook-ingest: durable signed ingest ${result.ingestRps} req/s vs bare POST ${result.bareRps} req/s = ${result.ratio} `
    + `(target ≥ 0.3); rounds ${Math.min(...ratios)}–${Math.max(...ratios)}; p99 ${result.ingestP99Ms} vs ${result.bareP99Ms} ms; `
    + `${CONNECTIONS} connections; load average ${result.loadAverage.join(' → ')}; CPU µs per request (ingest/bare) ${cpu}\n`);
} finally {
  await new Promise<void>((resolve) => { server.once('exit', () => resolve()); server.kill('SIGTERM'); });
  rmSync(dir, { recursive: true, force: true });
}
