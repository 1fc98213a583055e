/**
 * Durable signed ingest against a bare POST handler, each in a process of its own, both driven by wrk
 * with the same signed body (target ≥ 0.3). The svc side is the ingest path alone
 * (bench/lib/ingest-server.ts: HMAC, JSON check, SQLite WAL with synchronous=FULL in the store's writer
 * thread, agent log line; every request a new event, nothing dispatching): what a 202 costs.
 * bench/dispatch-burst.ts measures the whole daemon, dispatch included.
 *
 *   node --import tsx bench/webhook-ingest.ts [connections]
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
const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./lib/ingest-server.ts', import.meta.url)), dir, SECRET],
  { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const port = await new Promise<number>((resolve) => { server.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))); });
  const bare = await bareServer('post');
  const c = await compareRates({ url: `http://127.0.0.1:${port}/webhooks/alertmanager`, method: 'POST', body, headers, seconds: 5, connections: CONNECTIONS },
    { url: `${bare.url}/webhooks/alertmanager`, method: 'POST', body, headers, seconds: 5, connections: CONNECTIONS });
  await bare.stop();
  const result = { bench: 'webhook-ingest', connections: CONNECTIONS, bodyBytes: Buffer.byteLength(body), ingestRps: Math.round(c.svc.rps),
    bareRps: Math.round(c.bare.rps), ratio: r3(c.ratio), target: 0.3, ingestP99Ms: r3(c.svc.p99Ms), bareP99Ms: r3(c.bare.p99Ms), pass: c.ratio >= 0.3 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`webhook-ingest: durable signed ingest ${result.ingestRps} req/s vs bare POST ${result.bareRps} req/s = ${result.ratio} `
    + `(target ≥ 0.3); p99 ${result.ingestP99Ms} vs ${result.bareP99Ms} ms; ${CONNECTIONS} connections\n`);
} finally {
  await new Promise<void>((resolve) => { server.once('exit', () => resolve()); server.kill('SIGTERM'); });
  rmSync(dir, { recursive: true, force: true });
}
