/**
 * The main job end to end, through the built CLI on loopback: init → up -d → signed mock alert → 202 →
 * a direct message in the file channel; duplicates, bad signatures, wrong methods, oversize bodies;
 * down → up keeps the fingerprint window.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChainVerifier } from '../src/audit/chain.js';
import { freePort, postLarge, postWebhook, sign } from './support/http.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import { pidAlive, readSecretFile, runSvc, setIngestPort, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const SECRET_PATH = 'alert-escalation/webhook-hmac';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

describe('alert-escalation end to end', () => {
  const t = tempEnv();
  const dir = join(t.work, 'alert-escalation');
  let url = '';
  let secret = '';
  let fixture: Buffer;
  const outFile = join(dir, 'out', 'oncall-dm.jsonl');
  const countEvents = (): number => queryStore<{ n: number }>(t.home, 'SELECT count(*) AS n FROM events')[0]?.n ?? -1;
  const countAudit = (): number => queryStore<{ n: number }>(t.home, 'SELECT count(*) AS n FROM audit')[0]?.n ?? -1;

  before(async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(t.work, { recursive: true });
  });
  after(async () => {
    await runSvc(['down'], { env: t.env, cwd: dir });
    t.cleanup();
  });

  it('init scaffolds the seven files and a secret that stays out of DIR', async () => {
    const r = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules'], { env: t.env, cwd: t.work });
    assert.equal(r.code, 0, r.stderr);
    for (const f of ['agent.yaml', 'event-sources.yaml', 'channels.yaml', 'skills/triage.md', 'fixtures/mock-alert.json', '.env.example', 'README.md']) {
      assert.ok(statSync(join(dir, f)).isFile(), f);
    }
    secret = readSecretFile(t.home, SECRET_PATH);
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.equal(statSync(join(t.home, 'secrets', SECRET_PATH)).mode & 0o777, 0o600);
    for (const f of listFiles(dir)) assert.ok(!readFileSync(f, 'utf8').includes(secret), `${f} holds the secret value`);
    const alert = JSON.parse(readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(alert.version, '4');
    assert.ok(Array.isArray(alert.alerts));
  });

  it('init refuses to overwrite without --force, and keeps the existing secret', async () => {
    writeFileSync(join(dir, 'README.md'), 'mine\n');
    const r = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules'], { env: t.env, cwd: t.work });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--force/);
    assert.equal(readFileSync(join(dir, 'README.md'), 'utf8'), 'mine\n');
    const forced = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', '--force'], { env: t.env, cwd: t.work });
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(readFileSync(join(dir, 'README.md'), 'utf8'), 'mine\n');
    assert.equal(readSecretFile(t.home, SECRET_PATH), secret);
  });

  it('init names the valid templates and providers on a bad one (exit 2)', async () => {
    const badTemplate = await runSvc(['init', '--template', 'nope', '--provider', 'rules', 'x'], { env: t.env, cwd: t.work });
    assert.equal(badTemplate.code, 2);
    assert.match(badTemplate.stderr, /alert-escalation/);
    const badProvider = await runSvc(['init', '--template', 'alert-escalation', '--provider', 'gpt', 'x'], { env: t.env, cwd: t.work });
    assert.equal(badProvider.code, 2);
    assert.match(badProvider.stderr, /rules, anthropic, openai/);
  });

  it('up -d returns once ready; a second up refuses', async () => {
    const port = await freePort();
    setIngestPort(dir, port);
    url = `http://127.0.0.1:${port}/webhooks/alertmanager`;
    fixture = readFileSync(join(dir, 'fixtures/mock-alert.json'));
    const r = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /pid \d+/);
    assert.ok(r.stdout.includes(url), r.stdout);
    const pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    assert.ok(pidAlive(pid));
    // ready means answering: no retry needed
    const probe = await postWebhook(url, '{}', {});
    assert.equal(probe.status, 401);
    const second = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(second.code, 1);
    assert.match(second.stderr, /already running \(pid \d+\)/);
  });

  let firstEventId = '';
  it('a signed mock alert is accepted and the on-call person gets a direct message', async () => {
    const res = await postWebhook(url, fixture, { 'content-type': 'application/json', 'x-signature': sign(secret, fixture), 'x-alert-fingerprint': 'fp-1' });
    assert.equal(res.status, 202);
    assert.equal(res.json?.status, 'accepted');
    firstEventId = String(res.json?.eventId);
    assert.ok(firstEventId.length > 0);
    const lines = await waitFor('the direct message', () => { const l = readJsonLines(outFile); return l.length > 0 ? l : undefined; });
    assert.equal(lines.length, 1);
    const msg = lines[0] as Record<string, unknown>;
    assert.equal(msg.eventId, firstEventId);
    assert.equal(msg.severity, 'P1');
    assert.equal(msg.channel, 'oncall-dm');
    assert.equal(msg.to, 'on-call');
    assert.match(String(msg.text), /^\[P1\] FIRING: HighErrorRate/);
    assert.match(String(msg.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('a repeated fingerprint is a duplicate: 200, the first eventId, no second message', async () => {
    const res = await postWebhook(url, fixture, { 'x-signature': sign(secret, fixture), 'x-alert-fingerprint': 'fp-1' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { status: 'duplicate', eventId: firstEventId });
    // A later, different alert goes through; the duplicate never produced a message of its own.
    const other = Buffer.from(fixture.toString().replace('"critical"', '"warning"'));
    const res2 = await postWebhook(url, other, { 'x-signature': sign(secret, other), 'x-alert-fingerprint': 'fp-2' });
    assert.equal(res2.status, 202);
    const lines = await waitFor('the second message', () => { const l = readJsonLines(outFile); return l.length >= 2 ? l : undefined; });
    await waitFor('event 2 processed', () => (queryStore<{ status: string }>(t.home, 'SELECT status FROM events WHERE id = ?', res2.json?.eventId)[0]?.status === 'processed' ? true : undefined));
    assert.equal(readJsonLines(outFile).length, 2);
    assert.equal(lines.filter((l) => l.eventId === firstEventId).length, 1);
    assert.equal(countEvents(), 2);
  });

  it('unsigned, wrong, wrong-length and malformed signatures get 401 EUNAUTHORIZED and record nothing', async () => {
    const events = countEvents();
    const audit = countAudit();
    const good = sign(secret, fixture);
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-signature': sign('not-the-secret-at-all', fixture) },
      { 'x-signature': good.slice(0, -2) },
      { 'x-signature': good + 'ab' },
      { 'x-signature': 'sha256=' + 'zz'.repeat(32) },
      { 'x-signature': 'md5=' + good.slice(7) },
      { 'x-signature': '' },
    ];
    for (const [i, headers] of cases.entries()) {
      const res = await postWebhook(url, fixture, { ...headers, 'x-alert-fingerprint': `bad-${i}` });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.json?.error, 'EUNAUTHORIZED');
    }
    assert.equal(countEvents(), events);
    assert.equal(countAudit(), audit);
    // the rejected fingerprints were not kept: a correctly signed delivery with one is accepted
    const res = await postWebhook(url, fixture, { 'x-signature': good, 'x-alert-fingerprint': 'bad-1' });
    assert.equal(res.status, 202);
  });

  it('GET → 405, unknown source → 404, 2 MiB → 413', async () => {
    const get = await postWebhook(url, '', {}, 'GET');
    assert.equal(get.status, 405);
    assert.match(get.headers.get('allow') ?? '', /POST/);
    const unknown = await postWebhook(url.replace('alertmanager', 'nope'), fixture, { 'x-signature': sign(secret, fixture) });
    assert.equal(unknown.status, 404);
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    assert.equal(await postLarge(url, big, { 'x-signature': sign(secret, big) }), 413);
  });

  it('logs one JSON record per line with the required fields and no secret', () => {
    const log = readFileSync(join(t.home, 'logs', 'oncall-escalator.log'), 'utf8');
    assert.ok(!log.includes(secret));
    const records = log.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      assert.equal(r.agentId, 'oncall-escalator');
      assert.match(String(r.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(typeof r.level, 'string');
      assert.equal(typeof r.event, 'string');
    }
    const events = new Set(records.map((r) => r.event));
    for (const e of ['webhook.accepted', 'webhook.duplicate', 'webhook.rejected', 'dispatch.triaged', 'dispatch.delivered']) {
      assert.ok(events.has(e), `log has ${e}`);
    }
    assert.ok(records.some((r) => r.event === 'dispatch.delivered' && r.eventId === firstEventId && r.outcome === 'delivered'));
  });

  it('down stops the daemon; after up again the same fingerprint is still a duplicate', async () => {
    const pid = Number(readFileSync(join(t.home, 'up.pid'), 'utf8'));
    const down = await runSvc(['down'], { env: t.env, cwd: dir });
    assert.equal(down.code, 0, down.stderr);
    assert.ok(!pidAlive(pid));
    const again = await runSvc(['down'], { env: t.env, cwd: dir });
    assert.equal(again.code, 0);
    assert.match(again.stdout, /not running/);
    const up = await runSvc(['up', '-d'], { env: t.env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);
    const res = await postWebhook(url, fixture, { 'x-signature': sign(secret, fixture), 'x-alert-fingerprint': 'fp-1' });
    assert.equal(res.status, 200);
    assert.equal(res.json?.eventId, firstEventId);
    const send = await runSvc(['webhook', 'send', 'fixtures/mock-alert.json'], { env: t.env, cwd: dir });
    assert.equal(send.code, 0, send.stderr);
    assert.match(send.stdout, /HTTP 202 .*"accepted"/);
    const resend = await runSvc(['webhook', 'send', 'fixtures/mock-alert.json'], { env: t.env, cwd: dir });
    assert.match(resend.stdout, /HTTP 200 .*"duplicate"/);
    assert.match(resend.stdout, /\na duplicate of event [0-9a-f-]{36}: this fingerprint came within the last 15 minutes, so nothing new happens; --fingerprint FP sends the file as a new alert\n$/);
    assert.equal((await runSvc(['down'], { env: t.env, cwd: dir })).code, 0);
  });

  it('the audit chain verifies and records what an auditor asks about', () => {
    const rows = auditRows(t.home);
    const verifier = createChainVerifier();
    for (const row of rows) verifier.push(row);
    const result = verifier.result();
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.checked, rows.length);
    const kinds = new Set(rows.map((r) => r.kind));
    for (const k of ['runtime.started', 'config.loaded', 'event.accepted', 'event.duplicate', 'triage.decision', 'message.delivered', 'runtime.stopped']) {
      assert.ok(kinds.has(k), `audit has ${k}`);
    }
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(secret));
  });
});
