/**
 * `svc fleet` (contract §15) end to end: the built CLI against three real daemons on loopback — one
 * open on loopback, one that takes a fixed bearer token, one behind OIDC with a real oidc-provider
 * issuing client-credentials tokens (reached through a TCP proxy that can cut its connections) — plus
 * a closed port and a host that accepts connections and never answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from './support/daemon.js';
import type { Daemon } from './support/daemon.js';
import { freePort, postAlert } from './support/http.js';
import { AUDIENCE, SCOPE, fetchToken, startIdp } from './support/idp.js';
import type { Idp } from './support/idp.js';
import { queryStore } from './support/store.js';
import { runSvc, spawnSvc } from './support/svc.js';
import type { RunResult } from './support/svc.js';
import { startSilentServer, startTcpProxy } from './support/tcp.js';
import type { SilentServer, TcpProxy } from './support/tcp.js';
import { waitFor } from './support/wait.js';

const CLIENT_SECRET = 'fleet-client-secret-0123456789abcdef';

interface Envelope {
  items: Array<Record<string, unknown> & { host: string }>;
  hosts: Array<{ name: string; ok: boolean; error: string | null; verify?: { ok: boolean; headSeq: number } | null }>;
  complete: boolean;
}

describe('svc fleet against real daemons', () => {
  let idp: Idp;
  let a: Daemon; // loopback, no auth
  let b: Daemon; // OIDC, a fixed bearer token in fleet.yaml
  let c: Daemon; // OIDC, oauth2-client in fleet.yaml, behind a TCP proxy
  let proxy: TcpProxy;
  let hang: SilentServer;
  let bToken = '';
  let work = '';
  const outputs: string[] = [];
  let n = 0;

  const env = (): NodeJS.ProcessEnv => ({ ...a.env, FLEET_B_TOKEN: bToken, FLEET_C_SECRET: CLIENT_SECRET });
  const fleet = async (...args: string[]): Promise<RunResult> => {
    const r = await runSvc(['fleet', ...args], { env: env(), cwd: work });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const tokenHits = (): number => idp.hits.get('/token') ?? 0;
  const alert = async (d: Daemon): Promise<string> => {
    const res = await postAlert(d.url, d.secret, d.fixture, `fleet-${n++}`);
    assert.equal(res.status, 202);
    return String(res.json?.eventId);
  };
  const storeIds = (d: Daemon): string[] => queryStore<{ id: string }>(d.home, 'SELECT id FROM events').map((r) => r.id).sort();

  before(async () => {
    idp = await startIdp({ 'fleet-cli': CLIENT_SECRET });
    const oidc = { provider: 'oidc', issuer: idp.issuer, audience: AUDIENCE, scopes: [SCOPE], allowLoopback: false };
    // Three independent daemons (own homes, ports): started side by side.
    [a, b, c] = await Promise.all([startDaemon(), startDaemon({ auth: oidc }), startDaemon({ auth: oidc })]);
    bToken = await fetchToken(idp, 'fleet-cli');
    proxy = await startTcpProxy(c.cpPort);
    hang = await startSilentServer();
    for (let i = 0; i < 3; i++) await alert(a);
    for (let i = 0; i < 2; i++) await alert(b);
    for (let i = 0; i < 12; i++) await alert(c);
    work = join(a.dir, '..');
    writeFileSync(join(work, 'fleet.yaml'), [
      'hosts:',
      `  - { name: a, url: "${a.cp}" }`,
      '  - name: b',
      `    url: ${b.cp}`,
      '    auth: { type: bearer, token: "${env:FLEET_B_TOKEN}" }',
      '  - name: c',
      `    url: ${proxy.url}`,
      '    auth:',
      '      type: oauth2-client',
      `      tokenEndpoint: ${idp.tokenEndpoint}`,
      '      clientId: fleet-cli',
      '      clientSecretRef: env:FLEET_C_SECRET',
      `      scopes: [${SCOPE}]`,
      `      audience: "${AUDIENCE}"`,
      `  - { name: dead, url: "http://127.0.0.1:${await freePort()}" }`,
      // Waited out by every command that asks it: short, since the length of the wait is not what is tested.
      `  - { name: hang, url: "${hang.url}", timeoutMs: 500 }`,
      '',
    ].join('\n'));
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await proxy?.close();
    await hang?.close();
    await idp?.close();
  });

  it('a partial answer is reported and exits 1: which hosts answered, one short reason for each that did not', async () => {
    const asked = hang.accepted();
    const r = await fleet('events', '--json');
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.endsWith('3/5 hosts answered\ndead: connection refused\nhang: timeout\n'), r.stderr);
    assert.ok(hang.accepted() > asked, 'the silent host was asked');
    const body = JSON.parse(r.stdout) as Envelope;
    assert.equal(body.complete, false);
    assert.deepEqual(body.hosts.map((h) => [h.name, h.ok, h.error]),
      [['a', true, null], ['b', true, null], ['c', true, null], ['dead', false, 'connection refused'], ['hang', false, 'timeout']]);
    for (const [name, d] of [['a', a], ['b', b], ['c', c]] as const) {
      assert.deepEqual(body.items.filter((i) => i.host === name).map((i) => String(i.id)).sort(), storeIds(d), name);
    }
    const table = await fleet('events');
    assert.equal(table.code, 1);
    assert.match(table.stdout.split('\n')[0] ?? '', /^HOST +TS +ID +STATUS +SEV +TITLE +TRIAGED BY +AGENT +SOURCE +STATE +FINGERPRINT$/);
  });

  it('only live hosts: exit 0; a host with more than one page has every row; one token request for the OIDC host', async () => {
    const hits = tokenHits();
    const r = await fleet('events', '--json', '--host', 'a', '--host', 'b', '--host', 'c', '--page-size', '5');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '3/3 hosts answered\n');
    const body = JSON.parse(r.stdout) as Envelope;
    assert.equal(body.complete, true);
    const cIds = body.items.filter((i) => i.host === 'c').map((i) => String(i.id));
    assert.ok(cIds.length > 10, 'c has more than two pages of 5');
    assert.deepEqual([...cIds].sort(), storeIds(c));
    assert.equal(new Set(cIds).size, cIds.length, 'no row twice');
    assert.equal(tokenHits() - hits, 1, 'the token endpoint once for the one oauth2-client host');
  });

  it('audit --verify and ps over the live hosts', async () => {
    const hits = tokenHits();
    const audit = await fleet('audit', '--verify', '--json', '--host', 'a', '--host', 'b', '--host', 'c', '--page-size', '50');
    assert.equal(audit.code, 0, audit.stderr);
    const body = JSON.parse(audit.stdout) as Envelope;
    for (const h of body.hosts) {
      assert.equal(h.verify?.ok, true, h.name);
      assert.equal(body.items.filter((i) => i.host === h.name).length, h.verify?.headSeq, `${h.name}: every audit row`);
    }
    assert.equal(tokenHits() - hits, 1);
    const ps = await fleet('ps', '--host', 'a', '--host', 'c');
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /^a +\d+ +\d+s +oncall-escalator +running +rules /m);
    assert.match(ps.stdout, /^c +\d+ +\d+s +oncall-escalator +running +rules /m);
  });

  it('logs -f: lines prefixed by host; a stream dropped mid-way resumes without gap or duplicate', async () => {
    const hits = tokenHits();
    const accepted = proxy.accepted();
    // --since: replay from this moment, then live, so no line races the opening of the streams.
    const since = new Date().toISOString();
    const follow = spawnSvc(['fleet', 'logs', '-f', '--json', '--since', since, '--host', 'a', '--host', 'c'], { env: env(), cwd: work });
    let result: RunResult | undefined;
    try {
      const printed = (host: string): Array<Record<string, unknown>> => follow.stdout().split('\n').filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.host === host);
      const seen = (host: string, eventId: string): boolean => printed(host).some((r) => r.eventId === eventId);
      await waitFor('the stream of c open through the proxy', () => proxy.open() > 0);
      // Lines written while the stream is open arrive; then the connection is cut and more are written.
      const first = await alert(c);
      await waitFor('c: a record of the first alert', () => seen('c', first));
      assert.ok(proxy.cutAll() >= 1);
      const during = [await alert(c), await alert(c)];
      const fromA = await alert(a);
      await waitFor('c: the records written while it was cut', () => during.every((id) => seen('c', id)), 30_000);
      await waitFor('a: its record', () => seen('a', fromA));
      // Everything c's log file holds from the first printed line on was printed, once, in order.
      await waitFor('c caught up with its log file', () => {
        const file = readFileSync(c.logFile, 'utf8').trimEnd().split('\n');
        return printed('c').length > 0 && JSON.stringify(printed('c').at(-1)) === JSON.stringify({ host: 'c', ...JSON.parse(file.at(-1) ?? '{}') });
      });
      result = await follow.stop('SIGINT');
    } finally {
      if (!result) await follow.stop('SIGKILL');
    }
    outputs.push(result.stdout, result.stderr);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stderr.endsWith('2/2 hosts answered\n'), result.stderr);
    assert.match(result.stderr, /svc fleet: c: connection lost; reconnecting\n/);
    assert.match(result.stderr, /svc fleet: c: reconnected\n/);
    assert.ok(proxy.accepted() - accepted >= 2, 'c was connected to twice');

    const file = readFileSync(c.logFile, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const got = result.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.host === 'c').map(({ host: _host, ...record }) => record);
    const start = file.findIndex((r) => JSON.stringify(r) === JSON.stringify(got[0]));
    assert.ok(start >= 0, 'the first printed record is in the file');
    assert.deepEqual(got, file.slice(start, start + got.length), 'no gap, no duplicate');
    assert.equal(tokenHits() - hits, 1, 'the reconnect reused the cached token');
    // Plain text: each line starts with its host.
    const replay = await fleet('logs', '--host', 'a', '--host', 'c');
    assert.equal(replay.code, 0, replay.stderr);
    assert.ok(replay.stdout.trimEnd().split('\n').every((l) => /^(a|c) +\d{4}-\d\d-\d\dT/.test(l)), replay.stdout.slice(0, 400));
  });

  it('fleet.yaml errors exit 2 naming the file, line and key', async () => {
    writeFileSync(join(work, 'bad-fleet.yaml'), `hosts:\n  - name: a\n    url: "${a.cp}"\n    auth: { type: bearer, token: plain-text }\n`);
    const r = await fleet('ps', '--file', 'bad-fleet.yaml');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad-fleet\.yaml:4:34: hosts\.0\.auth\.token: must be a \$\{env:…\}, \$\{file:…\} or \$\{secret:…\} reference/);
    assert.ok(!r.stderr.includes('plain-text'));
  });

  it('no output holds the client secret, the bearer token or any token', () => {
    const all = outputs.join('\n');
    assert.ok(!all.includes(CLIENT_SECRET));
    assert.ok(!all.includes(bToken));
    assert.ok(!all.includes('eyJ'), 'no JWT');
  });
});
