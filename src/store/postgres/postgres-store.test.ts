import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../test/support/http.js';
import type { PgCluster } from '../../../test/support/postgres.js';
import { PG_PASSWORD, startPgCluster } from '../../../test/support/postgres.js';
import { accept, ev, q, storeContract } from '../../../test/support/store-contract.js';
import { openPlan } from '../../../test/support/oncall-store-contract.js';
import { planResolve } from '../../oncall/page-plan.js';
import { openStore } from '../open-store.js';
import { STORY_COLS, pageStoryFrom, storyFrom, timelineSql } from '../story-rows.js';
import { createPool } from './pool.js';
import { openPostgresStore } from './postgres-store.js';
import { SCHEMA_VERSION } from './schema.js';

const T0 = Date.UTC(2026, 0, 1);
const cluster: PgCluster = await startPgCluster();
after(() => cluster.close());
let count = 0;
let lastDb = '';
const freshDb = async (): Promise<string> => {
  lastDb = `contract_${++count}`;
  return cluster.createDatabase(lastDb);
};

storeContract('postgres store', {
  open: async (opts) => openPostgresStore({ url: await freshDb(), ...opts }),
  openAgain: () => openPostgresStore({ url: cluster.url(lastDb) }),
  settings: () => ({ kind: 'postgres', url: cluster.url(lastDb), leaseMs: 60_000, retention: { eventsMs: null, deadLettersMs: null } }),
  tamperAudit: async (seq, dataText = '{"tampered":true}') => { await cluster.query(lastDb, 'UPDATE audit SET data = $2 WHERE seq = $1', [seq, dataText]); },
  damageOncall: async (table, key, body) => {
    await cluster.query(lastDb, `UPDATE ${table} SET body = $1 WHERE ${table === 'pages' ? 'id' : 'delivery_id'} = $2`, [body, key]);
  },
  emptyTablesBut: async (keep) => {
    const tables = await cluster.query<{ tablename: string }>(lastDb, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    const gone = tables.map((t) => t.tablename).filter((t) => !keep.includes(t));
    await cluster.query(lastDb, `TRUNCATE ${gone.map((t) => `"${t}"`).join(', ')}`);
  },
  replicas: true,
  openConnections: async () => Number((await cluster.query<{ n: string }>('postgres',
    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'svc'"))[0]?.n),
});

describe('postgres store: schema and connection', () => {
  it('every session carries the server-side limits that free a frozen replica\'s locks', async () => {
    const pool = createPool({ url: await freshDb() });
    try {
      const show = async (name: string): Promise<string> => String((await pool.query(`SHOW ${name}`)).rows[0]?.[name]);
      assert.deepEqual([await show('idle_in_transaction_session_timeout'), await show('lock_timeout'), await show('tcp_keepalives_idle')],
        ['30s', '50s', '30']);
      const relaxed = createPool({ url: cluster.url(lastDb), relaxed: true });
      try {
        assert.equal(String((await relaxed.query('SHOW synchronous_commit')).rows[0]?.synchronous_commit), 'off');
        assert.equal(String((await relaxed.query('SHOW lock_timeout')).rows[0]?.lock_timeout), '50s');
      } finally {
        await relaxed.end();
      }
    } finally {
      await pool.end();
    }
  });

  it('replicas starting together migrate once; the version is recorded', async () => {
    const url = await freshDb();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore({ url })));
    await Promise.all(stores.map((s) => s.close()));
    const [row] = await cluster.query<{ version: number }>(lastDb, 'SELECT version FROM schema_version');
    assert.equal(row?.version, SCHEMA_VERSION);
  });

  it('a replica of an older schema refuses a newer one', async () => {
    const url = await freshDb();
    await (await openPostgresStore({ url })).close();
    await cluster.query(lastDb, 'UPDATE schema_version SET version = 99');
    await assert.rejects(openStore({ kind: 'postgres', url, leaseMs: 60_000, retention: { eventsMs: null, deadLettersMs: null } }),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'ESTORE_SCHEMA');
        assert.match(err.message, /schema version 99 is newer/);
        return true;
      });
  });

  it('an unreachable database or a wrong password is named without the password', async () => {
    const closed = `postgres://svc:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${await freePort()}/x`;
    const wrong = cluster.url('postgres').replace(encodeURIComponent(PG_PASSWORD), 'not-the-password-42');
    for (const url of [closed, wrong]) {
      await assert.rejects(openPostgresStore({ url }), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'ESTORE_UNREACHABLE');
        assert.match(err.message, /postgres:\/\/svc:\*\*\*@127\.0\.0\.1:\d+\//);
        for (const secret of [PG_PASSWORD, encodeURIComponent(PG_PASSWORD), 'not-the-password-42']) assert.ok(!err.message.includes(secret), err.message);
        return true;
      });
    }
  });

  it('stores payloads and audit data as the exact text, not jsonb', async () => {
    const store = await openPostgresStore({ url: await freshDb() });
    const payloadText = '{ "z": 1,  "a": [1.50, "\\u00e9"], "dup": 1, "dup": 2 }';
    const id = await accept(store, ev({ payloadText }));
    const [row] = await cluster.query<{ payload: string; t: string }>(lastDb, 'SELECT payload, pg_typeof(payload)::text AS t FROM events WHERE id = $1', [id]);
    assert.deepEqual(row, { payload: payloadText, t: 'text' });
    assert.equal((await store.listEvents(q(), {})).items[0]?.payloadText, payloadText);
    assert.equal((await store.verifyAudit()).ok, true);
    await store.close();
  });
});

describe('postgres store: stories and timelines (issue 33)', () => {
  it('are searches of the indexes over what the rows name (audit_ref), never a scan of the chain', async () => {
    const pool = createPool({ url: await freshDb() });
    const client = await pool.connect();
    try {
      await (await openPostgresStore({ url: cluster.url(lastDb) })).close();
      // On a table this small a scan is cheaper; forbidding it shows the index can answer the very expression the queries use.
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string, params: unknown[]): Promise<string> =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(await plan(`SELECT ${STORY_COLS} ${storyFrom('postgres', '$1')} LIMIT $2`, ['x', 1]), /Index Scan (using|on) audit_event_ref/);
      assert.match(await plan(`SELECT ${STORY_COLS} ${pageStoryFrom('postgres', '$1')} LIMIT $2`, ['x', 1]), /Index Scan (using|on) audit_page_ref/);
      assert.match(await plan(timelineSql('postgres', 'seq', '$1'), ['x']), /Index Scan (using|on) audit_page_ref/);
    } finally {
      client.release();
      await pool.end();
    }
  });
});

describe('postgres store: the database stops and comes back', () => {
  let store: Awaited<ReturnType<typeof openPostgresStore>>;
  const errors: string[] = [];
  before(async () => { store = await openPostgresStore({ url: await freshDb(), onError: (m) => errors.push(m) }); });
  after(() => store.close());

  it('calls reject while it is away and work resumes on the same store object when it returns', async () => {
    await accept(store, ev({ fingerprint: 'before' }), T0);
    cluster.stop('fast');
    try {
      await assert.rejects(store.ingestEvent(ev({ fingerprint: 'during' }), T0 + 1));
      await assert.rejects(store.probeWrite(T0 + 1));
      await assert.rejects(store.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 5, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 + 1 }));
    } finally {
      cluster.start();
    }
    await store.probeWrite(T0 + 2);
    const during = await store.ingestEvent(ev({ fingerprint: 'during' }), T0 + 3);
    assert.equal(during.outcome, 'accepted', 'nothing was recorded while it was away');
    assert.equal((await store.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 5, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 + 4 })).length, 2);
    assert.equal((await store.verifyAudit()).ok, true);
    for (const m of errors) assert.ok(!m.includes(PG_PASSWORD), m);
  });
});

describe('postgres store: page plans share the chain writer\'s transactions (issue 21)', () => {
  /** How many transactions wrote the rows: rows written by one share its id (xmin). */
  const writers = async (table: string, where = 'true'): Promise<number> =>
    Number((await cluster.query<{ n: string }>(lastDb, `SELECT count(DISTINCT xmin::text) AS n FROM ${table} WHERE ${where}`))[0]?.n);

  it('plans applied together commit in one transaction — pages, audit rows and notifications — each caller answered after it', async () => {
    const store = await openPostgresStore({ url: await freshDb() });
    try {
      const plans = Array.from({ length: 40 }, (_, i) => openPlan(`together-${i}`, T0));
      const results = await Promise.all(plans.map((p) => store.oncall.applyPagePlan(p, T0, { owner: 'r1', leaseMs: 30_000 })));
      // Answered: so committed. Every plan's round is claimed for r1 as it was written.
      assert.deepEqual(results.map((r) => (r.ok ? r.claimed?.map((c) => c.notification.deliveryId) : r.reason)),
        plans.map((p) => p.notifications.map((n) => n.deliveryId)));
      assert.deepEqual([await writers('pages'), await writers('audit'), await writers('page_notifications')], [1, 1, 1]);
      assert.equal(Number((await cluster.query<{ n: string }>(lastDb, 'SELECT count(*) AS n FROM pages'))[0]?.n), 40);
      assert.equal((await store.verifyAudit()).ok, true);
    } finally {
      await store.close();
    }
  });

  it('a statement that fails (a NUL in an incident key) refuses its own plan only: the others are written again one by one and commit', async () => {
    const store = await openPostgresStore({ url: await freshDb() });
    try {
      const good = [openPlan('nul-1', T0), openPlan('nul-2', T0)];
      const bad = openPlan('nul-\u0000-3', T0);
      const results = await Promise.allSettled([good[0]!, bad, good[1]!].map((p) => store.oncall.applyPagePlan(p, T0)));
      assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code?: string }).code)), [{ ok: true }, '22021', { ok: true }]);
      for (const p of good) assert.deepEqual(await store.oncall.getPage(p.page.id), p.page);
      assert.equal(await store.oncall.getPage(bad.page.id), null);
      assert.deepEqual(await store.oncall.pageTimeline(bad.page.id), []);
      assert.equal((await store.verifyAudit()).ok, true);
      // After the replay the writer batches again: a fresh group shares one transaction.
      const next = Array.from({ length: 5 }, (_, i) => openPlan(`after-nul-${i}`, T0 + 1));
      await Promise.all(next.map((p) => store.oncall.applyPagePlan(p, T0 + 1)));
      assert.equal(await writers('pages', `incident_key LIKE 'after-nul-%'`), 1);
    } finally {
      await store.close();
    }
  });

  it('plans of one incident key applied together are judged in turn: a resolve and the next open of its key both commit; a second open is a conflict', async () => {
    const store = await openPostgresStore({ url: await freshDb() });
    try {
      const first = openPlan('same-key', T0);
      assert.deepEqual(await store.oncall.applyPagePlan(first, T0), { ok: true });
      const resolved = planResolve(first.page, { actor: 'cli:test', by: 'alice', via: 'cli' }, null, null, T0 + 1);
      assert.ok(resolved.ok && resolved.plan !== null);
      const [next, twice, other] = [openPlan('same-key', T0 + 1), openPlan('same-key', T0 + 1), openPlan('other-key', T0 + 1)];
      const results = await Promise.all([resolved.plan, next, twice, other].map((p) => store.oncall.applyPagePlan(p, T0 + 1)));
      assert.deepEqual(results, [{ ok: true }, { ok: true }, { ok: false, reason: 'conflict' }, { ok: true }]);
      assert.equal((await store.oncall.findPage('agent-a', 'same-key'))?.id, next.page.id);
      assert.equal(await store.oncall.getPage(twice.page.id), null);
      assert.equal((await store.verifyAudit()).ok, true);
    } finally {
      await store.close();
    }
  });
});
