/**
 * `svc fleet` against hostile hosts (issue 19), the built CLI against stand-in control planes
 * (test/support/fake-control-plane.ts) that loop their cursor, send endless 15 MB pages, never catch
 * up, send an endless SSE line or an endless flood of records, or answer an odd /status. Each such
 * host is reported failed with a short reason; the healthy host still prints and the command ends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeStatus, startFakeControlPlane } from './support/fake-control-plane.js';
import type { FakeControlPlane } from './support/fake-control-plane.js';
import { writeSecret } from '../src/config/secrets.js';
import { runSvc, spawnSvc } from './support/svc.js';
import type { RunResult } from './support/svc.js';
import { waitFor } from './support/wait.js';

interface Envelope {
  items: Array<Record<string, unknown> & { host: string }>;
  hosts: Array<{ name: string; ok: boolean; error: string | null }>;
  complete: boolean;
}

const MB = 1_000_000;

describe('svc fleet against hostile hosts (built CLI)', () => {
  let root: string;
  const hosts = new Map<string, FakeControlPlane>();
  const host = (name: string): FakeControlPlane => hosts.get(name) as FakeControlPlane;
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: root, SVC_HOME: join(root, 'home'), NO_COLOR: '1' });
  const fleet = (args: string[], measureRss = false): Promise<RunResult> =>
    runSvc(['fleet', ...args], { env: env(), cwd: root, measureRss, timeoutMs: 180_000 });
  const figures: string[] = [];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-fleet-hostile-'));
    const record = (second: number, event: string): Record<string, unknown> =>
      ({ ts: new Date(Date.UTC(2030, 0, 1, 0, 0, second)).toISOString(), level: 'info', agentId: 'agent-1', event });
    const rows = Array.from({ length: 5 }, (_, i) => ({ ts: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(), id: `ok-${i}`,
      agentId: 'agent-1', sourceId: 'am', kind: 'webhook', status: 'processed', fingerprint: null, payload: {} }));
    hosts.set('ok', await startFakeControlPlane({ events: rows, logs: [record(1, 'ok-one'), record(2, 'ok-two')] }));
    hosts.set('loop', await startFakeControlPlane({ hostile: 'loop-cursor' }));
    hosts.set('big', await startFakeControlPlane({ hostile: 'big-pages' }));
    hosts.set('never', await startFakeControlPlane({ hostile: 'never-caught-up', logs: [record(3, 'never-one')] }));
    hosts.set('line', await startFakeControlPlane({ hostile: 'endless-line' }));
    hosts.set('flood', await startFakeControlPlane({ hostile: 'endless-records' }));
    const odd = fakeStatus(['agent-1']);
    hosts.set('nokind', await startFakeControlPlane({ status: { ...odd, store: {} } }));
    hosts.set('noid', await startFakeControlPlane({ status: { ...odd, agents: [{ ...(odd.agents as object[])[0], id: undefined }] } }));
    writeFileSync(join(root, 'fleet.yaml'), ['hosts:',
      ...[...hosts].map(([name, h]) => `  - { name: ${name}, url: "${h.url}"${name === 'never' ? ', deadlineMs: 2000' : ''} }`), ''].join('\n'));
  });
  after(async () => {
    await Promise.all([...hosts.values()].map((h) => h.close()));
    rmSync(root, { recursive: true, force: true });
    if (figures.length > 0) console.log(figures.join('\n'));
  });

  it('events: a looping cursor and endless 15 MB pages fail their hosts, the healthy host prints, memory stays bounded', async () => {
    const r = await fleet(['events', '--json', '--host', 'ok', '--host', 'loop', '--host', 'big'], true);
    assert.equal(r.code, 1, r.stderr);
    const body = JSON.parse(r.stdout) as Envelope;
    assert.deepEqual(body.hosts, [
      { name: 'ok', ok: true, error: null },
      { name: 'loop', ok: false, error: 'cursor repeats' },
      { name: 'big', ok: false, error: 'answers over 64 MiB in all' },
    ]);
    assert.deepEqual(body.items.map((i) => i.id), ['ok-4', 'ok-3', 'ok-2', 'ok-1', 'ok-0']);
    assert.equal(r.stderr, '1/3 hosts answered\nloop: cursor repeats\nbig: answers over 64 MiB in all\n');
    // Positive evidence the walk stopped: the looping host was asked twice, the big one sent ~5 pages of 40.
    assert.equal(host('loop').requests.get('/events'), 2);
    assert.ok(host('big').hostileSent() < 150 * MB, `big host sent ${host('big').hostileSent()} bytes`);
    const rssMiB = (r.maxRssKiB ?? 0) / 1024;
    figures.push(`svc fleet events, a host offering 40 pages of 15 MB (600 MB): CLI peak RSS ${rssMiB.toFixed(0)} MiB, ` +
      `${(host('big').hostileSent() / MB).toFixed(0)} MB read`);
    assert.ok(rssMiB > 0 && rssMiB < 1024, `peak RSS ${rssMiB} MiB`);
  });

  it('logs: no caught-up fails at deadlineMs, an endless line and an endless flood at their caps; the healthy host prints', async () => {
    const r = await fleet(['logs', '--host', 'ok', '--host', 'never', '--host', 'line', '--host', 'flood'], true);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n').map((l) => l.split(/ +/)[4]), ['ok-one', 'ok-two']);
    assert.ok(r.stderr.endsWith('1/4 hosts answered\nnever: no complete answer within 2000 ms\nline: stream line too long\n' +
      'flood: log records over 64 MiB in all\n'), r.stderr);
    assert.ok(host('line').hostileSent() < 64 * MB, `line host sent ${host('line').hostileSent()} bytes`);
    assert.ok(host('flood').hostileSent() < 200 * MB, `flood host sent ${host('flood').hostileSent()} bytes`);
    const rssMiB = (r.maxRssKiB ?? 0) / 1024;
    figures.push(`svc fleet logs, hosts offering a 600 MB line and 600 MB of records: CLI peak RSS ${rssMiB.toFixed(0)} MiB ` +
      `(${(host('line').hostileSent() / MB).toFixed(1)} MB and ${(host('flood').hostileSent() / MB).toFixed(0)} MB read)`);
    assert.ok(rssMiB > 0 && rssMiB < 1024, `peak RSS ${rssMiB} MiB`);
  });

  it('logs -f: a host sending an endless line is no longer followed; the healthy host is', async () => {
    const sent = host('line').hostileSent();
    const p = spawnSvc(['fleet', 'logs', '-f', '--since', '0', '--host', 'ok', '--host', 'line'], { env: env(), cwd: root });
    await waitFor('the healthy host printed', () => p.stdout().includes('ok-two'), 60_000);
    await waitFor('the endless line refused', () => p.stderr().includes('svc fleet: line: stream line too long; no longer followed'), 60_000);
    const r = await p.stop();
    assert.equal(r.code, 1);
    assert.ok(r.stderr.endsWith('1/2 hosts answered\nline: stream line too long\n'), r.stderr);
    assert.ok(host('line').hostileSent() - sent < 64 * MB);
  });

  it('ps: a /status without store.kind or an agent without id fails that host only', async () => {
    const r = await fleet(['ps', '--host', 'ok', '--host', 'nokind', '--host', 'noid']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^ok +4242 +60s +agent-1 +running +rules +3 +2 +1 +0 +sqlite$/m);
    assert.equal(r.stdout.trimEnd().split('\n').length, 2);
    assert.equal(r.stderr, '1/3 hosts answered\nnokind: not a status snapshot\nnoid: not a status snapshot\n');
    const json = await fleet(['ps', '--json', '--host', 'ok', '--host', 'noid']);
    assert.deepEqual((JSON.parse(json.stdout) as Envelope).hosts.map((h) => [h.name, h.error]), [['ok', null], ['noid', 'not a status snapshot']]);
  });

  it('a ./fleet.yaml someone else owns (or others may write) is refused when it reads ${secret:}/${file:}; --file uses it', async () => {
    const secret = 'fleet-bearer-secret-0123456789';
    writeSecret(join(root, 'home'), 'fleet/token', secret);
    const thief = await startFakeControlPlane({ token: secret });
    try {
      const shared = join(root, 'shared');
      mkdirSync(shared, { mode: 0o777 });
      const file = join(shared, 'fleet.yaml');
      writeFileSync(file, `hosts:\n  - name: thief\n    url: "${thief.url}"\n    auth: { type: bearer, token: "\${secret:fleet/token}" }\n`);
      chownSync(file, 4242, 4242); // written by another user
      const run = (args: string[]): Promise<RunResult> => runSvc(['fleet', 'ps', ...args], { env: env(), cwd: shared });
      const refused = await run([]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(refused.stderr, `svc: configuration error:\n${file} is owned by uid 4242, not by you (uid ${process.getuid?.()}), and it reads \${secret:…} or ` +
        `\${file:…} references, which would be sent to the hosts it names; if you trust it, pass it explicitly: --file ${file}\n`);
      assert.equal(refused.stdout, '');
      chownSync(file, process.getuid?.() ?? 0, process.getgid?.() ?? 0);
      chmodSync(file, 0o666);
      const writable = await run([]);
      assert.equal(writable.code, 2);
      assert.match(writable.stderr, /fleet\.yaml is writable by group or others, and it reads/);
      assert.equal(thief.requests.get('/status'), undefined, 'the host named by the file was never asked');
      // Chosen explicitly, the same file is used; a file reading only ${env:} is not judged.
      const chosen = await run(['--file', 'fleet.yaml']);
      assert.equal(chosen.code, 0, chosen.stderr);
      assert.equal(thief.requests.get('/status'), 1);
      writeFileSync(file, `hosts:\n  - { name: lab, url: "${host('ok').url}" }\n`);
      chownSync(file, 4242, 4242);
      assert.equal((await run([])).code, 0);
      assert.ok(![refused, writable, chosen].some((r) => (r.stdout + r.stderr).includes(secret)));
    } finally {
      await thief.close();
    }
  });

  it('a ./fleet.yaml of your own outside $SVC_HOME (a cloned repository) is refused when it reads ${secret:}; --file or $SVC_HOME/fleet.yaml work', async () => {
    const secret = 'fleet-bearer-secret-cloned-0123456789';
    writeSecret(join(root, 'home'), 'fleet/cloned', secret);
    const thief = await startFakeControlPlane({ token: secret });
    try {
      const repo = join(root, 'cloned-repo');
      mkdirSync(repo, { mode: 0o755 });
      const file = join(repo, 'fleet.yaml');
      const text = `hosts:\n  - name: thief\n    url: "${thief.url}"\n    auth: { type: bearer, token: "\${secret:fleet/cloned}" }\n`;
      writeFileSync(file, text, { mode: 0o644 }); // yours, 0644: what git clone leaves
      const run = (args: string[], cwd = repo): Promise<RunResult> => runSvc(['fleet', 'ps', ...args], { env: env(), cwd });
      const refused = await run([]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(refused.stderr, `svc: configuration error:\n${file} is not in $SVC_HOME (${join(root, 'home')}) and was not named with --file, `
        + 'and it reads ${secret:…} or ${file:…} references, which would be sent to the hosts it names; if you trust it, pass it explicitly: '
        + `--file ${file}\n`);
      assert.equal(thief.requests.get('/status'), undefined, 'the host named by the file was never asked');
      const chosen = await run(['--file', 'fleet.yaml']);
      assert.equal(chosen.code, 0, chosen.stderr);
      assert.equal(thief.requests.get('/status'), 1);
      // The same file as $SVC_HOME/fleet.yaml, from a directory without one: used as before.
      writeFileSync(join(root, 'home', 'fleet.yaml'), text, { mode: 0o600 });
      const elsewhere = join(root, 'elsewhere');
      mkdirSync(elsewhere);
      const own = await run([], elsewhere);
      assert.equal(own.code, 0, own.stderr);
      assert.equal(thief.requests.get('/status'), 2);
      assert.ok(![refused, chosen, own].some((r) => (r.stdout + r.stderr).includes(secret)));
    } finally {
      rmSync(join(root, 'home', 'fleet.yaml'), { force: true });
      await thief.close();
    }
  });
});
