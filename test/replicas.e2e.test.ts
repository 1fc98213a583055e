/**
 * Replicas on one PostgreSQL database (contract §16), black-box: real `svc up -d` daemons with their
 * own homes and ports on a throwaway cluster. A burst shared by two replicas is delivered once; a
 * fingerprint is a duplicate whichever replica sees it again; a replica SIGKILLed mid-burst leaves
 * its claims to the other once their leases end; the database stopping under load turns ingest into
 * 503s and back, with no restart; a database that cannot be reached at startup fails `svc up` without
 * showing the password.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { postAlert, freePort, metricValue } from './support/http.js';
import type { PgCluster } from './support/postgres.js';
import { PG_PASSWORD, startPgCluster } from './support/postgres.js';
import type { Replica, ReplicaOptions } from './support/replicas.js';
import { startReplica, startReplicas, startWebhookReceiver, webhookChannelYaml } from './support/replicas.js';
import { readJsonLines } from './support/store.js';
import { pidAlive } from './support/svc.js';
import { waitFor } from './support/wait.js';

const cluster: PgCluster = await startPgCluster();
const running: Replica[] = [];
after(async () => {
  for (const r of running) await r.stop().catch(() => undefined);
  cluster.close();
});

/** `count` replicas on a fresh database `db`, stopped after the file. */
async function replicasOn(db: string, count: number, opts: Omit<ReplicaOptions, 'dbUrl'> = {}): Promise<Replica[]> {
  const replicas = await startReplicas(count, { ...opts, dbUrl: await cluster.createDatabase(db) });
  running.push(...replicas);
  return replicas;
}

/**
 * The pair of replicas (database `shared`) that the tests without settings of their own share, in
 * the order they are declared: the burst first (it counts every row of the database), then the
 * duplicate and the outage tests, whose checks are about their own fingerprints and counters.
 */
let sharedPair: Promise<Replica[]> | null = null;
const pair = (): Promise<Replica[]> => (sharedPair ??= replicasOn('shared', 2));

interface BurstResult { accepted: Map<string, string>; statuses: Map<number, number> }

/**
 * Posts `total` distinct alerts, 16 at a time, round-robin over the replicas that are up (a load
 * balancer: a refused connection goes to the next replica). `onAnswer` runs after each answer.
 */
async function burst(replicas: Replica[], prefix: string, total: number, onAnswer?: (answered: number) => void): Promise<BurstResult> {
  const accepted = new Map<string, string>();
  const statuses = new Map<number, number>();
  let next = 0;
  let answered = 0;
  const worker = async (): Promise<void> => {
    while (next < total) {
      const i = next++;
      const fingerprint = `${prefix}-${i}`;
      for (let k = 0; k < replicas.length * 2; k++) {
        const r = replicas[(i + k) % replicas.length] as Replica;
        try {
          const res = await postAlert(r.url, r.secret, r.fixture, fingerprint);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 202) accepted.set(fingerprint, String(res.json?.eventId));
          break;
        } catch {
          // connection refused or reset (a killed replica): the next replica gets it
        }
      }
      answered += 1;
      onAnswer?.(answered);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { accepted, statuses };
}

const lines = (replicas: Replica[]): Array<Record<string, unknown>> => replicas.flatMap((r) => readJsonLines(r.outFile));

async function verify(r: Replica): Promise<{ ok: boolean; checked: number; headSeq: number; problem: string | null }> {
  const res = await fetch(`${r.cp}/audit?verify=1&limit=1`);
  return ((await res.json()) as { verify: { ok: boolean; checked: number; headSeq: number; problem: string | null } }).verify;
}

async function count(db: string, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await cluster.query<{ n: number }>(db, sql, params);
  return Number(row?.n ?? 0);
}

describe('replicas on one PostgreSQL database', () => {
  it('two replicas share a burst of 2,000 alerts: each delivered once, one audit chain, one leader', async () => {
    const replicas = await pair();
    const { accepted, statuses } = await burst(replicas, 'burst', 2000);
    assert.equal(accepted.size, 2000, JSON.stringify([...statuses]));
    await waitFor('every alert delivered', () => lines(replicas).length >= 2000, 180_000);
    await waitFor('an empty queue', async () => (await count('shared', "SELECT count(*) AS n FROM events WHERE status IN ('accepted', 'processing')")) === 0, 60_000);
    const all = lines(replicas);
    const perEvent = new Map<string, number>();
    for (const l of all) perEvent.set(String(l.eventId), (perEvent.get(String(l.eventId)) ?? 0) + 1);
    assert.deepEqual([...perEvent.entries()].filter(([, n]) => n > 1), [], 'no event delivered twice');
    assert.deepEqual(new Set(perEvent.keys()), new Set(accepted.values()));
    replicas.forEach((r, i) => assert.ok(readJsonLines(r.outFile).length > 0, `replica ${i + 1} delivered a share of the burst`));
    assert.equal(await count('shared', "SELECT count(*) AS n FROM audit WHERE kind = 'message.delivered'"), 2000);
    assert.equal(await count('shared', "SELECT count(*) AS n FROM audit WHERE kind = 'event.accepted'"), 2000);

    const total = await count('shared', 'SELECT count(*) AS n FROM audit');
    for (const r of replicas) {
      const v = await verify(r);
      assert.equal(v.ok, true, JSON.stringify(v));
      assert.ok(v.checked >= 4000 && v.checked <= total, `${v.checked} rows checked of ${total}`);
    }
    assert.equal(await count('shared', 'SELECT count(*) AS n FROM audit a WHERE seq <> (SELECT count(*) FROM audit b WHERE b.seq <= a.seq)'), 0, 'seq is gapless');

    const status = await Promise.all(replicas.map((r) => r.status()));
    assert.deepEqual(status.map((s) => s.store.kind), ['postgres', 'postgres']);
    assert.notEqual(status[0]?.store.replica, status[1]?.store.replica);
    assert.equal(status.filter((s) => s.store.leader).length, 1, 'exactly one leader');
  });

  it('a fingerprint is a duplicate across replicas, also when both see it at once', async () => {
    const [a, b] = await pair() as [Replica, Replica];
    const first = await postAlert(a.url, a.secret, a.fixture, 'fp-shared');
    assert.equal(first.status, 202);
    const again = await postAlert(b.url, b.secret, b.fixture, 'fp-shared');
    assert.deepEqual([again.status, again.json?.status, again.json?.eventId], [200, 'duplicate', first.json?.eventId]);

    const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => {
      const r = i % 2 === 0 ? a : b;
      return postAlert(r.url, r.secret, r.fixture, 'fp-race');
    }));
    const winners = racing.filter((res) => res.status === 202);
    assert.equal(winners.length, 1, racing.map((res) => res.status).join(','));
    for (const res of racing) if (res.status === 200) assert.equal(res.json?.eventId, winners[0]?.json?.eventId);
    assert.equal(await count('shared', "SELECT count(*) AS n FROM events WHERE fingerprint = 'fp-race'"), 1);
  });

  it('a replica SIGKILLed mid-burst leaves its claims; the other takes them once their leases end', async () => {
    const receiver = await startWebhookReceiver(100);
    try {
      const [a, b] = await replicasOn('kill', 2, { leaseMs: 4000, channelsYaml: webhookChannelYaml(receiver.url) }) as [Replica, Replica];
      const victim = (await a.status()).store.replica;
      const pid = a.pid();
      let orphans: Promise<Array<{ id: string }>> | null = null;
      const { accepted } = await burst([a, b], 'kill', 600, (answered) => {
        if (answered === 300 && orphans === null) {
          process.kill(pid, 'SIGKILL');
          // Read at once, not after the burst: once the lease has run out the survivor owns them. (On a
          // loaded host the rest of the burst outlasted a 2 s lease and this found none.)
          orphans = cluster.query<{ id: string }>('kill', "SELECT id FROM events WHERE status = 'processing' AND starts_with(owner, $1)", [`${victim}/`]);
        }
      });
      assert.ok(orphans !== null && !pidAlive(pid));
      const orphaned = await (orphans as Promise<Array<{ id: string }>>);
      assert.ok(orphaned.length > 0, 'the killed replica held claims');

      await waitFor('every accepted alert delivered', () => {
        const seen = new Set(receiver.received.map((m) => m.eventId));
        return [...accepted.values()].every((id) => seen.has(id));
      }, 180_000);
      await waitFor('an empty queue', async () => (await count('kill', "SELECT count(*) AS n FROM events WHERE status IN ('accepted', 'processing')")) === 0, 60_000);
      const taken = await cluster.query<{ id: string; status: string; attempt: number }>('kill',
        'SELECT id, status, attempt FROM events WHERE id = ANY($1::text[])', [orphaned.map((o) => o.id)]);
      assert.ok(taken.every((e) => e.status === 'processed' && e.attempt >= 2), JSON.stringify(taken.slice(0, 3)));
      // Each orphan's delivery by the survivor is recorded with its new attempt, under the survivor's replica id.
      assert.equal(await count('kill', `SELECT count(DISTINCT data::json->>'eventId') AS n FROM audit
        WHERE kind = 'message.delivered' AND (data::json->>'attempt')::int >= 2 AND data::json->>'eventId' = ANY($1::text[])`,
        [orphaned.map((o) => o.id)]), orphaned.length);
      assert.equal((await verify(b)).ok, true);
      // Leadership is taken at the survivor's next leader check after the lease ran out, which may come
      // after its claims were taken: waited for, not read at one instant.
      await waitFor('the survivor leads once the lease of the dead one ran out', async () => (await b.status()).store.leader, 30_000);
    } finally {
      await receiver.close();
    }
  });

  it('the database stopped and started under load: 503 while it is away, then work resumes without a restart', async () => {
    const replicas = await pair();
    const pids = replicas.map((r) => r.pid());
    let phase: 'before' | 'down' | 'after' = 'before';
    const byPhase = { before: new Map<number, number>(), down: new Map<number, number>(), after: new Map<number, number>() };
    const accepted = new Map<string, string>();
    let i = 0;
    const send = async (): Promise<void> => {
      const r = replicas[i % 2] as Replica;
      const fingerprint = `outage-${i++}`;
      // Counted in the phase it was sent in: one sent before the stop may still be answered 202 after it.
      const sentIn = phase;
      const res = await postAlert(r.url, r.secret, r.fixture, fingerprint);
      const seen = byPhase[sentIn];
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      if (res.status === 202) accepted.set(fingerprint, String(res.json?.eventId));
    };
    const load = async (until: () => boolean): Promise<void> => {
      await Promise.all(Array.from({ length: 4 }, async () => { while (!until()) await send(); }));
    };
    await load(() => (byPhase.before.get(202) ?? 0) >= 100);
    cluster.stop('fast');
    phase = 'down';
    try {
      await load(() => (byPhase.down.get(503) ?? 0) >= 40);
    } finally {
      cluster.start();
      phase = 'after';
    }
    await load(() => (byPhase.after.get(202) ?? 0) >= 100);
    assert.deepEqual([...byPhase.down.keys()].filter((s) => s !== 503), [], 'nothing but 503 while the database is away');
    assert.deepEqual(replicas.map((r) => r.pid()), pids);
    assert.ok(pids.every((p) => pidAlive(p)), 'no replica died');
    const metrics = await Promise.all(replicas.map(async (r) => (await fetch(`${r.cp}/metrics`)).text()));
    const unavailable = metrics.reduce((n, m) => n + (metricValue(m, 'svc_webhook_rejected_total', { source: 'alertmanager', reason: 'unavailable' }) ?? 0), 0);
    assert.ok(unavailable >= 40, `${unavailable} unavailable rejections counted`);

    await waitFor('every accepted alert delivered', () => {
      const seen = new Set(lines(replicas).map((l) => l.eventId));
      return [...accepted.values()].every((id) => seen.has(id));
    }, 120_000);
    await waitFor('a leader again', async () => (await Promise.all(replicas.map((r) => r.status()))).some((s) => s.store.leader), 30_000);
    assert.equal((await verify(replicas[0] as Replica)).ok, true);
  });

  it('svc up fails at startup when the database cannot be reached, without showing the password', async () => {
    const closed = `postgres://svc:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${await freePort()}/nowhere`;
    await assert.rejects(startReplica({ dbUrl: closed }), (err: Error) => {
      assert.match(err.message, /svc up -d failed: svc up: startup failed: cannot reach PostgreSQL at postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
      for (const secret of [PG_PASSWORD, encodeURIComponent(PG_PASSWORD)]) assert.ok(!err.message.includes(secret), err.message);
      return true;
    });
  });
});
