/**
 * `svc silence add|ls|expire` through the built daemon's admin socket (contract §17.8): each audited,
 * a silence longer than a week or a bad matcher a usage error before anything is sent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { auditRows } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import type { ScaffoldedAgent } from './support/svc.js';

describe('svc silence against the running daemon', () => {
  const t = tempEnv();
  let agent: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  const svc = (...args: string[]) => runSvc(args, { env, cwd: agent.dir });

  before(async () => {
    agent = await scaffoldAgent(t);
    renameSync(join(agent.dir, 'oncall.example.yaml'), join(agent.dir, 'oncall.yaml'));
    env = { ...t.env, SVC_METRICS_PORT: '', USER: 'carol' };
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    t.cleanup();
  });

  it('add, ls, expire: each an audit row naming who; an expired silence leaves ls', async () => {
    const added = await svc('silence', 'add', '--match', 'alertname=DiskFull', '--match', 'instance=~db-.*', '--for', '2h', '--reason', 'disk swap', '--json');
    assert.equal(added.code, 0, added.stderr);
    const s = JSON.parse(added.stdout) as { id: string; matchers: string[]; reason: string; createdBy: string; startsAt: string; endsAt: string };
    assert.deepEqual(s.matchers, ['alertname=DiskFull', 'instance=~db-.*']);
    assert.equal(s.createdBy, 'cli:carol');
    assert.equal(Date.parse(s.endsAt) - Date.parse(s.startsAt), 7_200_000);

    const ls = await svc('silence', 'ls', '--json');
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual(ls.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id), [s.id]);
    const table = await svc('silence', 'ls');
    assert.match(table.stdout, new RegExp(`^ID +MATCHERS +AGENT +UNTIL +BY +REASON\\n${s.id} +alertname=DiskFull instance=~db-\\.\\* +\\* +\\S+ +cli:carol +disk swap\\n$`));

    const expired = await svc('silence', 'expire', s.id);
    assert.equal(expired.code, 0, expired.stderr);
    assert.equal(expired.stdout, `silence ${s.id} expired\n`);
    assert.equal((await svc('silence', 'ls')).stdout, 'no live silences\n');

    const rows = auditRows(t.home).filter((r) => r.data.silenceId === s.id);
    assert.deepEqual(rows.map((r) => [r.kind, r.actor]), [['silence.created', 'cli:carol'], ['silence.expired', 'cli:carol']]);
  });

  it('bad input: longer than a week or a bad matcher is exit 2; an unknown silence is exit 1', async () => {
    const long = await svc('silence', 'add', '--match', 'a=b', '--for', '8d', '--reason', 'x');
    assert.equal(long.code, 2);
    assert.equal(long.stderr, 'svc silence add: --for 8d is longer than 1w; silence at most a week at a time\n');
    const bad = await svc('silence', 'add', '--match', 'a=~(x+)+', '--for', '1h', '--reason', 'x');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^svc silence add: --match "a=~\(x\+\)\+": the regular expression of a: a repeated group/);
    const none = await svc('silence', 'expire', 'sdeadbeef');
    assert.equal(none.code, 1);
    assert.equal(none.stderr, 'svc silence expire sdeadbeef: no silence sdeadbeef\n');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'silence.created').length, 1);
  });
});
