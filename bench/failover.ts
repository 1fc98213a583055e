/**
 * Failover delay with the default lease (docs/replicas.md): two replicas of one agent on PostgreSQL
 * with a webhook channel whose far end answers in 2 s (a slow chat API), five alerts posted to
 * replica A, A SIGKILLed while it holds their claims. Measured: from the kill until B has delivered
 * each of them, and how many were delivered twice (A handed them to the channel before it died).
 *
 *   node --import tsx bench/failover.ts [--lease-ms 10000] [--runs 3]
 */
import { performance } from 'node:perf_hooks';
import { DEFAULT_LEASE_MS } from '../src/config/store.js';
import { postAlert } from '../test/support/http.js';
import { startPgCluster } from '../test/support/postgres.js';
import { startReplicas, startWebhookReceiver, webhookChannelYaml } from '../test/support/replicas.js';
import { waitFor } from '../test/support/wait.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LEASE_MS = arg('lease-ms', DEFAULT_LEASE_MS);
const RUNS = arg('runs', 3);
const PAGES = 5;

const cluster = await startPgCluster();
try {
  for (let run = 1; run <= RUNS; run++) {
    const receiver = await startWebhookReceiver(2000);
    const [a, b] = await startReplicas(2, { dbUrl: await cluster.createDatabase(`failover${run}`), leaseMs: LEASE_MS,
      channelsYaml: webhookChannelYaml(receiver.url) });
    if (a === undefined || b === undefined) throw new Error('two replicas expected');
    try {
      const victim = (await a.status()).store.replica;
      const ids: string[] = [];
      for (let i = 0; i < PAGES; i++) {
        const res = await postAlert(a.url, a.secret, a.fixture, `failover-${run}-${i}`);
        ids.push(String(res.json?.eventId));
      }
      await waitFor('A holds every claim', async () => Number((await cluster.query<{ n: number }>(`failover${run}`,
        "SELECT count(*) AS n FROM events WHERE status = 'processing' AND starts_with(owner, $1)", [`${victim}/`]))[0]?.n) === PAGES, 30_000);
      // The kill falls while A's deliveries are at the receiver (it answers in 2 s).
      await waitFor('A handed them to the channel', () => receiver.received.length >= 1, 30_000);
      const killedAt = performance.now();
      process.kill(a.pid(), 'SIGKILL');
      await waitFor('the queue is empty', async () => Number((await cluster.query<{ n: number }>(`failover${run}`,
        "SELECT count(*) AS n FROM events WHERE status <> 'processed'"))[0]?.n) === 0, 120_000);
      const seconds = (performance.now() - killedAt) / 1000;
      const twice = ids.filter((id) => receiver.received.filter((m) => m.eventId === id).length > 1).length;
      process.stdout.write(`run ${run}: leaseMs ${LEASE_MS}: every page processed ${seconds.toFixed(1)} s after the kill; ${twice} of ${PAGES} sent twice (same Idempotency-Key)\n`);
    } finally {
      await b.stop().catch(() => undefined);
      await a.stop().catch(() => undefined);
      await receiver.close();
    }
  }
} finally {
  cluster.close();
}
