/**
 * Moving from SQLite to PostgreSQL (contract §16.7), as an operator does it: a daemon on the embedded
 * store handles alerts and stops; `svc store copy --to URL` copies its store with the chain verified
 * before and after; the same agent then runs on PostgreSQL and carries on from there — the copied
 * fingerprints are still duplicates, the chain goes on and verifies.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { postAlert } from './support/http.js';
import type { PgCluster } from './support/postgres.js';
import { PG_PASSWORD, startPgCluster } from './support/postgres.js';
import { queryStore, readJsonLines } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const cluster: PgCluster = await startPgCluster();
const t = tempEnv();
after(async () => {
  await runSvc(['down'], { env: t.env, cwd: t.work }).catch(() => undefined);
  t.cleanup();
  cluster.close();
});

describe('svc store copy', () => {
  it('copies a stopped SQLite store into PostgreSQL, verified before and after; the agent carries on there', async () => {
    const agent = await scaffoldAgent(t);
    const env = { ...t.env, SVC_METRICS_PORT: String(agent.cpPort) };
    assert.equal((await runSvc(['up', '-d'], { env, cwd: agent.dir })).code, 0);
    const accepted = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const res = await postAlert(agent.url, agent.secret, agent.fixture, `copy-${i}`);
      assert.equal(res.status, 202);
      accepted.set(`copy-${i}`, String(res.json?.eventId));
    }
    const out = `${agent.dir}/out/oncall-dm.jsonl`;
    await waitFor('40 deliveries', () => readJsonLines(out).length === 40);
    const url = await cluster.createDatabase('copied');

    const refused = await runSvc(['store', 'copy', '--to', url], { env, cwd: agent.dir });
    assert.equal(refused.code, 1, 'refused while the daemon runs on the file');
    assert.match(refused.stderr, /stop it with `svc down` first/);
    assert.equal((await runSvc(['down'], { env, cwd: agent.dir })).code, 0);

    const auditRows = queryStore<{ n: number; hash: string }>(t.home, 'SELECT count(*) AS n, (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1) AS hash FROM audit')[0];
    const copy = await runSvc(['store', 'copy', '--to', url], { env, cwd: agent.dir });
    assert.equal(copy.code, 0, copy.stderr);
    assert.match(copy.stdout, new RegExp(`source chain verified: ${auditRows?.n} row\\(s\\)`));
    assert.match(copy.stdout, new RegExp(`target chain verified: ${auditRows?.n} row\\(s\\), head ${auditRows?.n} ${auditRows?.hash}`));
    assert.match(copy.stdout, /copied 40 event\(s\), 0 dead letter\(s\), \d+ audit row\(s\), 40 live fingerprint\(s\)/);
    assert.ok(!copy.stdout.includes(PG_PASSWORD) && !copy.stdout.includes(encodeURIComponent(PG_PASSWORD)), 'the password is never shown');
    const [copied] = await cluster.query<{ n: number; hash: string }>('copied', 'SELECT count(*) AS n, (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1) AS hash FROM audit');
    assert.deepEqual([Number(copied?.n), copied?.hash], [auditRows?.n, auditRows?.hash]);

    const again = await runSvc(['store', 'copy', '--to', url], { env, cwd: agent.dir });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /target store is not empty/);

    appendAgentYaml(agent.dir, 'store:\n  kind: postgres\n  url: ${env:SVC_DATABASE_URL}');
    const pgEnv = { ...env, SVC_DATABASE_URL: url };
    const up = await runSvc(['up', '-d'], { env: pgEnv, cwd: agent.dir });
    assert.equal(up.code, 0, up.stderr);
    const dup = await postAlert(agent.url, agent.secret, agent.fixture, 'copy-7');
    assert.deepEqual([dup.status, dup.json?.eventId], [200, accepted.get('copy-7')], 'a copied fingerprint is still a duplicate');
    assert.equal((await postAlert(agent.url, agent.secret, agent.fixture, 'after-copy')).status, 202);
    await waitFor('the new alert delivered', () => readJsonLines(out).length === 41);
    const verify = await runSvc(['audit', '--verify', '--json'], { env: pgEnv, cwd: agent.dir });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const events = await fetch(`${agent.cp}/events?limit=1000`).then(async (r) => (await r.json()) as { items: unknown[] });
    assert.equal(events.items.length, 41);
    const status = await fetch(`${agent.cp}/status`).then(async (r) => (await r.json()) as { store: { kind: string } });
    assert.equal(status.store.kind, 'postgres');
    assert.equal((await runSvc(['down'], { env: pgEnv, cwd: agent.dir })).code, 0);
  });
});

describe('svc check with a PostgreSQL store', () => {
  it('reaches the database without changing it; a wrong password is exit 2, naming the host and never the password', async () => {
    const c = tempEnv();
    try {
      const agent = await scaffoldAgent(c);
      appendAgentYaml(agent.dir, 'store:\n  kind: postgres\n  url: ${env:SVC_DATABASE_URL}');
      const url = await cluster.createDatabase('checked');
      const ok = await runSvc(['check', '--json'], { env: { ...c.env, SVC_DATABASE_URL: url }, cwd: agent.dir });
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { ok: boolean }).ok, true);
      const tables = await cluster.query<{ n: number }>('checked', "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'");
      assert.equal(tables[0]?.n, 0, 'svc check created no table');

      const wrong = url.replace(encodeURIComponent(PG_PASSWORD), 'not-the-password-42');
      assert.notEqual(wrong, url);
      const bad = await runSvc(['check', '--json'], { env: { ...c.env, SVC_DATABASE_URL: wrong }, cwd: agent.dir });
      assert.equal(bad.code, 2);
      const problems = (JSON.parse(bad.stdout) as { problems: string[] }).problems;
      assert.ok(problems.some((p) => p.startsWith(`cannot reach PostgreSQL at postgres://${'svc'}:***@127.0.0.1:${cluster.port}/checked`)), problems.join('\n'));
      assert.ok(!bad.stdout.includes('not-the-password-42') && !bad.stderr.includes('not-the-password-42'));
    } finally {
      c.cleanup();
    }
  });
});
