/**
 * The ingest path alone, in a process of its own, for bench/webhook-ingest.ts: the real webhook
 * server (HMAC, JSON check, idempotency, agent log line) over the real SQLite store (writer thread,
 * WAL, synchronous=FULL), nothing dispatching, from dist/ (build first). Prints its port once
 * listening; SIGTERM stops it.
 *
 *   node --import tsx bench/lib/ingest-server.ts <dir> <secret> [hmac|bearer|basic]
 *
 * The third argument picks the source's one authentication method (contract §12.1): `secret` is the
 * HMAC key, the bearer token, or the basic password (user `alertmanager`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Clock from '../../src/core/clock.js';
import type * as WebhookServer from '../../src/ingest/webhook-server.js';
import type * as AgentLog from '../../src/logs/agent-log.js';
import type * as SourceStats from '../../src/metrics/source-stats.js';
import type * as SqliteStore from '../../src/store/sqlite/sqlite-store.js';

// The built code (`npm run build`), as the daemon runs it: under tsx every function the source
// creates goes through esbuild's naming helper, a cost the shipped JavaScript does not have (it was
// ≈7 % of the main thread's time in a profile of this server).
const dist = (path: string): string => {
  const url = new URL(`../../dist/${path}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) throw new Error(`${fileURLToPath(url)} is missing: run npm run build first`);
  return url.href;
};
const { systemClock } = await import(dist('core/clock.js')) as typeof Clock;
const { createWebhookIngest } = await import(dist('ingest/webhook-server.js')) as typeof WebhookServer;
const { createAgentLog } = await import(dist('logs/agent-log.js')) as typeof AgentLog;
const { createSourceStats } = await import(dist('metrics/source-stats.js')) as typeof SourceStats;
const { openSqliteStore } = await import(dist('store/sqlite/sqlite-store.js')) as typeof SqliteStore;

const [dir = '.', secret = '', method = 'hmac'] = process.argv.slice(2);
const auth = method === 'bearer' ? { bearerToken: secret } : method === 'basic' ? { basicAuth: { username: 'alertmanager', password: secret } } : { secret };
const store = await openSqliteStore({ path: join(dir, 'svc.db') });
const log = createAgentLog({ path: join(dir, 'logs', 'oncall.log'), agentId: 'oncall', clock: systemClock });
const ingest = createWebhookIngest({
  store, clock: systemClock, stats: createSourceStats(), onAccepted: () => undefined, rejected: () => undefined,
  onError: (err) => { process.stderr.write(`ingest error: ${String(err)}\n`); },
  routes: [{ agentId: 'oncall', log, source: { id: 'alertmanager', type: 'webhook', port: 0, bind: '127.0.0.1', ...auth,
    fingerprintHeader: 'X-Alert-Fingerprint', signatureHeader: 'X-Signature', maxConnections: 512 } }],
});
await ingest.start();
process.stdout.write(`${ingest.ports()[0]}\n`);
process.on('SIGTERM', () => {
  void ingest.close().then(() => store.close()).then(() => process.exit(0));
});
