/**
 * GET /status of the real control plane (Host check, routing, the live snapshot of a daemon-shaped
 * configuration: 2 agents × 3 sources, counters moving) against a bare `node:http` handler that
 * serialises an object of the same shape per request (what any JSON handler does; the difference is
 * the listener's guards, routing, headers and the live reads), measured in the same run with the same
 * client (issue target: ≥ 0.8).
 *
 *   node --import tsx bench/status.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadedAgent } from '../src/config/schema.js';
import { systemClock } from '../src/core/clock.js';
import { createStatusRoute } from '../src/control-plane/routes/status-route.js';
import { createControlPlane } from '../src/control-plane/server.js';
import { createSourceStats } from '../src/metrics/source-stats.js';
import { createStatusSnapshot } from '../src/daemon/status-snapshot.js';
import { loadGet } from './load-client.js';

const COUNT = 10_000;
const WARMUP = 2_000;
const CONCURRENCY = 32;
const ROUNDS = 3;

const agents: LoadedAgent[] = ['alpha', 'beta'].map((id) => ({
  dir: `/srv/${id}`, skills: [], channels: [],
  agent: { id, provider: 'rules', skills: [], dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 4 },
    mcpServers: [], rateLimits: { tools: {} }, rules: {} },
  sources: [0, 1, 2].map((n) => ({ id: `src-${n}`, type: 'webhook' as const, port: 8787 + n, bind: '127.0.0.1', secret: 'x'.repeat(32),
    fingerprintHeader: 'X-Alert-Fingerprint', signatureHeader: 'X-Signature' })),
}));
const stats = createSourceStats();
const ticker = setInterval(() => { stats.get('alpha', 'src-0').received += 1; }, 1);
const settings = { enabled: true, bind: '127.0.0.1', port: 0, auth: null, allowRemote: false };
const snapshot = createStatusSnapshot({ pid: process.pid, startedAtMs: Date.now(), clock: systemClock, agents, channels: new Map(),
  stats, controlPlane: () => settings, store: { kind: 'sqlite', replica: 'bench', leader: () => true, retention: { eventsMs: null, deadLettersMs: null } }, stopping: () => false, mcpServers: () => [], auditExport: () => null });

const control = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, guard: null, report: () => undefined, clock: systemClock,
  routes: new Map([['/status', createStatusRoute(snapshot)]]) });
await control.start();

const fixed = snapshot();
const body = JSON.stringify(fixed);
const bare = createServer((_req, res) => {
  const body = JSON.stringify(fixed);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', () => resolve()));
const barePort = (bare.address() as AddressInfo).port;

const run = (port: number, count: number) => loadGet({ port, path: '/status', count, concurrency: CONCURRENCY, headers: {} });
await run(barePort, WARMUP);
await run(control.port(), WARMUP);
let bareRps = 0;
let statusRps = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  const b = await run(barePort, COUNT);
  const s = await run(control.port(), COUNT);
  if (b.bad + s.bad > 0) throw new Error(`non-200 answers: bare ${b.bad}, status ${s.bad}`);
  bareRps = Math.max(bareRps, b.rps);
  statusRps = Math.max(statusRps, s.rps);
}
clearInterval(ticker);
await control.close();
bare.close();

const ratio = statusRps / bareRps;
console.log(JSON.stringify({ bench: 'status', count: COUNT, concurrency: CONCURRENCY, rounds: ROUNDS, bodyBytes: body.length,
  bareRps: Math.round(bareRps), statusRps: Math.round(statusRps), ratio: Number(ratio.toFixed(3)), target: 0.8, pass: ratio >= 0.8 }));
console.log(`/status: ${Math.round(statusRps)} req/s vs bare node:http ${Math.round(bareRps)} req/s, ratio ${ratio.toFixed(3)} (target >= 0.8: ${ratio >= 0.8 ? 'met' : 'missed'})`);
