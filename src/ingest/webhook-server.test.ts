import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { WebhookSourceConfig } from '../config/schema.js';
import { fakeClock } from '../core/clock.js';
import { createAgentLog } from '../logs/agent-log.js';
import type { AgentLog } from '../logs/agent-log.js';
import { createSourceStats } from '../metrics/source-stats.js';
import type { SourceStats } from '../metrics/source-stats.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { EventRecord, PageQuery, Store } from '../store/store.js';
import { signBody } from './signature.js';
import { createWebhookIngest, MAX_BODY_BYTES, STORE_WRITE_DEADLINE_MS } from './webhook-server.js';
import type { WebhookIngest, WebhookRoute } from './webhook-server.js';
import { sharedSqliteStore } from '../../test/support/shared-store.js';
import { waitFor, within } from '../../test/support/wait.js';

const SECRET = 'whsec-test-0123456789abcdef';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
/** The header and TLS handshake timeout of the test that waits one out (the daemon's is 10 s, core/listener-limits.ts). */
const SHORT_HEADERS_TIMEOUT_MS = 2_000;
const PAGE: PageQuery = { limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null };
const ALERT = { receiver: 'oncall', status: 'firing', alerts: [{ labels: { alertname: 'DiskFull', severity: 'critical' } }] };

const dirs: string[] = [];
// One store for the file, emptied per test (test/support/shared-store.ts); a test that breaks or
// closes its store opens its own.
const shared = sharedSqliteStore('svc-ingest-');
after(async () => {
  await shared.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function source(id: string, extra: Partial<WebhookSourceConfig> = {}): WebhookSourceConfig {
  return { id, type: 'webhook', port: 0, bind: '127.0.0.1', secret: SECRET, fingerprintHeader: 'X-Alert-Fingerprint',
    signatureHeader: 'X-Signature', maxConnections: 512, ...extra };
}

interface Env {
  dir: string;
  store: Store;
  /** The sqlite store under any test wrapper, closed after each test. */
  realStore: Store;
  /** Its file. */
  storePath: string;
  clock: ReturnType<typeof fakeClock>;
  stats: SourceStats;
  logs: Map<string, { log: AgentLog; path: string }>;
  accepted: EventRecord[];
  errors: unknown[];
  /** [source, reason] of every request counted in svc_webhook_rejected_total. */
  rejected: Array<[string, string]>;
  ingest: WebhookIngest;
  port: number;
  logText(agentId?: string): string;
  logLines(agentId?: string): Array<Record<string, unknown>>;
}

const envs: Env[] = [];
afterEach(async () => {
  for (const env of envs.splice(0)) {
    await env.ingest.close();
    await env.realStore.close().catch(() => undefined);
    for (const { log } of env.logs.values()) log.close();
  }
});

async function setup(opts: {
  sources?: Array<{ agentId: string; source: WebhookSourceConfig }>;
  wrap?: (store: Store) => Store;
  headersTimeoutMs?: number;
  /** A store file of the test's own (at `dir`/svc.db), for a test that closes it. */
  ownStore?: boolean;
} = {}): Promise<Env> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ingest-'));
  dirs.push(dir);
  const clock = fakeClock(NOW);
  const storePath = opts.ownStore === true ? join(dir, 'svc.db') : shared.path;
  const realStore = opts.ownStore === true ? await openSqliteStore({ path: storePath }) : await shared.fresh();
  const store = opts.wrap ? opts.wrap(realStore) : realStore;
  const stats = createSourceStats();
  const logs = new Map<string, { log: AgentLog; path: string }>();
  const sources = opts.sources ?? [{ agentId: 'oncall', source: source('alertmanager') }];
  const routes: WebhookRoute[] = sources.map(({ agentId, source: s }) => {
    let entry = logs.get(agentId);
    if (!entry) {
      const path = join(dir, 'logs', `${agentId}.log`);
      entry = { log: createAgentLog({ path, agentId, clock }), path };
      logs.set(agentId, entry);
    }
    return { agentId, source: s, log: entry.log };
  });
  const accepted: EventRecord[] = [];
  const errors: unknown[] = [];
  const rejected: Array<[string, string]> = [];
  const ingest = createWebhookIngest({ store, clock, routes, stats, onAccepted: (e) => accepted.push(e),
    ...(opts.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: opts.headersTimeoutMs }),
    rejected: (sourceId, reason) => rejected.push([sourceId, reason]), onError: (err) => errors.push(err) });
  const env: Env = {
    dir, store, realStore, storePath, clock, stats, logs, accepted, errors, rejected, ingest, port: 0,
    logText: (agentId = 'oncall') => readFileSync(logs.get(agentId)?.path ?? '', 'utf8'),
    logLines: (agentId = 'oncall') => env.logText(agentId).trim().split('\n').filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
  envs.push(env);
  await ingest.start();
  env.port = ingest.ports()[0] ?? 0;
  return env;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

function send(port: number, path: string, opts: { method?: string; headers?: OutgoingHttpHeaders; body?: Buffer | string; chunked?: boolean } = {}):
  Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
    const headers: OutgoingHttpHeaders = { ...opts.headers };
    if (body && !opts.chunked) headers['content-length'] = body.length;
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON: the assertions on `text` say so
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    // The server may answer and close while a large body is still being written.
    req.on('error', reject);
    if (body && opts.chunked) {
      const step = 64 * 1024;
      for (let i = 0; i < body.length; i += step) req.write(body.subarray(i, i + step));
      req.end();
    } else {
      req.end(body);
    }
  });
}

function signed(port: number, body: Buffer | string, headers: OutgoingHttpHeaders = {}, path = '/webhooks/alertmanager', secret = SECRET): Promise<Reply> {
  return send(port, path, { body, headers: { 'content-type': 'application/json', 'x-signature': signBody(secret, body), ...headers } });
}

async function counts(store: Store): Promise<{ events: number; audit: number }> {
  const events = await store.listEvents(PAGE, {});
  const audit = await store.listAudit(PAGE, {});
  return { events: events.items.length, audit: audit.items.length };
}

/** The sqlite store with some methods replaced. */
function withStore(store: Store, overrides: Partial<Store>): Store {
  return { ...store, kind: store.kind, ...overrides };
}

function assertJsonHeaders(r: Reply): void {
  assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'no-store');
}

describe('webhook ingest', () => {
  it('accepts a signed alert with 202, then answers 200 duplicate with the same eventId', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    const first = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-disk-1' });
    assert.equal(first.status, 202, first.text);
    assertJsonHeaders(first);
    assert.equal(first.json.status, 'accepted');
    const eventId = first.json.eventId;
    assert.equal(typeof eventId, 'string');
    assert.deepEqual(Object.keys(first.json).sort(), ['eventId', 'status']);

    const second = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-disk-1' });
    assert.equal(second.status, 200, second.text);
    assertJsonHeaders(second);
    assert.deepEqual(second.json, { status: 'duplicate', eventId });

    const events = (await env.store.listEvents(PAGE, {})).items;
    assert.equal(events.length, 1);
    assert.equal(events[0]?.id, eventId);
    assert.equal(events[0]?.agentId, 'oncall');
    assert.equal(events[0]?.sourceId, 'alertmanager');
    assert.equal(events[0]?.kind, 'alert');
    assert.equal(events[0]?.fingerprint, 'fp-disk-1');
    assert.deepEqual(JSON.parse(events[0]?.payloadText ?? ''), ALERT);

    // Dispatched once, after the 202.
    assert.deepEqual(env.accepted.map((e) => e.id), [eventId]);
    assert.deepEqual(env.stats.get('oncall', 'alertmanager'), { received: 2, processed: 0, dlq: 0, inflight: 0 });

    const dup = (await env.store.listAudit(PAGE, { kind: 'event.duplicate' })).items;
    assert.equal(dup.length, 1);
    assert.equal(dup[0]?.actor, 'source:alertmanager');
    assert.equal(dup[0]?.agentId, 'oncall');
    assert.deepEqual(JSON.parse(dup[0]?.dataText ?? ''), { eventId, sourceId: 'alertmanager', fingerprint: 'fp-disk-1' });

    const lines = env.logLines();
    const acceptedLine = lines.find((l) => l.event === 'webhook.accepted');
    assert.deepEqual({ eventId: acceptedLine?.eventId, fingerprint: acceptedLine?.fingerprint, sourceId: acceptedLine?.sourceId },
      { eventId, fingerprint: 'fp-disk-1', sourceId: 'alertmanager' });
    assert.ok(lines.some((l) => l.event === 'webhook.duplicate' && l.eventId === eventId));
    assert.deepEqual(env.errors, []);
  });

  it('accepts a bare-hex signature, ignores the query string and stores alerts without a fingerprint separately', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    const hex = signBody(SECRET, body).slice('sha256='.length).toUpperCase();
    const a = await send(env.port, '/webhooks/alertmanager?x=1', { body, headers: { 'x-signature': hex } });
    const b = await send(env.port, '/webhooks/alertmanager', { body, headers: { 'x-signature': hex } });
    assert.equal(a.status, 202, a.text);
    assert.equal(b.status, 202, b.text);
    assert.notEqual(a.json.eventId, b.json.eventId);
    const events = (await env.store.listEvents(PAGE, {})).items;
    assert.deepEqual(events.map((e) => e.fingerprint), [null, null]);
  });

  it('accepts the same fingerprint again once the window has passed', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    const first = await signed(env.port, body, { 'x-alert-fingerprint': 'fp' });
    env.clock.advance(14 * 60_000);
    assert.equal((await signed(env.port, body, { 'x-alert-fingerprint': 'fp' })).status, 200);
    env.clock.advance(2 * 60_000);
    const later = await signed(env.port, body, { 'x-alert-fingerprint': 'fp' });
    assert.equal(later.status, 202);
    assert.notEqual(later.json.eventId, first.json.eventId);
  });

  it('answers 401 to unsigned, wrong, wrong-length and malformed signatures and records nothing', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    const good = signBody(SECRET, body);
    const cases: Array<[string, OutgoingHttpHeaders]> = [
      ['unsigned', {}],
      ['empty', { 'x-signature': '' }],
      ['wrong secret', { 'x-signature': signBody('some-other-secret-0123456789', body) }],
      ['other body', { 'x-signature': signBody(SECRET, '{"x":1}') }],
      ['wrong length', { 'x-signature': good.slice(0, -2) }],
      ['too long', { 'x-signature': `${good}ab` }],
      ['non-hex', { 'x-signature': `sha256=${'q'.repeat(64)}` }],
      ['other algorithm', { 'x-signature': good.replace('sha256=', 'sha1=') }],
      ['two signature headers', { 'x-signature': [good, good] }],
      ['signature in another header', { authorization: good }],
    ];
    for (const [name, headers] of cases) {
      const r = await send(env.port, '/webhooks/alertmanager', { body, headers: { 'x-alert-fingerprint': `fp-${name}`, ...headers } });
      assert.equal(r.status, 401, `${name}: ${r.text}`);
      assertJsonHeaders(r);
      assert.deepEqual(r.json, { error: 'EUNAUTHORIZED', message: 'missing or invalid credentials' }, name);
    }
    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
    assert.deepEqual(env.accepted, []);
    assert.equal(env.stats.get('oncall', 'alertmanager').received, 0);

    // The fingerprints were not recorded either: the signed delivery is accepted.
    const ok = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-wrong secret' });
    assert.equal(ok.status, 202, ok.text);

    // Every refusal is counted; the log has one line per reason within 10 s (contract §11.3).
    assert.deepEqual(env.rejected, cases.map(() => ['alertmanager', 'unauthorized']));
    const rejected = env.logLines().filter((l) => l.event === 'webhook.rejected');
    assert.deepEqual(rejected.map((l) => l.reason).sort(), ['bad-signature', 'malformed-signature', 'missing-signature']);
    const text = env.logText();
    assert.ok(!text.includes(SECRET), 'log holds the secret');
    assert.ok(!text.includes(good.slice(7)), 'log holds a signature');
  });

  it('bearer and basic sources: either credential passes, one 401 with WWW-Authenticate for the rest', async () => {
    const token = 'bearer-token-0123456789abcdef';
    const basicAuth = { username: 'am', password: 'basic-password-0123456789' };
    const env = await setup({ sources: [
      { agentId: 'oncall', source: source('am-bearer', { secret: undefined, bearerToken: token }) },
      { agentId: 'oncall', source: source('am-both', { secret: undefined, bearerToken: token, basicAuth }) },
    ] });
    const body = JSON.stringify(ALERT);
    const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    const ok = await send(env.port, '/webhooks/am-bearer', { body, headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 202, ok.text);
    const viaBasic = await send(env.port, '/webhooks/am-both', { body, headers: { authorization: basic('am', basicAuth.password) } });
    assert.equal(viaBasic.status, 202, viaBasic.text);
    const refused: Array<[string, OutgoingHttpHeaders]> = [
      ['/webhooks/am-bearer', {}],
      ['/webhooks/am-bearer', { authorization: 'Bearer wrong-token-0123456789' }],
      ['/webhooks/am-bearer', { 'x-signature': signBody(SECRET, body) }],
      ['/webhooks/am-both', { authorization: basic('am', 'wrong') }],
    ];
    for (const [path, headers] of refused) {
      const r = await send(env.port, path, { body, headers });
      assert.equal(r.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.deepEqual(r.json, { error: 'EUNAUTHORIZED', message: 'missing or invalid credentials' });
      assert.match(String(r.headers['www-authenticate']), /^Bearer\b/);
    }
    // Every refusal is counted; the log samples each source and reason once per 10 s (contract §11.3).
    assert.deepEqual(env.rejected.map(([, reason]) => reason), ['unauthorized', 'unauthorized', 'unauthorized', 'unauthorized']);
    assert.deepEqual(env.logLines().filter((l) => l.event === 'webhook.rejected').map((l) => [l.sourceId, l.reason]),
      [['am-bearer', 'missing-credentials'], ['am-bearer', 'bad-bearer'], ['am-both', 'bad-basic']]);
    assert.equal((await counts(env.store)).events, 2);
    assert.ok(!env.logText().includes(token), 'log holds the token');
  });

  it('derives the fingerprint of an Alertmanager body without the header: a retry is a duplicate', async () => {
    const env = await setup();
    const am = { version: '4', groupKey: '{}:{alertname="DiskFull"}', status: 'firing', receiver: 'svc',
      alerts: [{ status: 'firing', fingerprint: 'abc123', labels: { alertname: 'DiskFull' } }] };
    const first = await signed(env.port, JSON.stringify(am));
    assert.equal(first.status, 202, first.text);
    const retry = await signed(env.port, JSON.stringify({ ...am, receiver: 'svc' }));
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.json.eventId, first.json.eventId);
    const resolved = await signed(env.port, JSON.stringify({ ...am, status: 'resolved', alerts: [{ ...am.alerts[0], status: 'resolved' }] }));
    assert.equal(resolved.status, 202, resolved.text);
    const events = (await env.store.listEvents(PAGE, {})).items;
    assert.equal(events.length, 2);
    for (const e of events) assert.match(e.fingerprint ?? '', /^derived:[0-9a-f]{64}$/);
    // A body that is not Alertmanager's, without the header, gets no fingerprint (and no deduplication).
    const plain = await signed(env.port, JSON.stringify(ALERT));
    assert.equal(plain.status, 202);
    assert.equal((await signed(env.port, JSON.stringify(ALERT))).status, 202);
  });

  it('serves a source with tls over HTTPS', async () => {
    const { execFileSync } = await import('node:child_process');
    const { request: httpsRequest } = await import('node:https');
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    dirs.push(dir);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const tls = { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
    // The header/handshake timeout is the contract's 10 s in the daemon; waited out for real here, so shorter.
    const env = await setup({ sources: [{ agentId: 'oncall', source: source('alertmanager', { tls }) }], headersTimeoutMs: SHORT_HEADERS_TIMEOUT_MS });
    const body = JSON.stringify(ALERT);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: env.port, path: '/webhooks/alertmanager', method: 'POST', ca: tls.cert,
        headers: { 'x-signature': signBody(SECRET, body), 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 202);
    // Plain HTTP to the TLS port gets no webhook answer.
    await assert.rejects(send(env.port, '/webhooks/alertmanager', { body, headers: { 'x-signature': signBody(SECRET, body) } }).then((r) => {
      if (r.status === 202) throw new Error('plain HTTP was accepted');
      throw new Error(`refused with ${r.status}`);
    }));
    assert.equal((await counts(env.store)).events, 1);
    // A connection that never starts its handshake is closed like one that never sends its headers
    // (contract §11.2): without handshakeTimeout, Node would hold it for 120 s.
    const { connect } = await import('node:net');
    const silent = connect(env.port, '127.0.0.1');
    silent.on('error', () => undefined);
    await within(new Promise<void>((resolve) => silent.on('close', () => resolve())), 'the silent TLS connection closed', SHORT_HEADERS_TIMEOUT_MS + 5_000);
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const env = await setup();
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD']) {
      const r = await send(env.port, '/webhooks/alertmanager', { method });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'POST');
      assert.equal(r.headers['cache-control'], 'no-store');
      if (method !== 'HEAD') assert.equal(r.json.error, 'EMETHOD');
    }
  });

  it('answers 404 to unknown sources and paths', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    for (const path of ['/webhooks/other', '/webhooks/alertmanager/', '/webhooks/alertmanager/x', '/webhooks/', '/webhooks',
      '/alertmanager', '/', '/webhooks/ALERTMANAGER', '/webhooks/alertmanager%2F', '//webhooks/alertmanager']) {
      const r = await signed(env.port, body, {}, path);
      assert.equal(r.status, 404, path);
      assertJsonHeaders(r);
      assert.deepEqual(r.json, { error: 'ENOTFOUND', message: 'unknown webhook source' });
    }
    // Unknown source beats wrong method.
    assert.equal((await send(env.port, '/webhooks/nope', { method: 'GET' })).status, 404);
    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
  });

  it('answers 413 to bodies over 1 MiB, declared or streamed, and accepts exactly 1 MiB', async () => {
    const env = await setup();
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const declared = await send(env.port, '/webhooks/alertmanager', { body: big, headers: { 'x-signature': signBody(SECRET, big) } });
    assert.equal(declared.status, 413);
    assertJsonHeaders(declared);
    assert.equal(declared.json.error, 'ETOOLARGE');
    assert.equal(declared.headers.connection, 'close');

    const streamed = await send(env.port, '/webhooks/alertmanager', { body: big, chunked: true, headers: { 'x-signature': signBody(SECRET, big) } });
    assert.equal(streamed.status, 413);
    assert.equal(streamed.json.error, 'ETOOLARGE');
    assert.equal(streamed.headers.connection, 'close');

    // Exactly the limit is fine: valid JSON padded with spaces to 1 MiB.
    const json = Buffer.from(JSON.stringify(ALERT));
    const exact = Buffer.concat([json, Buffer.alloc(MAX_BODY_BYTES - json.length, 0x20)]);
    const ok = await send(env.port, '/webhooks/alertmanager', { body: exact, chunked: true, headers: { 'x-signature': signBody(SECRET, exact) } });
    assert.equal(ok.status, 202, ok.text);
    assert.equal((await counts(env.store)).events, 1);
  });

  it('refuses an oversized Expect: 100-continue request without reading it', async () => {
    const env = await setup();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: env.port, path: '/webhooks/alertmanager', method: 'POST', agent: false,
        headers: { 'content-length': 5 * 1024 * 1024, expect: '100-continue', 'x-signature': 'sha256=00' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('continue', () => reject(new Error('server asked for the body')));
      req.on('error', reject);
      req.flushHeaders();
    });
    assert.equal(status, 413);
  });

  it('a flood of bad signatures is counted in full and logged once per 10 s with the number left out', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    for (let i = 0; i < 200; i++) {
      const r = await send(env.port, '/webhooks/alertmanager', { body, headers: { 'x-signature': `sha256=${'0'.repeat(64)}` } });
      assert.equal(r.status, 401);
    }
    env.clock.advance(10_000);
    assert.equal((await send(env.port, '/webhooks/alertmanager', { body, headers: { 'x-signature': `sha256=${'0'.repeat(64)}` } })).status, 401);
    assert.equal(env.rejected.length, 201);
    const lines = env.logLines().filter((l) => l.event === 'webhook.rejected');
    assert.deepEqual(lines.map((l) => [l.reason, l.suppressed]), [['bad-signature', undefined], ['bad-signature', 199]]);
  });

  it('answers 400 to a signed body that is not a JSON object, or not UTF-8, and counts it', async () => {
    const env = await setup();
    const bodies = ['{"alerts": [', '', 'not json', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), '[1,2]', '"text"', 'null', '42',
      `{"a":${'['.repeat(63)}${']'.repeat(63)}}`.replace('[]', '[{}]'), `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`];
    const messages = ['body is not a JSON object', 'body is not a JSON object', 'body is not a JSON object', 'body is not UTF-8',
      'body is not a JSON object', 'body is not a JSON object', 'body is not a JSON object', 'body is not a JSON object',
      'body nests deeper than 64 levels', 'body nests deeper than 64 levels'];
    for (const [i, body] of bodies.entries()) {
      const r = await signed(env.port, body);
      assert.equal(r.status, 400, String(body).slice(0, 40));
      assertJsonHeaders(r);
      assert.deepEqual(r.json, { error: 'EBADREQUEST', message: messages[i] });
    }

    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
    assert.deepEqual(env.rejected, bodies.map(() => ['alertmanager', 'bad-request']));
    const deepest = `${'{"a":'.repeat(63)}{}${'}'.repeat(63)}`;
    assert.equal((await signed(env.port, deepest)).status, 202, '64 levels are accepted');
  });

  it('answers 400 naming the fingerprint header when its value is unusable', async () => {
    const env = await setup();
    const body = JSON.stringify(ALERT);
    for (const fp of ['x'.repeat(201), 'caf\u00e9', 'tab\there', ['a', 'b']]) {
      const headers: OutgoingHttpHeaders = { 'x-alert-fingerprint': Array.isArray(fp) ? fp : Buffer.from(fp, 'utf8').toString('latin1') };
      const r = await signed(env.port, body, headers);
      assert.equal(r.status, 400, String(fp));
      assert.equal(r.json.error, 'EBADREQUEST');
      assert.match(String(r.json.message), /X-Alert-Fingerprint/);
    }
    assert.equal((await signed(env.port, body, { 'x-alert-fingerprint': 'y'.repeat(200) })).status, 202);
    assert.equal((await signed(env.port, body, { 'x-alert-fingerprint': 'group {alertname="Disk"}' })).status, 202);
  });

  it('uses the configured header names', async () => {
    const env = await setup({ sources: [{ agentId: 'oncall',
      source: source('alertmanager', { signatureHeader: 'X-Hub-Signature-256', fingerprintHeader: 'X-Dedupe-Key' }) }] });
    const body = JSON.stringify(ALERT);
    assert.equal((await signed(env.port, body)).status, 401);
    const headers = { 'x-hub-signature-256': signBody(SECRET, body), 'x-dedupe-key': 'k1' };
    assert.equal((await send(env.port, '/webhooks/alertmanager', { body, headers })).status, 202);
    assert.equal((await send(env.port, '/webhooks/alertmanager', { body, headers })).status, 200);
  });

  it('with timestampHeader, signs <ts>.<body> and enforces ±300 s', async () => {
    const env = await setup({ sources: [{ agentId: 'oncall', source: source('alertmanager', { timestampHeader: 'X-Signature-Timestamp' }) }] });
    const body = JSON.stringify(ALERT);
    const nowS = Math.floor(NOW / 1000);
    const post = (ts: string | undefined, signature: string, fp: string): Promise<Reply> => send(env.port, '/webhooks/alertmanager', {
      body, headers: { 'x-signature': signature, 'x-alert-fingerprint': fp, ...(ts === undefined ? {} : { 'x-signature-timestamp': ts }) } });

    const reasons: string[] = [];
    const rejectedCases: Array<[string, string | undefined, string]> = [
      ['missing timestamp', undefined, signBody(SECRET, body)],
      ['body-only signature', String(nowS), signBody(SECRET, body)],
      ['301 s old', String(nowS - 301), signBody(SECRET, body, String(nowS - 301))],
      ['301 s ahead', String(nowS + 301), signBody(SECRET, body, String(nowS + 301))],
      ['milliseconds', String(NOW), signBody(SECRET, body, String(NOW))],
      ['signed with another ts', String(nowS), signBody(SECRET, body, String(nowS - 1))],
    ];
    for (const [name, ts, signature] of rejectedCases) {
      const r = await post(ts, signature, `fp-${name}`);
      assert.equal(r.status, 401, `${name}: ${r.text}`);
      assert.equal(r.json.error, 'EUNAUTHORIZED');
    }
    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
    for (const l of env.logLines()) if (l.event === 'webhook.rejected') reasons.push(String(l.reason));
    assert.deepEqual(reasons, ['missing-timestamp', 'bad-signature', 'stale-timestamp', 'malformed-timestamp'], 'one line per reason within 10 s');
    assert.equal(env.rejected.length, rejectedCases.length, 'every refusal counted');

    assert.equal((await post(String(nowS), signBody(SECRET, body, String(nowS)), 'a')).status, 202);
    assert.equal((await post(String(nowS - 299), signBody(SECRET, body, String(nowS - 299)), 'b')).status, 202);
    assert.equal((await post(String(nowS + 299), signBody(SECRET, body, String(nowS + 299)), 'c')).status, 202);
  });

  it('serves two sources of two agents on one port', async () => {
    const env = await setup({ sources: [
      { agentId: 'oncall', source: source('alertmanager') },
      { agentId: 'billing', source: source('grafana', { secret: 'grafana-secret-0123456789' }) },
    ] });
    assert.equal(env.ingest.ports().length, 1);
    const body = JSON.stringify(ALERT);
    const a = await signed(env.port, body, { 'x-alert-fingerprint': 'same' }, '/webhooks/alertmanager');
    const b = await signed(env.port, body, { 'x-alert-fingerprint': 'same' }, '/webhooks/grafana', 'grafana-secret-0123456789');
    assert.equal(a.status, 202, a.text);
    assert.equal(b.status, 202, b.text);
    // Each source checks its own secret.
    assert.equal((await signed(env.port, body, {}, '/webhooks/grafana')).status, 401);
    const events = (await env.store.listEvents(PAGE, {})).items;
    assert.deepEqual(events.map((e) => [e.agentId, e.sourceId]), [['oncall', 'alertmanager'], ['billing', 'grafana']]);
    assert.equal(env.stats.get('billing', 'grafana').received, 1);
    assert.ok(env.logLines('billing').some((l) => l.event === 'webhook.accepted' && l.sourceId === 'grafana'));
    assert.ok(env.logLines('billing').some((l) => l.event === 'webhook.rejected'));
    assert.ok(!env.logLines('oncall').some((l) => l.event === 'webhook.rejected'));
  });

  it('answers 503 when the store fails, records nothing, and accepts the retry', async () => {
    let failing = true;
    const env = await setup({ wrap: (store) => withStore(store, {
      ingestEvent: (e, t) => (failing ? Promise.reject(new Error('SQLITE_IOERR: disk I/O error at /secret/path')) : store.ingestEvent(e, t)),
    }) });
    const body = JSON.stringify(ALERT);
    const r = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-retry' });
    assert.equal(r.status, 503);
    assertJsonHeaders(r);
    assert.deepEqual(r.json, { error: 'EUNAVAILABLE', message: 'event store unavailable, retry' });
    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
    assert.deepEqual(env.accepted, []);
    assert.equal(env.stats.get('oncall', 'alertmanager').received, 0);
    assert.ok(env.logLines().some((l) => l.event === 'webhook.store-failed'));
    assert.equal(env.errors.length, 1);

    failing = false;
    const retry = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-retry' });
    assert.equal(retry.status, 202, retry.text);
    assert.equal(retry.json.status, 'accepted');
    assert.equal(env.accepted.length, 1);
  });

  it('never answers 202 before the commit: while commits fail, every request of every batch gets 503 and nothing is stored', async () => {
    const env = await setup();
    // A real failing COMMIT in the real store (no wrapper): while `fail_commits` has a row, each
    // inserted event adds a row whose foreign key is deferred to COMMIT and names no event, so every
    // statement succeeds and the commit of the whole batch fails. (Dropped again at the end: the
    // store file is the next test's.)
    const db = new Database(env.storePath);
    try {
      db.exec(`CREATE TABLE fail_commits (on_ INTEGER);
        CREATE TABLE doomed (event_id TEXT REFERENCES events (id) DEFERRABLE INITIALLY DEFERRED);
        CREATE TRIGGER doom_commit AFTER INSERT ON events WHEN EXISTS (SELECT 1 FROM fail_commits)
        BEGIN INSERT INTO doomed (event_id) VALUES ('no such event'); END;
        INSERT INTO fail_commits VALUES (1);`);
      const bodies = Array.from({ length: 16 }, (_, i) => JSON.stringify({ ...ALERT, n: i }));
      const failed = await Promise.all(bodies.map((b, i) => signed(env.port, b, { 'x-alert-fingerprint': `fp-${i}` })));
      assert.deepEqual(failed.map((r) => r.status), bodies.map(() => 503));
      for (const r of failed) assert.deepEqual(r.json, { error: 'EUNAVAILABLE', message: 'event store unavailable, retry' });
      assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
      assert.deepEqual(env.accepted, []);
      assert.equal(env.logLines().filter((l) => l.event === 'webhook.store-failed').length, 16);
      assert.equal(env.rejected.filter(([, reason]) => reason === 'unavailable').length, 16);

      db.exec('DELETE FROM fail_commits');
      const retried = await Promise.all(bodies.map((b, i) => signed(env.port, b, { 'x-alert-fingerprint': `fp-${i}` })));
      assert.deepEqual(retried.map((r) => r.status), bodies.map(() => 202));
      // Every 202 names an event that is stored.
      const stored = new Set((await env.store.listEvents(PAGE, {})).items.map((e) => e.id));
      for (const r of retried) assert.ok(stored.has(String(r.json.eventId)), `${String(r.json.eventId)} answered 202 but is not stored`);
      assert.equal(stored.size, 16);
    } finally {
      db.exec('DROP TRIGGER IF EXISTS doom_commit; DROP TABLE IF EXISTS doomed; DROP TABLE IF EXISTS fail_commits;');
      db.close();
    }
  });

  it('answers the accepted requests of a commit together: each 202 arrives with its log line already in the file', async () => {
    const env = await setup();
    const bodies = Array.from({ length: 24 }, (_, i) => JSON.stringify({ ...ALERT, n: i }));
    // The log is read the moment each answer arrives: its line must be there before the 202 left.
    const answers = await Promise.all(bodies.map(async (b, i) => {
      const r = await signed(env.port, b, { 'x-alert-fingerprint': `fp-line-${i}` });
      const logged = env.logLines().some((l) => l.event === 'webhook.accepted' && l.eventId === r.json.eventId);
      return { r, logged };
    }));
    assert.deepEqual(answers.map(({ r }) => r.status), bodies.map(() => 202));
    for (const { r, logged } of answers) {
      assert.deepEqual(Object.keys(r.json), ['status', 'eventId']);
      assert.ok(logged, `no webhook.accepted line for ${String(r.json.eventId)} when its 202 arrived`);
    }
    const lines = env.logLines().filter((l) => l.event === 'webhook.accepted');
    assert.equal(lines.length, 24);
    assert.deepEqual(new Set(lines.map((l) => l.fingerprint)), new Set(bodies.map((_, i) => `fp-line-${i}`)));
    assert.deepEqual(new Set(env.accepted.map((e) => e.id)), new Set(answers.map(({ r }) => r.json.eventId)));
    assert.equal(env.stats.get('oncall', 'alertmanager').received, 24);
  });

  it('answers 503 once the store has not answered within the write deadline, and accepts the retry', async () => {
    let hanging = true;
    const env = await setup({ wrap: (store) => withStore(store, {
      ingestEvent: (e, t) => (hanging ? new Promise<never>(() => undefined) : store.ingestEvent(e, t)),
    }) });
    const body = JSON.stringify(ALERT);
    const timersBefore = env.clock.pendingTimers();
    const pending = signed(env.port, body, { 'x-alert-fingerprint': 'fp-hang' });
    await waitFor('the write and its deadline to start', () => env.clock.pendingTimers() > timersBefore);
    env.clock.advance(STORE_WRITE_DEADLINE_MS);
    const r = await pending;
    assert.equal(r.status, 503);
    assert.deepEqual(r.json, { error: 'EUNAVAILABLE', message: 'event store unavailable, retry' });
    assert.deepEqual(await counts(env.store), { events: 0, audit: 0 });
    assert.deepEqual(env.rejected, [['alertmanager', 'unavailable']]);
    assert.ok(env.logLines().some((l) => l.event === 'webhook.store-failed' && l.error === `no answer from the store within ${STORE_WRITE_DEADLINE_MS} ms`));

    hanging = false;
    const retry = await signed(env.port, body, { 'x-alert-fingerprint': 'fp-hang' });
    assert.equal(retry.status, 202, retry.text);
  });

  it('answers 503 when the store is closed', async () => {
    const env = await setup({ ownStore: true });
    await env.store.close();
    const r = await signed(env.port, JSON.stringify(ALERT));
    assert.equal(r.status, 503);
    assert.equal(r.json.error, 'EUNAVAILABLE');
  });

  it('still answers 200 to a duplicate when its audit row cannot be written, and reports it', async () => {
    const env = await setup({ wrap: (store) => withStore(store, {
      appendAudit: () => Promise.reject(new Error('audit down')),
    }) });
    const body = JSON.stringify(ALERT);
    assert.equal((await signed(env.port, body, { 'x-alert-fingerprint': 'f' })).status, 202);
    const dup = await signed(env.port, body, { 'x-alert-fingerprint': 'f' });
    assert.equal(dup.status, 200);
    assert.equal(dup.json.status, 'duplicate');
    assert.equal(env.errors.length, 1);
    assert.match(String(env.errors[0]), /audit down/);
  });

  it('rejects start() naming the port and sources (never the bind: it may come from a reference) when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'svc-ingest-'));
      dirs.push(dir);
      const clock = fakeClock(NOW);
      const store = await shared.fresh();
      const log = createAgentLog({ path: join(dir, 'a.log'), agentId: 'oncall', clock });
      const ingest = createWebhookIngest({ store, clock, stats: createSourceStats(), onAccepted: () => undefined, rejected: () => undefined,
        routes: [{ agentId: 'oncall', source: source('alertmanager', { port }), log }] });
      await assert.rejects(ingest.start(), (err: Error) => {
        assert.match(err.message, new RegExp(`^webhook ingest cannot listen on port ${port} for source alertmanager \\(agent oncall\\): EADDRINUSE$`));
        assert.doesNotMatch(err.message, /127\.0\.0\.1/);
        assert.match(err.message, /alertmanager/);
        assert.match(err.message, /EADDRINUSE/);
        return true;
      });
      assert.deepEqual(ingest.ports(), []);
      await ingest.close();
      await store.close();
      log.close();
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('refuses a source id used twice on one port', () => {
    const log = { write: () => undefined, close: () => undefined };
    assert.throws(() => createWebhookIngest({ store: {} as Store, clock: fakeClock(NOW), stats: createSourceStats(),
      onAccepted: () => undefined, rejected: () => undefined, routes: [
        { agentId: 'a', source: source('alertmanager'), log },
        { agentId: 'b', source: source('alertmanager'), log },
      ] }), /alertmanager/);
  });

  it('close() lets an in-flight request finish, then refuses connections; it is idempotent', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let entered: () => void = () => undefined;
    const inStore = new Promise<void>((resolve) => { entered = resolve; });
    const env = await setup({ wrap: (store) => withStore(store, {
      ingestEvent: async (e, t) => {
        entered();
        await gate;
        return store.ingestEvent(e, t);
      },
    }) });
    const pending = signed(env.port, JSON.stringify(ALERT));
    await inStore;
    let closed = false;
    const closing = env.ingest.close().then(() => { closed = true; });
    // close() has got as far as closing the listener (a new connection is refused), and is still
    // waiting: for the request held in the store (its grace runs on the fake clock, which stands still).
    await assert.rejects(signed(env.port, JSON.stringify(ALERT)), /ECONNREFUSED/);
    assert.equal(closed, false, 'close() resolved while a request was in flight');
    release();
    const r = await pending;
    assert.equal(r.status, 202);
    assert.equal(r.headers.connection, 'close');
    await closing;
    await env.ingest.close();
    assert.deepEqual(env.ingest.ports(), []);
    await assert.rejects(signed(env.port, JSON.stringify(ALERT)), /ECONNREFUSED/);
    assert.equal(env.accepted.length, 1);
  });

  it('close() does not wait for idle keep-alive connections', async () => {
    const env = await setup();
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true });
    const body = JSON.stringify(ALERT);
    const r = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: env.port, path: '/webhooks/alertmanager', method: 'POST', agent,
        headers: { 'x-signature': signBody(SECRET, body), 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(r, 202);
    const started = Date.now();
    await env.ingest.close();
    assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`);
    agent.destroy();
  });
});
