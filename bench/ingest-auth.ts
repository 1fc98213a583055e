/**
 * Ingest rate by source authentication method (contract §12.1), same run: bearer and basic against
 * HMAC, each on the real ingest path (bench/lib/ingest-server.ts: auth check, JSON check, SQLite WAL
 * with synchronous=FULL, agent log line; every request a new event) in a process of its own, driven by
 * wrk from another; rounds alternate between the three, the best round of each counts. A bare POST
 * handler under the same generator shows the generator's ceiling, so the generator was not the limit.
 *
 *   node --import tsx bench/ingest-auth.ts [connections]
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signBody } from '../src/ingest/signature.js';
import { bareServer, r3 } from './lib/daemon.js';
import type { WrkOptions, WrkResult } from './lib/wrk.js';
import { runWrk } from './lib/wrk.js';

const CONNECTIONS = Number(process.argv[2] ?? 64);
const ROUNDS = 3;
const SECRET = 'bench-secret-0123456789abcdef';
// No groupKey, no fingerprint header: every request is a new event (see webhook-ingest.ts).
const body = JSON.stringify({
  version: '4', status: 'firing', receiver: 'oncall',
  commonLabels: { alertname: 'DiskFull', severity: 'critical', team: 'storage' },
  commonAnnotations: { summary: 'Disk almost full', description: 'Filesystem /var is above 95% on db-1.' },
  alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: 'db-1:9100', severity: 'critical' },
    annotations: { summary: 'Disk almost full' }, startsAt: '2026-11-21T03:12:00Z', fingerprint: 'c3a1f0e29b7d4e55' }],
});
const METHODS = {
  hmac: { 'Content-Type': 'application/json', 'X-Signature': signBody(SECRET, body) },
  bearer: { 'Content-Type': 'application/json', Authorization: `Bearer ${SECRET}` },
  basic: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`alertmanager:${SECRET}`).toString('base64')}` },
} as const;
type Method = keyof typeof METHODS;

async function startIngest(method: Method): Promise<{ port: number; child: ChildProcess; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-auth-${method}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./lib/ingest-server.ts', import.meta.url)), dir, SECRET, method],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => { child.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))); });
  return { port, child, dir };
}

const servers = await Promise.all((Object.keys(METHODS) as Method[]).map(async (m) => [m, await startIngest(m)] as const));
const bare = await bareServer('post');
try {
  const options = (m: Method | 'bare'): WrkOptions => ({
    url: m === 'bare' ? `${bare.url}/webhooks/alertmanager` : `http://127.0.0.1:${servers.find(([k]) => k === m)?.[1].port}/webhooks/alertmanager`,
    method: 'POST', body, headers: METHODS[m === 'bare' ? 'hmac' : m], seconds: 5, connections: CONNECTIONS,
  });
  const best = new Map<Method | 'bare', WrkResult>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const m of ['bare', 'hmac', 'bearer', 'basic'] as const) {
      const r = await runWrk(options(m));
      if (r.errors > 0) throw new Error(`${m}: ${r.errors} errors under load`);
      if ((best.get(m)?.rps ?? 0) < r.rps) best.set(m, r);
    }
  }
  const rps = (m: Method | 'bare'): number => best.get(m)?.rps ?? 0;
  const result = {
    bench: 'ingest-auth', connections: CONNECTIONS, bodyBytes: Buffer.byteLength(body),
    hmacRps: Math.round(rps('hmac')), bearerRps: Math.round(rps('bearer')), basicRps: Math.round(rps('basic')), bareRps: Math.round(rps('bare')),
    bearerVsHmac: r3(rps('bearer') / rps('hmac')), basicVsHmac: r3(rps('basic') / rps('hmac')),
    hmacP99Ms: r3(best.get('hmac')?.p99Ms ?? 0), bearerP99Ms: r3(best.get('bearer')?.p99Ms ?? 0), basicP99Ms: r3(best.get('basic')?.p99Ms ?? 0),
    generatorHeadroom: r3(rps('bare') / Math.max(rps('hmac'), rps('bearer'), rps('basic'))),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`ingest-auth: bearer ${result.bearerRps} req/s = ${result.bearerVsHmac}× HMAC, basic ${result.basicRps} req/s = `
    + `${result.basicVsHmac}× HMAC (${result.hmacRps} req/s); p99 ${result.bearerP99Ms}/${result.basicP99Ms}/${result.hmacP99Ms} ms; `
    + `the same generator drove a bare POST handler at ${result.bareRps} req/s (${result.generatorHeadroom}× the fastest svc side); ${CONNECTIONS} connections\n`);
} finally {
  await bare.stop();
  for (const [, s] of servers) {
    await new Promise<void>((resolve) => { s.child.once('exit', () => resolve()); s.child.kill('SIGTERM'); });
    rmSync(s.dir, { recursive: true, force: true });
  }
}
