/**
 * Pages on two PostgreSQL replicas (contract §17.4, §16): every due timer fires on exactly one
 * replica, and a replica SIGKILLed while pages wait for their next step loses no step — the other
 * fires each one, once.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { postAlert } from './support/http.js';
import { alertInGroup, oncallYaml } from './support/oncall-yaml.js';
import type { PgCluster } from './support/postgres.js';
import { startPgCluster } from './support/postgres.js';
import type { Replica } from './support/replicas.js';
import { startReplicas } from './support/replicas.js';
import { readJsonLines } from './support/store.js';
import { pidAlive } from './support/svc.js';
import { waitFor } from './support/wait.js';

const cluster: PgCluster = await startPgCluster();
const running: Replica[] = [];
after(async () => {
  for (const r of running) await r.stop().catch(() => undefined);
  cluster.close();
});

const PAGES = 12;
const linesOf = (replicas: Replica[]): Array<Record<string, unknown>> => replicas.flatMap((r) => readJsonLines(r.outFile));

describe('pages on replicas', () => {
  it('each due timer fires on exactly one replica; a SIGKILLed replica loses no step', async () => {
    const replicas = await startReplicas(2, { dbUrl: await cluster.createDatabase('pages'), files: { 'oncall.yaml': oncallYaml('4s', '1h') } });
    running.push(...replicas);
    const [a, b] = replicas as [Replica, Replica];
    for (let i = 0; i < PAGES; i++) {
      const r = i % 2 === 0 ? a : b;
      assert.equal((await postAlert(r.url, r.secret, alertInGroup(r.fixture, `g${i}`), `fp-${i}`)).status, 202);
    }
    const opened = await waitFor('every page notified its first step', () => {
      const first = linesOf(replicas).filter((l) => l.to === 'alice');
      return new Set(first.map((l) => l.pageId)).size === PAGES ? first : false;
    }, 60_000);
    // Kill one replica while every page waits for step 2 (4 s after it opened).
    const pid = a.pid();
    process.kill(pid, 'SIGKILL');
    await waitFor('replica a is gone', () => !pidAlive(pid));

    const pageIds = [...new Set(opened.map((l) => String(l.pageId)))];
    const second = await waitFor('every page climbed to step 2', () => {
      const found = linesOf(replicas).filter((l) => l.to === 'bob');
      return new Set(found.map((l) => l.pageId)).size === PAGES ? found : false;
    }, 90_000);
    assert.deepEqual(second.map((l) => l.deliveryId).sort(), pageIds.map((id) => `${id}.2.bob.oncall-dm`).sort(), 'each step-2 notice once, in round 2');
    const res = await fetch(`${b.cp}/audit?kind=page.escalated&limit=1000`);
    const escalated = (await res.json() as { items: Array<{ data: { pageId: string } }> }).items;
    assert.deepEqual(escalated.map((r) => r.data.pageId).sort(), [...pageIds].sort(), 'one page.escalated row per page: each timer fired once');
  });
});
