/**
 * `svc check` on a running deployment (issue 26): the ports its own daemon holds — same $SVC_HOME, same
 * agents, a live pid recorded as running — are fine, so the check passes before a restart (systemd's
 * ExecStartPre). A port held by anything else still fails it: another home's daemon on the same
 * ports, a process squatting on a port the configuration now wants, a daemon of this home running
 * other agents.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { freePort } from './support/http.js';
import { runSvc, tempEnv } from './support/svc.js';

describe('svc check on a running deployment', () => {
  let d: Daemon;
  const ingestPort = (): number => Number(new URL(d.url).port);
  before(async () => { d = await startDaemon(); });
  after(async () => { await d.stop(); });

  it('passes while its own daemon holds the ports, and says so', async () => {
    const r = await runSvc(['check', d.dir], { env: d.env, cwd: d.dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`svc check: ok; ports free: none; held by the svc running in this \\$SVC_HOME \\(pid ${d.pid()}\\): `
      + `127\\.0\\.0\\.1:${ingestPort()}, 127\\.0\\.0\\.1:${d.cpPort}\\n`));
    const json = await runSvc(['check', d.dir, '--json'], { env: d.env, cwd: d.dir });
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as { ok: boolean; running?: { pid: number; heldPorts: string[] }; problems: string[] };
    assert.deepEqual([report.ok, report.running, report.problems],
      [true, { pid: d.pid(), heldPorts: [`127.0.0.1:${ingestPort()}`, `127.0.0.1:${d.cpPort}`] }, []]);
  });

  it('fails on a port another process holds, naming it, while its own ones stay fine', async () => {
    const squatted = await freePort();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(squatted, '127.0.0.1', () => resolve()));
    const sources = join(d.dir, 'event-sources.yaml');
    const original = readFileSync(sources, 'utf8');
    try {
      // The next configuration moves the source to a port something else holds.
      writeFileSync(sources, original.replace(`port: ${ingestPort()}`, `port: ${squatted}`));
      const r = await runSvc(['check', d.dir, '--json'], { env: d.env, cwd: d.dir });
      assert.equal(r.code, 2, r.stdout);
      const report = JSON.parse(r.stdout) as { ok: boolean; running?: { heldPorts: string[] }; problems: string[] };
      assert.deepEqual(report.problems, [`port ${squatted} (source alertmanager of agent oncall-escalator): in use `
        + `(svc runs in this $SVC_HOME as pid ${d.pid()})`]);
      assert.deepEqual(report.running?.heldPorts, [`127.0.0.1:${d.cpPort}`]);
    } finally {
      writeFileSync(sources, original);
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('fails when the ports are held by a daemon of another $SVC_HOME', async () => {
    const other = tempEnv();
    try {
      const dir = join(other.work, 'agent');
      cpSync(d.dir, dir, { recursive: true });
      cpSync(join(d.home, 'secrets'), join(other.home, 'secrets'), { recursive: true }); // the same deployment, installed twice
      const r = await runSvc(['check', dir], { env: { ...other.env, SVC_METRICS_PORT: '' }, cwd: dir });
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, new RegExp(`port ${ingestPort()} \\(source alertmanager of agent oncall-escalator\\): in use\\n`));
      assert.match(r.stderr, new RegExp(`port ${d.cpPort} \\(the control plane\\): in use\\n`));
      assert.doesNotMatch(r.stdout, /held by/);
    } finally {
      other.cleanup();
    }
  });
});
