/**
 * `svc fleet` in-process (runCli) against stand-in control planes (test/support/fake-control-plane.ts):
 * completeness reporting, every page, merge order, --limit, per-host tokens, exit codes, and the
 * fleet.yaml errors. The black-box suite with real daemons is test/fleet.e2e.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSecret } from '../../config/secrets.js';
import { runCli } from '../program.js';
import { cliHarness } from '../../../test/support/cli.js';
import { startFakeControlPlane } from '../../../test/support/fake-control-plane.js';
import type { FakeControlPlane, FakeRow } from '../../../test/support/fake-control-plane.js';
import { freePort } from '../../../test/support/http.js';
import { startSilentServer } from '../../../test/support/tcp.js';
import { waitFor } from '../../../test/support/wait.js';
import type { SilentServer } from '../../../test/support/tcp.js';

const B_TOKEN = 'b-static-token-0123456789';
const C_SECRET = 'c-client-secret-0123456789';

/** `n` event rows of `host`, one every 1000 ms from `offsetMs` (so hosts interleave in time). */
function events(host: string, n: number, offsetMs: number): FakeRow[] {
  return Array.from({ length: n }, (_, i) => ({
    ts: new Date(Date.UTC(2030, 0, 1) + offsetMs + i * 1000).toISOString(),
    id: `${host}-${String(i).padStart(3, '0')}`, agentId: 'oncall', sourceId: 'am', kind: 'webhook', status: 'processed', fingerprint: null, payload: {},
  }));
}

function auditRows(n: number): FakeRow[] {
  return Array.from({ length: n }, (_, i) => ({
    seq: i + 1, ts: new Date(Date.UTC(2030, 0, 1) + i * 1000).toISOString(), kind: 'event.accepted', actor: 'ingest',
    agentId: 'oncall', data: {}, prevHash: '0'.repeat(64), hash: 'f'.repeat(64),
  }));
}

function logRecord(second: number, event: string): Record<string, unknown> {
  return { agentId: 'agent-1', ts: new Date(Date.UTC(2030, 0, 1, 0, 0, second)).toISOString(), level: 'info', event };
}

interface Envelope {
  items: Array<Record<string, unknown> & { host: string; id: string; ts: string }>;
  hosts: Array<{ name: string; ok: boolean; error: string | null; verify?: { ok: boolean } | null }>;
  complete: boolean;
}

describe('svc fleet (in-process, stand-in control planes)', () => {
  let root: string;
  let a: FakeControlPlane;
  let b: FakeControlPlane;
  let c: FakeControlPlane;
  let hang: SilentServer;
  let deadPort: number;
  const env = (): NodeJS.ProcessEnv => ({ SVC_HOME: join(root, 'home'), B_TOKEN });
  const outputs: string[] = [];
  const fleet = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
    const h = cliHarness(env(), root);
    // Named with --file: a ./fleet.yaml outside $SVC_HOME that reads ${secret:…} is not used otherwise
    // (config/fleet.ts untrustedReason); a test's own --file comes later and wins.
    const [verb = '', ...rest] = args;
    const code = await runCli(['fleet', verb, '--file', 'fleet.yaml', ...rest], h.ctx);
    outputs.push(h.out(), h.err());
    return { code, out: h.out(), err: h.err() };
  };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-fleet-'));
    writeSecret(join(root, 'home'), 'fleet/c', C_SECRET);
    a = await startFakeControlPlane({ events: events('a', 25, 0), audit: auditRows(5), logs: [logRecord(0, 'a0'), logRecord(2, 'a2')] });
    b = await startFakeControlPlane({ events: events('b', 7, 0), audit: auditRows(3), token: B_TOKEN,
      verify: { ok: false, checked: 2, headSeq: 2, headHash: null, firstBadSeq: 2, problem: 'hash-mismatch' } });
    c = await startFakeControlPlane({ events: events('c', 30, 500), audit: auditRows(4), client: { id: 'fleet-cli', secret: C_SECRET },
      logs: [logRecord(1, 'c1'), logRecord(3, 'c3')] });
    hang = await startSilentServer();
    deadPort = await freePort();
    writeFileSync(join(root, 'fleet.yaml'), [
      'hosts:',
      `  - { name: a, url: "${a.url}", labels: { region: eu } }`,
      `  - name: b`,
      `    url: ${b.url}`,
      '    auth: { type: bearer, token: "${env:B_TOKEN}" }',
      '    labels: { region: us }',
      '  - name: c',
      `    url: ${c.url}/`,
      '    auth:',
      '      type: oauth2-client',
      `      tokenEndpoint: ${c.url}/token`,
      '      clientId: fleet-cli',
      '      clientSecretRef: secret:fleet/c',
      '      scopes: [control:read]',
      '    labels: { region: eu }',
      `  - { name: dead, url: "http://127.0.0.1:${deadPort}" }`,
      `  - { name: hang, url: "${hang.url}", timeoutMs: 300 }`,
      '',
    ].join('\n'));
  });
  after(async () => {
    await Promise.all([a.close(), b.close(), c.close(), hang.close()]);
    rmSync(root, { recursive: true, force: true });
  });

  it('every host asked: partial answer, exit 1, one short reason per host that did not answer', async () => {
    const acceptedBefore = hang.accepted();
    const r = await fleet('events', '--json');
    assert.equal(r.code, 1, r.err);
    const body = JSON.parse(r.out) as Envelope;
    assert.equal(body.complete, false);
    assert.deepEqual(body.hosts, [
      { name: 'a', ok: true, error: null }, { name: 'b', ok: true, error: null }, { name: 'c', ok: true, error: null },
      { name: 'dead', ok: false, error: 'connection refused' }, { name: 'hang', ok: false, error: 'timeout' },
    ]);
    assert.equal(r.err, '3/5 hosts answered\ndead: connection refused\nhang: timeout\n');
    assert.ok(hang.accepted() > acceptedBefore, 'the hung host was asked');
    assert.equal(body.items.length, 25 + 7 + 30);
    // Newest first (events' default order), then host, then id.
    const keys = body.items.map((i) => [i.ts, i.host, i.id].join(' '));
    const sorted = [...keys].sort((x, y) => {
      const [tx = '', hx = '', ix = ''] = x.split(' ');
      const [ty = '', hy = '', iy = ''] = y.split(' ');
      return ty.localeCompare(tx) || hx.localeCompare(hy) || iy.localeCompare(ix);
    });
    assert.deepEqual(keys, sorted);
  });

  it('only live hosts: exit 0; every page of every host; one token request per host however many pages', async () => {
    const tokensBefore = c.tokenRequests();
    const pagesBefore = c.requests.get('/events') ?? 0;
    const r = await fleet('events', '--json', '--host', 'a', '--host', 'b', '--host', 'c', '--page-size', '4');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '3/3 hosts answered\n');
    const body = JSON.parse(r.out) as Envelope;
    assert.equal(body.complete, true);
    const ids = body.items.map((i) => i.id).sort();
    assert.deepEqual(ids, [...events('a', 25, 0), ...events('b', 7, 0), ...events('c', 30, 500)].map((e) => String(e.id)).sort());
    assert.equal((c.requests.get('/events') ?? 0) - pagesBefore, 8, '30 rows in pages of 4');
    assert.equal(c.tokenRequests() - tokensBefore, 1);
  });

  it('a table with a HOST column; --limit prints the first N rows of the merge; --label selects hosts', async () => {
    const table = await fleet('events', '--label', 'region=eu', '--limit', '5', '--order', 'asc');
    assert.equal(table.code, 0, table.err);
    const lines = table.out.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^HOST +TS +ID +STATUS +SEV +TITLE +TRIAGED BY +AGENT +SOURCE +STATE +FINGERPRINT$/);
    // Oldest first: a-000 (0 ms), c-000 (500 ms), a-001, c-001, a-002.
    assert.deepEqual(lines.slice(1).map((l) => l.split(/ +/)[2]), ['a-000', 'c-000', 'a-001', 'c-001', 'a-002']);
    assert.equal(table.err, '2/2 hosts answered\n');
  });

  it('audit --verify: each host\'s verification in the envelope; a broken chain exits 1', async () => {
    const r = await fleet('audit', '--verify', '--json', '--host', 'a', '--host', 'b');
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out) as Envelope;
    assert.equal(body.complete, true);
    assert.deepEqual(body.hosts.map((h) => [h.name, h.ok, h.verify?.ok]), [['a', true, true], ['b', true, false]]);
    assert.equal(body.items.length, 8);
    const text = await fleet('audit', '--verify', '--host', 'a', '--host', 'b');
    assert.match(text.out, /^a: chain ok: 5 rows checked/m);
    assert.match(text.out, /^b: chain BROKEN at seq 2: hash-mismatch/m);
    assert.equal((await fleet('audit', '--verify', '--host', 'a')).code, 0);
  });

  it('ps: one row per agent of every host', async () => {
    const r = await fleet('ps', '--host', 'a', '--host', 'c', '--host', 'dead');
    assert.equal(r.code, 1);
    assert.match(r.out, /^HOST +PID +UPTIME +AGENT +STATE/);
    assert.match(r.out, /^a +4242 +60s +agent-1 +running +rules +3 +2 +1 +0 +sqlite$/m);
    assert.match(r.out, /^c +4242 /m);
    assert.equal(r.err, '2/3 hosts answered\ndead: connection refused\n');
  });

  it('a wrong bearer token is a short reason, not a token', async () => {
    const h = cliHarness({ ...env(), B_TOKEN: 'not-the-right-token' }, root);
    assert.equal(await runCli(['fleet', 'dlq', '--file', 'fleet.yaml', '--host', 'b'], h.ctx), 1);
    assert.equal(h.err(), '0/1 hosts answered\nb: HTTP 401 (bad-signature)\n');
    assert.ok(!h.out().includes('not-the-right-token') && !h.err().includes('not-the-right-token'));
  });

  it('usage and fleet.yaml errors exit 2 before any host is asked', async () => {
    const pages = a.requests.get('/events') ?? 0;
    const unknown = await fleet('events', '--host', 'nope');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /--host: no host "nope" in fleet\.yaml \(hosts: a, b, c, dead, hang\)/);
    assert.equal((await fleet('events', '--limit', '0')).code, 2);
    assert.equal((await fleet('events', '--since', 'yesterday')).code, 2);
    assert.equal((await fleet('events', '--order', 'up')).code, 2);
    assert.equal(a.requests.get('/events') ?? 0, pages);

    writeFileSync(join(root, 'broken.yaml'), 'hosts:\n  - name: x\n    url: ftp://x\n    colour: blue\n');
    const broken = await fleet('events', '--file', 'broken.yaml');
    assert.equal(broken.code, 2);
    assert.match(broken.err, /broken\.yaml:3:10: hosts\.0\.url: must be an http\(s\) URL/);
    assert.match(broken.err, /broken\.yaml:4:5: hosts\.0\.colour: unknown key "colour"/);

    const h = cliHarness({ SVC_HOME: join(root, 'empty-home') }, join(root, 'home'));
    assert.equal(await runCli(['fleet', 'ps'], h.ctx), 2);
    assert.match(h.err(), /no fleet\.yaml: looked for .*home\/fleet\.yaml and .*empty-home\/fleet\.yaml/);
  });

  it('$SVC_HOME/fleet.yaml is used when ./fleet.yaml is absent', async () => {
    const home = join(root, 'home');
    writeFileSync(join(home, 'fleet.yaml'), `hosts:\n  - { name: only-a, url: "${a.url}" }\n`);
    const h = cliHarness({ SVC_HOME: home }, home);
    assert.equal(await runCli(['fleet', 'ps', '--json'], h.ctx), 0, h.err());
    assert.equal((JSON.parse(h.out()) as Envelope).hosts[0]?.name, 'only-a');
  });

  it('logs: every host\'s records merged by time, prefixed by host; --agent a host does not run counts as answered', async () => {
    const r = await fleet('logs', '--host', 'a', '--host', 'c', '--host', 'dead');
    assert.equal(r.code, 1);
    assert.deepEqual(r.out.trimEnd().split('\n').map((l) => l.split(/ +/).filter((w, i) => i === 0 || i === 4).join(' ')),
      ['a a0', 'c c1', 'a a2', 'c c3']);
    assert.equal(r.err, '2/3 hosts answered\ndead: connection refused\n');
    const json = await fleet('logs', '--json', '--host', 'a', '--host', 'c', '--agent', 'agent-1');
    assert.equal(json.code, 0, json.err);
    assert.deepEqual((JSON.parse(json.out) as Envelope).items.map((i) => `${i.host}/${String(i.event)}`), ['a/a0', 'c/c1', 'a/a2', 'c/c3']);
    const other = await fleet('logs', '--json', '--host', 'a', '--agent', 'agent-2');
    assert.equal(other.code, 0, other.err);
    assert.deepEqual(JSON.parse(other.out), { items: [], hosts: [{ name: 'a', ok: true, error: null }], complete: true });
  });

  it('logs -f: follows every host until interrupted; the hosts whose stream is open answered', async () => {
    const h = cliHarness(env(), root);
    const done = runCli(['fleet', 'logs', '--file', 'fleet.yaml', '-f', '--json', '--since', '0', '--host', 'a', '--host', 'c', '--host', 'dead'], h.ctx);
    await waitFor('both live hosts replayed', () => h.out().includes('"c3"') && h.out().includes('"a2"'));
    await waitFor('the dead host reported', () => h.err().includes('svc fleet: dead: connection refused; reconnecting'));
    h.interrupt();
    assert.equal(await done, 1);
    outputs.push(h.out(), h.err());
    const lines = h.out().trimEnd().split('\n').map((l) => JSON.parse(l) as { host: string; event: string });
    assert.deepEqual(lines.filter((l) => l.host === 'c').map((l) => l.event), ['c1', 'c3']);
    assert.ok(h.err().endsWith('2/3 hosts answered\ndead: connection refused\n'), h.err());
  });

  it('no output ever holds a token or a secret', () => {
    const all = outputs.join('\n');
    for (const secret of [B_TOKEN, C_SECRET, 'tok-']) assert.ok(!all.includes(secret), secret);
  });
});
