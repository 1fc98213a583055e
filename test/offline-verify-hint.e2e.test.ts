/**
 * Right after a crash or a stop is when an operator checks the audit chain: `svc audit --verify`
 * with no daemon running says how to verify the store file itself, and that command works.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';

describe('svc audit --verify with svc stopped', () => {
  const t = tempEnv();
  after(() => t.cleanup());

  it('names the offline check of its store file, which verifies the chain', async () => {
    const a = await scaffoldAgent(t, 'offline');
    const env = { ...t.env, SVC_METRICS_PORT: String(a.cpPort) };
    const up = await runSvc(['up', '-d'], { env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    assert.equal((await runSvc(['down'], { env, cwd: a.dir })).code, 0);

    const db = join(t.home, 'svc.db');
    const online = await runSvc(['audit', '--verify'], { env, cwd: a.dir });
    assert.equal(online.code, 1);
    assert.match(online.stderr, new RegExp(`cannot reach the control plane .*; with svc stopped, verify its store file: svc audit --verify --db ${db.replace(/[.]/g, '\\.')}\\n$`));
    const offline = await runSvc(['audit', '--verify', '--db', db], { env, cwd: a.dir });
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /: chain ok: \d+ rows checked/);
  });
});
