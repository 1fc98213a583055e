/**
 * Control-plane authentication through a real listener: createControlPlane with the auth guard and a
 * route that echoes the principal, requests over loopback HTTP, keys served by loopback IdPs —
 * oauth2-mock-server for crafted tokens, oidc-provider for the strict client-credentials flow
 * (`at+jwt`), and hand-made broken IdPs. Every reason of AUTH_REASONS is produced for real here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, exportSPKI, generateKeyPair, importJWK, SignJWT } from 'jose';
import type { CryptoKey } from 'jose';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';
import type { AuthSettings } from '../config/control-plane.js';
import { fakeClock, systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { sendJson } from './http-json.js';
import type { RouteHandler } from './route.js';
import { createControlPlane } from './server.js';
import { AUDIENCE as OIDC_AUDIENCE, SCOPE as OIDC_SCOPE, fetchToken, startIdp } from '../../test/support/idp.js';
import { createAuthGuard } from './auth-guard.js';
import { KEY_SET_TIMING } from '../auth/key-set.js';
import { AUTH_ERROR_TEXT, AUTH_REASONS } from '../auth/reasons.js';
import type { AuthReason } from '../auth/reasons.js';
import { createTokenVerifier } from '../auth/verify-token.js';
import type { TokenVerifier, TokenVerifierDeps } from '../auth/verify-token.js';
import { abortRecordingFetch } from '../../test/support/http.js';
import { waitFor, within } from '../../test/support/wait.js';

const AUDIENCE = 'urn:svc:control-plane';
const SCOPES = ['control:read', 'control:logs'];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ server: Server; origin: string; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, port };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const { server, port } = await listen(() => undefined);
  await closeServer(server);
  return port;
}

interface MockIdp {
  url: string;
  /** GET /jwks requests seen. */
  jwksHits(): number;
  addKey(alg: string, kid: string): Promise<void>;
  /** A token signed by the IdP's key `kid` (default k1): our audience and scopes, then `claims` (undefined deletes). */
  token(claims?: Record<string, unknown>, kid?: string): Promise<string>;
  /** The public JWK of `kid`. */
  publicJwk(kid: string): Record<string, unknown>;
  close(): Promise<void>;
}

/** oauth2-mock-server's issuer and service on our own node:http server, so that key-set fetches can be counted. */
async function startMockIdp(): Promise<MockIdp> {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256', { kid: 'k1' });
  await issuer.keys.generate('ES256', { kid: 'e1' });
  await issuer.keys.generate('EdDSA', { kid: 'o1' });
  const service = new OAuth2Service(issuer);
  let hits = 0;
  const handler = service.requestHandler;
  const { server, origin } = await listen((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/jwks') hits += 1;
    handler(req, res);
  });
  issuer.url = origin;
  return {
    url: origin,
    jwksHits: () => hits,
    addKey: async (alg, kid) => { await issuer.keys.generate(alg, { kid }); },
    token: (claims = {}, kid = 'k1') => issuer.buildToken({
      kid,
      scopesOrTransform: (_header, payload) => {
        const p = payload as Record<string, unknown>;
        Object.assign(p, { aud: AUDIENCE, scope: SCOPES.join(' ') }, claims);
        for (const [k, v] of Object.entries(claims)) if (v === undefined) delete p[k];
      },
    }),
    publicJwk: (kid) => {
      const jwk = issuer.keys.toJSON(false).find((k) => k.kid === kid);
      assert.ok(jwk);
      return jwk;
    },
    close: () => closeServer(server),
  };
}

interface Plane { port: number; close(): Promise<void> }

/** Echoes the principal, so tests see what the guard handed to the route. */
const echo: RouteHandler = ({ req, res, principal }) => {
  sendJson(req, res, 200, { ok: true, expiresAtMs: principal.expiresAtMs });
  return Promise.resolve();
};

async function startPlane(s: AuthSettings, deps: TokenVerifierDeps, verifier?: TokenVerifier): Promise<Plane> {
  const v = verifier ?? createTokenVerifier(s, deps);
  const plane = createControlPlane({
    bind: '127.0.0.1', port: 0, allowRemote: true, routes: new Map([['/status', echo]]),
    guard: createAuthGuard(s, v, { clock: deps.clock }), report: () => undefined, clock: systemClock, maxConnections: 128,
  });
  await plane.start();
  return { port: plane.port(), close: async () => { await plane.close(); v.close(); } };
}

function settings(issuer: string, over: Partial<AuthSettings> = {}): AuthSettings {
  return { provider: 'oidc', issuer, audience: AUDIENCE, jwksUri: null, scopes: SCOPES, allowLoopback: false, client: null, ...over };
}

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }

function get(port: number, headers: OutgoingHttpHeaders = {}, path = '/status'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bearer = (token: string): OutgoingHttpHeaders => ({ authorization: `Bearer ${token}` });

/** A 401 as the contract has it: the reason, its fixed text, `WWW-Authenticate: Bearer…`, nothing else, nothing secret. */
function assertRejected(res: Answer, reason: AuthReason, secrets: readonly string[] = []): void {
  assert.equal(res.status, 401, res.body);
  assert.match(String(res.headers['www-authenticate']), /^Bearer/);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'reason']);
  assert.equal(body.reason, reason);
  assert.equal(body.error, AUTH_ERROR_TEXT[reason]);
  for (const secret of secrets) assert.ok(!res.body.includes(secret), `the body quotes ${secret.slice(0, 40)}`);
}

function assertAccepted(res: Answer): { expiresAtMs: number | null } {
  assert.equal(res.status, 200, res.body);
  return JSON.parse(res.body) as { expiresAtMs: number | null };
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('auth over HTTP: every rejection reason, against oauth2-mock-server keys found by discovery', () => {
  let idp: MockIdp;
  let plane: Plane;
  let clock: Clock & { advance(ms: number): void };
  let secrets: string[];
  const nowS = (): number => Math.floor(clock.now() / 1000);

  before(async () => {
    idp = await startMockIdp();
    clock = fakeClock(Date.now());
    plane = await startPlane(settings(idp.url), { clock });
    secrets = [idp.url, AUDIENCE];
  });
  after(async () => {
    await plane?.close();
    await idp?.close();
  });

  it('a valid RS256 token opens /status; the principal expires when the token stops being accepted, exp + 60 s', async () => {
    const exp = nowS() + 300;
    const body = assertAccepted(await get(plane.port, bearer(await idp.token({ exp }))));
    assert.equal(body.expiresAtMs, (exp + 60) * 1000);
    assert.equal(idp.jwksHits(), 1);
  });

  it('ES256 and EdDSA tokens verify too; the scheme is case-insensitive', async () => {
    assertAccepted(await get(plane.port, bearer(await idp.token({}, 'e1'))));
    assertAccepted(await get(plane.port, bearer(await idp.token({}, 'o1'))));
    assertAccepted(await get(plane.port, { authorization: `bEaReR ${await idp.token()}` }));
  });

  it('missing-token: no Authorization header, an empty one, or another scheme', async () => {
    assertRejected(await get(plane.port), 'missing-token', secrets);
    assertRejected(await get(plane.port, { authorization: '' }), 'missing-token', secrets);
    const token = await idp.token();
    assertRejected(await get(plane.port, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }), 'missing-token', secrets);
    assertRejected(await get(plane.port, { authorization: `Token ${token}` }), 'missing-token', [...secrets, token]);
    // Never from the query string.
    assertRejected(await get(plane.port, {}, `/status?access_token=${token}`), 'missing-token', [...secrets, token]);
  });

  it('malformed-token: garbage, two parts, alg none, HS256 keyed with the public key PEM, over 8 KiB, two headers, no credential', async () => {
    const valid = await idp.token();
    const [h, p] = valid.split('.') as [string, string, string];
    const pem = await exportSPKI(await importJWK(idp.publicJwk('k1'), 'RS256') as CryptoKey);
    const hs256 = await new SignJWT({ iss: idp.url, aud: AUDIENCE, scope: SCOPES.join(' '), iat: nowS(), exp: nowS() + 300 })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode(pem));
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`;
    const noneWithSig = `${b64({ alg: 'none' })}.${p}.${valid.split('.')[2] ?? ''}`;
    const big = await idp.token({ pad: 'x'.repeat(9000) });
    assert.ok(big.length > 8192 && big.length < 14_000);
    const cases: Array<[string, OutgoingHttpHeaders]> = [
      ['garbage', bearer('not-a-jwt')],
      ['punctuation', bearer('%%%.$$$.@@@')],
      ['two parts', bearer(`${h}.${p}`)],
      ['four parts', bearer(`${valid}.${h}`)],
      ['bad base64 header', bearer(`${h.slice(1)}.${p}.sig`)],
      ['header not JSON', bearer(`${Buffer.from('{alg:RS256}').toString('base64url')}.${p}.sig`)],
      ['payload not an object', bearer(`${h}.${b64([1, 2])}.sig`)],
      ['alg none', bearer(none)],
      ['alg none with a signature', bearer(noneWithSig)],
      ['HS256 with the public key as the secret', bearer(hs256)],
      ['over 8 KiB, validly signed', bearer(big)],
      // An array value goes out as two header lines (the capitalised key escapes the `authorization?: string` typing).
      ['two Authorization headers', { Authorization: [`Bearer ${valid}`, `Bearer ${valid}`] }],
      ['Bearer without a credential', { authorization: 'Bearer' }],
      ['two credentials', { authorization: `Bearer ${valid} ${valid}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await get(plane.port, headers);
      assert.equal(res.status, 401, name);
      assertRejected(res, 'malformed-token', [...secrets, valid, hs256]);
    }
  });

  it('malformed-token: exp or iat missing or not a number', async () => {
    for (const claims of [{ exp: undefined }, { iat: undefined }, { exp: '9999999999' }, { iat: 'yesterday' }, { iat: null }]) {
      assertRejected(await get(plane.port, bearer(await idp.token(claims))), 'malformed-token', secrets);
    }
  });

  it('bad-signature: signed by another key under the same kid, or a tampered payload', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ iss: idp.url, aud: AUDIENCE, scope: SCOPES.join(' '), iat: nowS(), exp: nowS() + 300 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    assertRejected(await get(plane.port, bearer(forged)), 'bad-signature', [...secrets, forged]);
    const [h, , s] = (await idp.token()).split('.');
    const tampered = `${h}.${b64({ iss: idp.url, aud: AUDIENCE, scope: 'control:read control:logs control:admin', iat: nowS(), exp: nowS() + 9e5 })}.${s}`;
    assertRejected(await get(plane.port, bearer(tampered)), 'bad-signature', [...secrets, tampered]);
  });

  it('expired: exp + 60 s in the past; still accepted 30 s past exp', async () => {
    assertAccepted(await get(plane.port, bearer(await idp.token({ iat: nowS() - 600, exp: nowS() - 30 }))));
    assertAccepted(await get(plane.port, bearer(await idp.token({ iat: nowS() - 600, exp: nowS() - 59 }))));
    assertRejected(await get(plane.port, bearer(await idp.token({ iat: nowS() - 600, exp: nowS() - 60 }))), 'expired', secrets);
    assertRejected(await get(plane.port, bearer(await idp.token({ iat: nowS() - 7200, exp: nowS() - 3600 }))), 'expired', secrets);
  });

  it('expired when the clock passes exp + 60 s', async () => {
    const token = await idp.token({ exp: nowS() + 10 });
    const { expiresAtMs } = assertAccepted(await get(plane.port, bearer(token)));
    clock.advance(69_000);
    assertAccepted(await get(plane.port, bearer(token)));
    clock.advance(1_000);
    assert.ok(clock.now() >= (expiresAtMs as number), 'the principal said it would stop being accepted by now');
    assertRejected(await get(plane.port, bearer(token)), 'expired', [...secrets, token]);
  });

  it('not-yet-valid: iat or nbf more than 60 s ahead; accepted within the skew', async () => {
    assertRejected(await get(plane.port, bearer(await idp.token({ iat: nowS() + 120, nbf: undefined, exp: nowS() + 900 }))), 'not-yet-valid', secrets);
    assertRejected(await get(plane.port, bearer(await idp.token({ nbf: nowS() + 120, exp: nowS() + 900 }))), 'not-yet-valid', secrets);
    assertAccepted(await get(plane.port, bearer(await idp.token({ iat: nowS() + 50, nbf: nowS() + 50 }))));
  });

  it('wrong-issuer: another iss, or none', async () => {
    for (const iss of [`${idp.url}/`, 'https://id.example.com', undefined]) {
      assertRejected(await get(plane.port, bearer(await idp.token({ iss }))), 'wrong-issuer', secrets);
    }
  });

  it('wrong-audience: another aud, none, or an array without ours; accepted when the array holds ours', async () => {
    for (const aud of ['urn:other', undefined, ['urn:a', 'urn:b'], []]) {
      assertRejected(await get(plane.port, bearer(await idp.token({ aud }))), 'wrong-audience', secrets);
    }
    assertAccepted(await get(plane.port, bearer(await idp.token({ aud: ['urn:other', AUDIENCE] }))));
  });

  it('insufficient-scope: a scope missing from a scope string, an scp string or an scp array; the union is accepted', async () => {
    const rejected = [
      { scope: 'control:read' },
      { scope: undefined, scp: 'control:read' },
      { scope: undefined, scp: ['control:read'] },
      { scope: undefined },
      { scope: 'control:read,control:logs' },
      { scope: 'control:readcontrol:logs' },
    ];
    for (const claims of rejected) {
      assertRejected(await get(plane.port, bearer(await idp.token(claims))), 'insufficient-scope', [...secrets, ...SCOPES]);
    }
    for (const claims of [
      { scope: 'openid control:logs profile control:read' },
      { scope: undefined, scp: 'control:read control:logs' },
      { scope: undefined, scp: ['control:logs', 'control:read'] },
      { scope: 'control:read', scp: ['control:logs'] },
    ]) {
      assertAccepted(await get(plane.port, bearer(await idp.token(claims))));
    }
  });

  it('the checks run in the contract order: structure, signature, iss, aud, time, scopes', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const allWrong = await new SignJWT({ iss: 'https://x', aud: 'y', iat: nowS() + 600, exp: nowS() - 600 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    assertRejected(await get(plane.port, bearer(allWrong)), 'bad-signature');
    assertRejected(await get(plane.port, bearer(await idp.token({ iss: 'https://x', aud: 'y', exp: nowS() - 600, scope: '' }))), 'wrong-issuer');
    assertRejected(await get(plane.port, bearer(await idp.token({ aud: 'y', exp: nowS() - 600, scope: '' }))), 'wrong-audience');
    assertRejected(await get(plane.port, bearer(await idp.token({ exp: nowS() - 600, scope: '' }))), 'expired');
    assertRejected(await get(plane.port, bearer(await idp.token({ exp: undefined, scope: '' }))), 'malformed-token');
  });

  it('the whole matrix fetched the key set once', () => {
    assert.equal(idp.jwksHits(), 1);
  });
});

describe('auth over HTTP: idp-unreachable, provider-failed, config-error', () => {
  let idp: MockIdp;
  const broken: Server[] = [];
  const held: Socket[] = [];

  before(async () => { idp = await startMockIdp(); });
  after(async () => {
    for (const s of held) s.destroy();
    for (const s of broken) await closeServer(s);
    await idp?.close();
  });

  async function brokenIdp(handler: Handler): Promise<string> {
    const { server, origin } = await listen(handler);
    broken.push(server);
    return origin;
  }

  async function rejectsWith(s: AuthSettings, deps: TokenVerifierDeps, reason: AuthReason, verifier?: TokenVerifier): Promise<void> {
    const plane = await startPlane(s, deps, verifier);
    try {
      const token = await idp.token();
      assertRejected(await get(plane.port, bearer(token)), reason, [token, idp.url, AUDIENCE]);
    } finally {
      await plane.close();
    }
  }

  it('the default key-set fetch timeout is 5 s, the refetch cooldown 30 s', () => {
    assert.equal(KEY_SET_TIMING.timeoutMs, 5_000);
    assert.equal(KEY_SET_TIMING.cooldownMs, 30_000);
  });

  it('idp-unreachable: nothing listening on the key-set port', async () => {
    await rejectsWith(settings(idp.url, { jwksUri: `http://127.0.0.1:${await closedPort()}/jwks` }), { clock: systemClock }, 'idp-unreachable');
  });

  it('idp-unreachable: nothing listening for discovery', async () => {
    const deadIssuer = `http://127.0.0.1:${await closedPort()}`;
    const plane = await startPlane(settings(deadIssuer), { clock: systemClock });
    try {
      const token = await idp.token({ iss: deadIssuer });
      assertRejected(await get(plane.port, bearer(token)), 'idp-unreachable', [token, deadIssuer]);
    } finally {
      await plane.close();
    }
  });

  it('idp-unreachable: an IdP that never answers, cut off by the fetch timeout', async () => {
    const origin = await brokenIdp((req) => { held.push(req.socket); });
    const clock = fakeClock(Date.now());
    const recording = abortRecordingFetch(clock);
    const plane = await startPlane(settings(idp.url, { jwksUri: `${origin}/jwks` }), { clock, fetch: recording.fetch, timing: { timeoutMs: 300 } });
    try {
      const token = await idp.token();
      const before = held.length;
      const answer = get(plane.port, bearer(token));
      await waitFor('the key-set fetch to reach the IdP', () => held.length > before);
      clock.advance(1_000); // the IdP never answers: only the fetch timeout can end the wait
      assertRejected(await within(answer, 'the 401'), 'idp-unreachable', [token, idp.url, AUDIENCE]);
      assert.deepEqual(recording.abortedAt, [300], 'the key-set fetch was cut off at its timeout');
    } finally {
      await plane.close();
    }
  });

  it('idp-unreachable: an IdP answering 500', async () => {
    const origin = await brokenIdp((_req, res) => { res.writeHead(500, { 'content-type': 'application/json' }).end('{"keys":[]}'); });
    await rejectsWith(settings(idp.url, { jwksUri: `${origin}/jwks` }), { clock: systemClock }, 'idp-unreachable');
  });

  it('idp-unreachable: an IdP answering HTML with 200', async () => {
    const origin = await brokenIdp((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>'); });
    await rejectsWith(settings(idp.url, { jwksUri: `${origin}/jwks` }), { clock: systemClock }, 'idp-unreachable');
  });

  it('idp-unreachable: a discovery document naming another issuer', async () => {
    const origin = await brokenIdp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'https://evil.example', jwks_uri: `${idp.url}/jwks` }));
    });
    const plane = await startPlane(settings(origin), { clock: systemClock });
    try {
      assertRejected(await get(plane.port, bearer(await idp.token({ iss: origin }))), 'idp-unreachable', [origin]);
    } finally {
      await plane.close();
    }
  });

  it('provider-failed: a key getter that throws something unexpected', async () => {
    const keys = (): Promise<never> => Promise.reject(new RangeError('internal detail that must not leak'));
    const plane = await startPlane(settings(idp.url), { clock: systemClock, keys });
    try {
      const res = await get(plane.port, bearer(await idp.token()));
      assertRejected(res, 'provider-failed', ['internal detail', 'RangeError']);
    } finally {
      await plane.close();
    }
  });

  it('provider-failed: a verifier that throws is answered 401, never 5xx', async () => {
    const throwing: TokenVerifier = { verify: () => Promise.reject(new Error('boom')), close: () => undefined };
    await rejectsWith(settings(idp.url), { clock: systemClock }, 'provider-failed', throwing);
  });

  it('config-error: a clock that cannot say what time it is', async () => {
    await rejectsWith(settings(idp.url), { clock: { ...systemClock, now: () => Number.NaN } }, 'config-error');
  });
});

describe('auth over HTTP: key-set refetches', () => {
  let idp: MockIdp;
  before(async () => { idp = await startMockIdp(); });
  after(async () => { await idp?.close(); });

  async function unknownKidTokens(n: number): Promise<string[]> {
    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    return Promise.all(Array.from({ length: n }, () => new SignJWT({ iss: idp.url, aud: AUDIENCE, scope: SCOPES.join(' '), iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'RS256', kid: randomUUID() }).sign(privateKey)));
  }

  it('100 concurrent requests with random unknown kids cause at most one key-set fetch (cold, then after the cooldown)', async () => {
    const clock = fakeClock(Date.now());
    const plane = await startPlane(settings(idp.url, { jwksUri: `${idp.url}/jwks` }), { clock });
    try {
      const before = idp.jwksHits();
      const cold = await Promise.all((await unknownKidTokens(100)).map(async (t) => get(plane.port, bearer(t))));
      for (const res of cold) assertRejected(res, 'bad-signature');
      assert.equal(idp.jwksHits() - before, 1);

      clock.advance(KEY_SET_TIMING.cooldownMs + 1);
      const warm = await Promise.all((await unknownKidTokens(100)).map(async (t) => get(plane.port, bearer(t))));
      for (const res of warm) assertRejected(res, 'bad-signature');
      assert.equal(idp.jwksHits() - before, 2);

      // Inside the cooldown: no fetch at all.
      const quiet = await Promise.all((await unknownKidTokens(100)).map(async (t) => get(plane.port, bearer(t))));
      for (const res of quiet) assertRejected(res, 'bad-signature');
      assert.equal(idp.jwksHits() - before, 2);
      assertAccepted(await get(plane.port, bearer(await idp.token())));
      assert.equal(idp.jwksHits() - before, 2);
    } finally {
      await plane.close();
    }
  });

  it('a rotated key is accepted once the cooldown has passed (fake clock)', async () => {
    const clock = fakeClock(Date.now());
    const plane = await startPlane(settings(idp.url, { jwksUri: `${idp.url}/jwks` }), { clock });
    try {
      assertAccepted(await get(plane.port, bearer(await idp.token())));
      const before = idp.jwksHits();
      await idp.addKey('RS256', 'k2');
      const rotated = await idp.token({}, 'k2');
      clock.advance(10_000);
      assertRejected(await get(plane.port, bearer(rotated)), 'bad-signature');
      assert.equal(idp.jwksHits(), before, 'no refetch inside the cooldown');
      clock.advance(KEY_SET_TIMING.cooldownMs);
      assertAccepted(await get(plane.port, bearer(await idp.token({ iat: Math.floor(clock.now() / 1000), exp: Math.floor(clock.now() / 1000) + 300 }, 'k2'))));
      assert.equal(idp.jwksHits(), before + 1);
      assertAccepted(await get(plane.port, bearer(await idp.token({ iat: Math.floor(clock.now() / 1000), exp: Math.floor(clock.now() / 1000) + 300 }))));
    } finally {
      await plane.close();
    }
  });
});

describe('auth over HTTP: loopback bypass (contract §4.1)', () => {
  let idp: MockIdp;
  let open: Plane;
  let strict: Plane;
  before(async () => {
    idp = await startMockIdp();
    open = await startPlane(settings(idp.url, { allowLoopback: true }), { clock: systemClock });
    strict = await startPlane(settings(idp.url, { allowLoopback: false }), { clock: systemClock });
  });
  after(async () => {
    await open?.close();
    await strict?.close();
    await idp?.close();
  });

  it('a direct loopback request bypasses; its principal has no expiry', async () => {
    assert.equal(assertAccepted(await get(open.port)).expiresAtMs, null);
    assertAccepted(await get(open.port, { host: 'localhost' }));
    assertAccepted(await get(open.port, { host: `[::1]:${open.port}` }));
  });

  it('with a proxy header it does not: X-Forwarded-For, Forwarded, X-Forwarded-Host, X-Real-IP (even empty)', async () => {
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.7;proto=https' }, { 'x-forwarded-host': 'svc.example.com' },
      { 'x-real-ip': '203.0.113.7' }, { 'x-forwarded-for': '127.0.0.1' }, { 'x-forwarded-for': '' },
    ]) {
      assertRejected(await get(open.port, headers), 'missing-token');
    }
    // A same-host proxy that rewrote Host to 127.0.0.1 and said so, with a valid token: accepted.
    const token = await idp.token();
    assertAccepted(await get(open.port, { host: '127.0.0.1', 'x-forwarded-for': '203.0.113.7', ...bearer(token) }));
  });

  it('a remote Host (allowed past the Host check because auth is on) needs a token', async () => {
    assertRejected(await get(open.port, { host: 'svc.example.com' }), 'missing-token');
    assertRejected(await get(open.port, { host: 'localhost.evil.example' }), 'missing-token');
  });

  it('allowLoopback: false requires a token on every request, loopback included', async () => {
    assertRejected(await get(strict.port), 'missing-token');
    assertAccepted(await get(strict.port, bearer(await idp.token())));
  });
});

describe('auth over HTTP: 1,000 malformed Authorization headers', () => {
  let idp: MockIdp;
  let plane: Plane;
  let valid: string;
  before(async () => {
    idp = await startMockIdp();
    plane = await startPlane(settings(idp.url, { jwksUri: `${idp.url}/jwks` }), { clock: fakeClock(Date.now()) });
    valid = await idp.token();
  });
  after(async () => {
    await plane?.close();
    await idp?.close();
  });

  it('every answer is a 401 with a reason from AUTH_REASONS; never 5xx; the server stays up', async () => {
    const seed = Date.now() >>> 0;
    const rnd = mulberry32(seed);
    const int = (n: number): number => Math.floor(rnd() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
    const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const b64chars = (n: number, alphabet = B64URL): string => Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
    // Bytes Node lets through in a header value: HTAB, SP, VCHAR, obs-text.
    const headerBytes = (n: number): string => Array.from({ length: n }, () => {
      const r = int(3);
      return String.fromCharCode(r === 0 ? 0x21 + int(0x5e) : r === 1 ? 0x80 + int(0x80) : pick([0x20, 0x09, 0x2e, 0x3d]));
    }).join('');
    const unicode = (n: number): string => Buffer.from(Array.from({ length: n }, () => {
      const cp = pick([0x80 + int(0x780), 0x800 + int(0xd000), 0x10000 + int(0xfffff)]);
      return String.fromCodePoint(cp >= 0xd800 && cp < 0xe000 ? 0x4e00 : cp);
    }).join('')).toString('latin1');
    const schemes = ['Bearer', 'bearer', 'BEARER', 'Basic', 'Digest', 'Token', 'JWT', 'Bearer:', 'Bearerx', 'DPoP', ''];
    const algs = ['none', 'None', 'NONE', 'HS256', 'HS512', 'RS256', 'ES256', 'EdDSA', 'PS512', 'RS1', '', 42, null];
    const generators: Array<() => string> = [
      () => headerBytes(int(200)),
      () => `${pick(schemes)}${pick([' ', '  ', '\t', ''])}${b64chars(int(300))}`,
      () => `Bearer ${Array.from({ length: int(6) }, () => b64chars(int(80), `${B64URL}+/=`)).join('.')}`,
      () => `Bearer ${b64({ alg: pick(algs), kid: randomUUID(), ...(int(4) === 0 ? { crit: ['exp'] } : {}) })}.${
        pick([b64({ iss: idp.url, aud: AUDIENCE, iat: 1, exp: 4e9, scope: SCOPES.join(' ') }), b64chars(int(100)), b64('x'), ''])}.${b64chars(int(342))}`,
      () => `Bearer ${b64chars(8_000 + int(6_000))}`,
      () => `${pick(schemes)} ${Array.from({ length: 3 }, () => b64chars(int(4_500))).join('.')}`,
      () => `Bearer ${unicode(int(120))}`,
      () => unicode(int(60)),
      () => { // one character of a valid token changed, never the last of a segment (base64 padding bits)
        const chars = [...valid];
        let i = int(chars.length);
        while (chars[i] === '.' || chars[i + 1] === '.' || i === chars.length - 1) i = int(chars.length);
        chars[i] = B64URL[(B64URL.indexOf(chars[i] as string) + 1 + int(63)) % 64] as string;
        return `Bearer ${chars.join('')}`;
      },
      () => `Bearer ${valid}${pick(['.', '..x', '=', ' x', '\tx'])}${pick(['', b64chars(4)])}`,
      () => `Bearer ${valid.split('.').reverse().join('.')}`,
    ];
    const values = Array.from({ length: 1000 }, (_, i) => (generators[i % generators.length] as () => string)());
    const seen = new Map<string, number>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < values.length) {
        const i = next++;
        const value = values[i] as string;
        const res = await get(plane.port, { authorization: value });
        const where = `seed ${seed}, case ${i}: ${JSON.stringify(value.slice(0, 120))}`;
        assert.equal(res.status, 401, `${where} → ${res.status} ${res.body}`);
        assert.match(String(res.headers['www-authenticate']), /^Bearer/, where);
        const body = JSON.parse(res.body) as { error: string; reason: AuthReason };
        assert.ok(AUTH_REASONS.includes(body.reason), where);
        assert.deepEqual(Object.keys(body).sort(), ['error', 'reason'], where);
        seen.set(body.reason, (seen.get(body.reason) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    assert.ok((seen.get('malformed-token') ?? 0) > 300, JSON.stringify([...seen]));
    assert.ok((seen.get('missing-token') ?? 0) > 50, JSON.stringify([...seen]));
    assert.ok((seen.get('bad-signature') ?? 0) > 20, JSON.stringify([...seen]));
    assertAccepted(await get(plane.port, bearer(valid)));
  });
});

describe('auth over HTTP: oidc-provider client credentials, at+jwt access tokens, keys by discovery', () => {
  let idp: Awaited<ReturnType<typeof startIdp>>;
  before(async () => { idp = await startIdp({ 'svc-cli': 'cli-secret-0123456789abcdef' }); });
  after(async () => { await idp?.close(); });

  it('its access token opens /status; more scopes or another audience than it grants do not', async () => {
    const token = await fetchToken(idp, 'svc-cli');
    assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
    const base = { issuer: idp.issuer, audience: OIDC_AUDIENCE, scopes: [OIDC_SCOPE] };
    const ok = await startPlane(settings(idp.issuer, base), { clock: systemClock });
    const moreScopes = await startPlane(settings(idp.issuer, { ...base, scopes: [OIDC_SCOPE, 'control:write'] }), { clock: systemClock });
    const otherAudience = await startPlane(settings(idp.issuer, { ...base, audience: 'urn:svc:other' }), { clock: systemClock });
    try {
      const body = assertAccepted(await get(ok.port, bearer(token)));
      assert.ok(typeof body.expiresAtMs === 'number' && body.expiresAtMs > Date.now());
      assertRejected(await get(moreScopes.port, bearer(token)), 'insufficient-scope', [token, idp.issuer, OIDC_AUDIENCE]);
      assertRejected(await get(otherAudience.port, bearer(token)), 'wrong-audience', [token, idp.issuer, 'urn:svc:other']);
      assert.equal(idp.hits.get('/.well-known/openid-configuration'), 3);
    } finally {
      await ok.close();
      await moreScopes.close();
      await otherAudience.close();
    }
  });
});

/** A small seeded PRNG, so that a failing fuzz case can be replayed from the seed in the message. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
