/**
 * The key set against a loopback IdP whose answers each test sets: every failure kind, discovery,
 * single-flight, the refetch cooldown, stale-while-revalidate and the hard expiry of cached keys —
 * with a fake clock for every age and cooldown, never a sleep.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errors, exportJWK, generateKeyPair } from 'jose';
import type { FlattenedJWSInput, JWK, JWSHeaderParameters } from 'jose';
import type { FakeClock } from '../core/clock.js';
import { fakeClock } from '../core/clock.js';
import { createKeySet, KEY_SET_TIMING, KeySetUnavailableError } from './key-set.js';
import type { KeySet, KeySetOptions } from './key-set.js';
import { abortRecordingFetch } from '../../test/support/http.js';
import { waitFor, within } from '../../test/support/wait.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const NO_TOKEN = { payload: '', signature: '' } as FlattenedJWSInput;
const header = (kid: string | undefined, alg = 'RS256'): JWSHeaderParameters => (kid === undefined ? { alg } : { alg, kid });

async function publicJwk(kid: string, alg = 'RS256'): Promise<JWK> {
  const { publicKey } = await generateKeyPair(alg, { extractable: true });
  return { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
}

const json = (body: unknown, status = 200): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

describe('key set', () => {
  let server: Server;
  let origin: string;
  let handler: Handler;
  const hits = new Map<string, number>();
  const held: Socket[] = [];
  let k1: JWK;
  let k2: JWK;
  let keySets: KeySet[] = [];

  before(async () => {
    k1 = await publicJwk('k1');
    k2 = await publicJwk('k2');
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    hits.clear();
    handler = json({ keys: [k1] });
  });
  after(async () => {
    for (const k of keySets) k.close();
    for (const s of held) s.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function keySet(over: Partial<KeySetOptions> & { clock?: FakeClock } = {}): KeySet & { clock: FakeClock } {
    const clock = over.clock ?? fakeClock(1_700_000_000_000);
    const set = createKeySet({ issuer: origin, jwksUri: `${origin}/jwks`, ...over, clock });
    keySets.push(set);
    return { ...set, clock };
  }
  const fetches = (): number => hits.get('/jwks') ?? 0;

  async function unavailable(set: KeySet, kid = 'k1'): Promise<string> {
    const err = await set.getKey(header(kid), NO_TOKEN).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof KeySetUnavailableError, `expected KeySetUnavailableError, got ${String(err)}`);
    return err.message;
  }

  it('fetches nothing until a key is needed, then serves known kids from the cache', async () => {
    const set = keySet();
    assert.equal(fetches(), 0);
    const key = await set.getKey(header('k1'), NO_TOKEN);
    assert.equal(key.type, 'public');
    await set.getKey(header('k1'), NO_TOKEN);
    await set.getKey(header(undefined), NO_TOKEN); // one RSA key: no kid needed
    assert.equal(fetches(), 1);
    assert.equal(set.stats().fetches, 1);
    assert.equal(set.stats().lastError, null);
  });

  it('an unknown kid in a fresh set: one refetch per cooldown, then JWKSNoMatchingKey', async () => {
    const set = keySet();
    await set.getKey(header('k1'), NO_TOKEN);
    set.clock.advance(KEY_SET_TIMING.cooldownMs);
    await assert.rejects(set.getKey(header('nope'), NO_TOKEN), errors.JWKSNoMatchingKey);
    await assert.rejects(set.getKey(header('nope-2'), NO_TOKEN), errors.JWKSNoMatchingKey);
    assert.equal(fetches(), 2);
  });

  for (const [name, make] of [
    ['answering 404', (): Handler => json({ error: 'not found' }, 404)],
    ['answering 500', (): Handler => json({ keys: [] }, 500)],
    ['redirecting', (): Handler => (_req, res) => { res.writeHead(302, { location: `${origin}/jwks` }).end(); }],
    ['answering HTML', (): Handler => (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>login'); }],
    ['answering invalid JSON', (): Handler => (_req, res) => { res.writeHead(200).end('{"keys": [{"kty": "RSA"'); }],
    ['answering a JSON array', (): Handler => json([])],
    ['answering {keys: "x"}', (): Handler => json({ keys: 'x' })],
    ['answering an empty set', (): Handler => json({ keys: [] })],
    ['answering only a symmetric key', (): Handler => json({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'k1', alg: 'HS256' }] })],
    ['answering only an encryption key', (): Handler => json({ keys: [{ ...k1, use: 'enc' }] })],
    ['answering a private key', (): Handler => json({ keys: [{ ...k1, d: 'AAAA' }] })],
    ['answering a key that cannot be imported', (): Handler => json({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', kid: 'k1', alg: 'ES256' }] })],
    ['answering more than 1 MiB', (): Handler => json({ keys: [k1], pad: 'x'.repeat(1024 * 1024) })],
    ['answering, then resetting the connection', (): Handler => (req, res) => { res.writeHead(200); res.write('{"keys":'); req.socket.destroy(); }],
  ] as const) {
    it(`an IdP ${name}: KeySetUnavailableError (idp-unreachable)`, async () => {
      handler = make();
      const alg = name.includes('cannot be imported') ? 'ES256' : 'RS256';
      const set = keySet();
      const err = await set.getKey(header('k1', alg), NO_TOKEN).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof KeySetUnavailableError, `got ${String(err)}`);
      assert.equal(fetches(), 1);
    });
  }

  it('an RSA key under 2048 bits is left out of the set', async () => {
    // jose will not even generate one; node:crypto will.
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    handler = json({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'small', alg: 'RS256' }] });
    await unavailable(keySet(), 'small');
  });

  it('nothing listening: KeySetUnavailableError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await unavailable(keySet({ jwksUri: `http://127.0.0.1:${port}/jwks` }));
  });

  it('an IdP that never answers: cut off by the timeout', async () => {
    handler = (req) => { held.push(req.socket); };
    const clock = fakeClock(1_700_000_000_000);
    const recording = abortRecordingFetch(clock);
    const set = keySet({ clock, fetch: recording.fetch, timing: { timeoutMs: 200 } });
    const before = held.length;
    const pending = unavailable(set);
    await waitFor('the fetch to reach the IdP', () => held.length > before);
    clock.advance(1_000);
    const message = await within(pending, 'the lookup to fail');
    assert.deepEqual(recording.abortedAt, [200], 'the request was cut off when the clock reached the timeout');
    assert.match(message, /no answer within 200 ms/);
  });

  it('single-flight: 100 concurrent lookups of unknown kids against a slow IdP cause one fetch', async () => {
    const answers: Array<() => void> = [];
    handler = (req, res) => { answers.push(() => json({ keys: [k1] })(req, res)); };
    const set = keySet();
    const lookups = Promise.allSettled(Array.from({ length: 100 }, (_, i) => set.getKey(header(`unknown-${i}`), NO_TOKEN)));
    await waitFor('the fetch to reach the IdP', () => answers.length === 1); // the IdP answers only once all 100 wait
    for (const answer of answers) answer();
    const results = await lookups;
    assert.equal(fetches(), 1);
    for (const r of results) assert.ok(r.status === 'rejected' && r.reason instanceof errors.JWKSNoMatchingKey);
  });

  it('a failed fetch is retried only after the cooldown; the IdP coming back is noticed then', async () => {
    handler = json({}, 503);
    const set = keySet();
    await unavailable(set);
    set.clock.advance(KEY_SET_TIMING.cooldownMs - 1);
    handler = json({ keys: [k1] });
    await unavailable(set);
    assert.equal(fetches(), 1);
    set.clock.advance(1);
    await set.getKey(header('k1'), NO_TOKEN);
    assert.equal(fetches(), 2);
  });

  it('a rotated key is picked up after the cooldown; a removed one disappears with the next fetch', async () => {
    const set = keySet();
    await set.getKey(header('k1'), NO_TOKEN);
    handler = json({ keys: [k2] });
    await assert.rejects(set.getKey(header('k2'), NO_TOKEN), errors.JWKSNoMatchingKey);
    set.clock.advance(KEY_SET_TIMING.cooldownMs);
    await set.getKey(header('k2'), NO_TOKEN);
    set.clock.advance(KEY_SET_TIMING.cooldownMs);
    await assert.rejects(set.getKey(header('k1'), NO_TOKEN), errors.JWKSNoMatchingKey);
    assert.equal(fetches(), 3);
  });

  it('stale-while-revalidate: past refreshAfter a known kid answers at once and the set refreshes in the background', async () => {
    const set = keySet();
    await set.getKey(header('k1'), NO_TOKEN);
    handler = json({ keys: [k2] });
    set.clock.advance(KEY_SET_TIMING.refreshAfterMs);
    await set.getKey(header('k1'), NO_TOKEN);
    await waitFor('the background refresh', () => set.stats().fetchedAtMs === set.clock.now());
    assert.equal(fetches(), 2);
    await assert.rejects(set.getKey(header('k1'), NO_TOKEN), errors.JWKSNoMatchingKey);
  });

  it('an IdP outage: cached keys keep working until maxStale; unknown kids are idp-unreachable meanwhile', async () => {
    const set = keySet();
    await set.getKey(header('k1'), NO_TOKEN);
    handler = json({}, 500);
    set.clock.advance(KEY_SET_TIMING.refreshAfterMs);
    await set.getKey(header('k1'), NO_TOKEN); // starts a background refresh, which fails
    await waitFor('the background refresh to fail', () => set.stats().lastError !== null);
    assert.match(set.stats().lastError ?? '', /500/);
    await set.getKey(header('k1'), NO_TOKEN);
    // The IdP could not be asked about this kid: not a forgery we can prove.
    await unavailable(set, 'k2');
    set.clock.advance(KEY_SET_TIMING.maxStaleMs - KEY_SET_TIMING.refreshAfterMs);
    await unavailable(set, 'k1');
  });

  it('discovery: jwks_uri from <issuer>/.well-known/openid-configuration, remembered', async () => {
    handler = (req, res) => {
      if (req.url === '/.well-known/openid-configuration') json({ issuer: `${origin}/`, jwks_uri: `${origin}/keys` })(req, res);
      else json({ keys: [k1] })(req, res);
    };
    const set = keySet({ issuer: `${origin}/`, jwksUri: null }); // trailing slash: removed before the well-known path
    await set.getKey(header('k1'), NO_TOKEN);
    set.clock.advance(KEY_SET_TIMING.cooldownMs);
    await assert.rejects(set.getKey(header('k9'), NO_TOKEN), errors.JWKSNoMatchingKey);
    assert.equal(hits.get('/.well-known/openid-configuration'), 1);
    assert.equal(hits.get('/keys'), 2);
  });

  it('discovery is redone after the key set it named failed', async () => {
    let keysFail = true;
    handler = (req, res) => {
      if (req.url === '/.well-known/openid-configuration') json({ issuer: origin, jwks_uri: `${origin}/keys` })(req, res);
      else if (keysFail) json({}, 500)(req, res);
      else json({ keys: [k1] })(req, res);
    };
    const set = keySet({ jwksUri: null });
    await unavailable(set);
    keysFail = false;
    set.clock.advance(KEY_SET_TIMING.cooldownMs);
    await set.getKey(header('k1'), NO_TOKEN);
    assert.equal(hits.get('/.well-known/openid-configuration'), 2);
  });

  for (const [name, doc] of [
    ['naming another issuer', (o: string) => ({ issuer: 'https://evil.example', jwks_uri: `${o}/jwks` })],
    ['without jwks_uri', (o: string) => ({ issuer: o })],
    ['with a non-http jwks_uri', (o: string) => ({ issuer: o, jwks_uri: 'file:///etc/passwd' })],
    ['that is not an object', () => ['x']],
  ] as const) {
    it(`a discovery document ${name}: KeySetUnavailableError`, async () => {
      handler = (req, res) => json(req.url === '/jwks' ? { keys: [k1] } : doc(origin))(req, res);
      await unavailable(keySet({ jwksUri: null }));
      assert.equal(fetches(), 0);
    });
  }

  it('close() aborts a fetch in flight and fails later lookups', async () => {
    handler = (req) => { held.push(req.socket); };
    const set = keySet();
    const before = held.length;
    const pending = set.getKey(header('k1'), NO_TOKEN).then(() => null, (e: unknown) => e);
    await waitFor('the fetch to reach the IdP', () => held.length > before);
    set.close();
    assert.ok((await pending) instanceof KeySetUnavailableError);
    await unavailable(set);
    keySets = keySets.filter((k) => k.getKey !== set.getKey);
  });
});
