/**
 * `svc fleet events` over two replicas of one PostgreSQL store and one separate SQLite daemon (issue
 * 26 item 7): both replicas show the same `store.id` in /status, the other daemon its own, and each
 * event of the shared store is listed once, under both replicas' names.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../src/cli/program.js';
import { cliHarness } from './support/cli.js';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { postAlert } from './support/http.js';
import type { PgCluster } from './support/postgres.js';
import { startPgCluster } from './support/postgres.js';
import type { Replica } from './support/replicas.js';
import { startReplicas } from './support/replicas.js';

describe('svc fleet events over replicas of one store', { timeout: 300_000 }, () => {
  let cluster: PgCluster;
  let replicas: Replica[] = [];
  let single: Daemon;
  let work: string;
  const accepted: string[] = [];

  before(async () => {
    cluster = await startPgCluster();
    replicas = await startReplicas(2, { dbUrl: await cluster.createDatabase('fleet_replicas') });
    single = await startDaemon();
    for (const [i, r] of replicas.entries()) {
      const res = await postAlert(r.url, r.secret, r.fixture, `fleet-replica-${i}`);
      assert.equal(res.status, 202);
      accepted.push(String(res.json?.eventId));
    }
    const res = await postAlert(single.url, single.secret, single.fixture, 'fleet-single');
    accepted.push(String(res.json?.eventId));
    work = mkdtempSync(join(tmpdir(), 'svc-fleet-replicas-'));
    writeFileSync(join(work, 'fleet.yaml'), ['hosts:',
      ...[['pg-a', replicas[0]?.cp], ['pg-b', replicas[1]?.cp], ['solo', single.cp]].map(([name, url]) => `  - { name: ${name}, url: "${url}" }`)].join('\n'));
  });
  after(async () => {
    for (const r of replicas) await r.stop().catch(() => undefined);
    await single?.stop();
    cluster?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('/status: one store id for both replicas, another for the separate daemon', async () => {
    const [a, b] = await Promise.all(replicas.map((r) => r.status()));
    const solo = await (await fetch(`${single.cp}/status`)).json() as { store: { id: unknown } };
    const idA = (a?.store as { id?: unknown } | undefined)?.id;
    assert.match(String(idA), /^[0-9a-f]{32}$/);
    assert.equal((b?.store as { id?: unknown } | undefined)?.id, idA);
    assert.match(String(solo.store.id), /^[0-9a-f]{32}$/);
    assert.notEqual(solo.store.id, idA);
  });

  it('svc fleet events lists each event once, under the names of the replicas that serve it', async () => {
    const h = cliHarness({ ...single.env }, work);
    const code = await runCli(['fleet', 'events', '--json'], h.ctx);
    assert.equal(code, 0, h.err());
    const answer = JSON.parse(h.out()) as { items: Array<{ host: string; id: string }>; complete: boolean };
    assert.equal(answer.complete, true);
    assert.deepEqual(answer.items.map((e) => e.id).sort(), [...accepted].sort(), 'every event once');
    assert.deepEqual(answer.items.map((e) => e.host).sort(), ['pg-a+pg-b', 'pg-a+pg-b', 'solo']);
    assert.equal(h.err(), '3/3 hosts answered\n');
  });
});
