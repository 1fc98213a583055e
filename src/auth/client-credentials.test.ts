/**
 * The client-credentials client against a real OpenID provider (`oidc-provider` 9) on loopback,
 * configured for the strict flow: client_secret_basic, grant_types ['client_credentials'] only, RFC
 * 9068 `at+jwt` access tokens for one resource (no default resource, so the client must ask for it).
 * Plus a few answers no real provider gives, from a hand-made token endpoint.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { fakeClock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { abortRecordingFetch } from '../../test/support/http.js';
import { startIdp as startSharedIdp } from '../../test/support/idp.js';
import { waitFor } from '../../test/support/wait.js';
import { createClientCredentialsClient } from './client-credentials.js';

const AUDIENCE = 'urn:svc:control-plane';
const SCOPE = 'control:read';
const CLIENT_ID = 'svc-cli';
// Characters that differ between form-urlencoding and percent-encoding (RFC 6749 §2.3.1).
const SECRET = 'cli secret+0123:456%789~abc*def!';
const TTL_S = 300;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Idp { issuer: string; tokenEndpoint: string; tokenRequests(): number; close(): Promise<void> }

async function listen(handler: Handler): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
}

/** The shared loopback IdP, strict: no default resource, tokens of TTL_S seconds. */
async function startIdp(): Promise<Idp> {
  const idp = await startSharedIdp({ [CLIENT_ID]: SECRET }, { ttlS: TTL_S, requireResource: true });
  return { issuer: idp.issuer, tokenEndpoint: idp.tokenEndpoint, tokenRequests: () => idp.hits.get('/token') ?? 0, close: () => idp.close() };
}

describe('client-credentials client against oidc-provider', () => {
  let idp: Idp;
  before(async () => { idp = await startIdp(); });
  after(async () => { await idp?.close(); });

  const client = (over: Partial<Parameters<typeof createClientCredentialsClient>[0]> = {}) => {
    const clock = fakeClock(Date.parse('2030-01-01T00:00:00Z'));
    return {
      clock,
      cc: createClientCredentialsClient({
        tokenEndpoint: idp.tokenEndpoint, clientId: CLIENT_ID, clientSecret: SECRET, scopes: [SCOPE], audience: AUDIENCE, clock, ...over,
      }),
    };
  };

  it('gets an at+jwt access token for the audience, with the scope, that verifies against the JWKS', async () => {
    const { cc } = client();
    const token = await cc.token();
    assert.equal(decodeProtectedHeader(token).typ, 'at+jwt');
    const claims = decodeJwt(token);
    assert.equal(claims.aud, AUDIENCE);
    assert.equal(claims.scope, SCOPE);
    assert.equal(claims.client_id, CLIENT_ID);
    assert.equal(claims.iss, idp.issuer);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), TTL_S);
    const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
    await jwtVerify(token, jwks, { issuer: idp.issuer, audience: AUDIENCE, typ: 'at+jwt', algorithms: ['RS256'] });
  });

  it('caches the token, and fetches a fresh one shortly before expires_in runs out', async () => {
    const { cc, clock } = client();
    const before = idp.tokenRequests();
    const first = await cc.token();
    clock.advance(200_000);
    assert.equal(await cc.token(), first);
    // 10 % of 300 s = 30 s < 60 s: refreshed from 270 s on.
    clock.advance(69_000);
    assert.equal(await cc.token(), first);
    assert.equal(idp.tokenRequests() - before, 1);
    clock.advance(1_000);
    const second = await cc.token();
    assert.equal(idp.tokenRequests() - before, 2);
    assert.notEqual(second, first);
    assert.equal(await cc.token(), second);
    assert.equal(idp.tokenRequests() - before, 2);
  });

  it('single-flights 20 concurrent calls into one token request', async () => {
    const { cc } = client();
    const before = idp.tokenRequests();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cc.token()));
    assert.equal(new Set(tokens).size, 1);
    assert.equal(idp.tokenRequests() - before, 1);
  });

  it('invalidate() makes the next call fetch a fresh token', async () => {
    const { cc } = client();
    const before = idp.tokenRequests();
    const first = await cc.token();
    cc.invalidate();
    const second = await cc.token();
    assert.notEqual(second, first);
    assert.equal(idp.tokenRequests() - before, 2);
  });

  it('a wrong secret is a clear error naming the endpoint and invalid_client, never the secret', async () => {
    const wrong = 'wrong-secret-0123456789';
    const { cc } = client({ clientSecret: wrong });
    await assert.rejects(cc.token(), (err: unknown) => {
      assert.ok(err instanceof RuntimeError);
      assert.equal(err.code, 'ETOKEN');
      assert.match(err.message, new RegExp(`^token endpoint ${idp.tokenEndpoint} refused the client-credentials grant: invalid_client \\(HTTP 401\\)`));
      assert.ok(!err.message.includes(wrong) && !err.message.includes(SECRET));
      return true;
    });
  });

  it('an audience the provider does not serve → invalid_target', async () => {
    const { cc } = client({ audience: 'https://elsewhere.example' });
    await assert.rejects(cc.token(), /refused the client-credentials grant: invalid_target \(HTTP 400\)/);
  });

  it('a failure is not cached: the next call tries again', async () => {
    const { cc } = client({ clientSecret: 'nope-nope-nope' });
    const before = idp.tokenRequests();
    await assert.rejects(cc.token());
    await assert.rejects(cc.token());
    assert.equal(idp.tokenRequests() - before, 2);
  });
});

describe('client-credentials client: answers no real provider gives', () => {
  let server: Server;
  let origin: string;
  let answer: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) => res.end();
  const seen: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  before(async () => {
    ({ server, origin } = await listen((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => { body += c; });
      req.on('end', () => { seen.push({ headers: req.headers, body }); answer(req, res, body); });
    }));
  });
  after(async () => { await close(server); });

  const json = (status: number, value: unknown) => (_q: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const make = (over: Partial<Parameters<typeof createClientCredentialsClient>[0]> = {}) => createClientCredentialsClient({
    tokenEndpoint: `${origin}/oauth/token?tenant=x`, clientId: 'id with space', clientSecret: 's3cret/value', clock: fakeClock(0), ...over,
  });

  it('sends form-urlencoded grant_type, scope, audience and resource, and form-urlencoded Basic credentials', async () => {
    answer = json(200, { access_token: 'opaque', token_type: 'bearer', expires_in: '120' });
    seen.length = 0;
    const cc = make({ scopes: ['a', 'b'], audience: 'https://api.example/svc' });
    assert.equal(await cc.token(), 'opaque');
    const req = seen[0]!;
    assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('id+with+space:s3cret%2Fvalue').toString('base64')}`);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(req.body)),
      { grant_type: 'client_credentials', scope: 'a b', audience: 'https://api.example/svc', resource: 'https://api.example/svc' });
    // An audience that is not an absolute URI cannot be an RFC 8707 resource: only `audience` goes out.
    seen.length = 0;
    await make({ audience: 'svc' }).token();
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[0]!.body)), { grant_type: 'client_credentials', audience: 'svc' });
  });

  it('without expires_in a JWT is cached until its exp (minus the margin), anything else is not cached', async () => {
    const clock = fakeClock(1_000_000_000_000);
    const jwt = (exp: number) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.x`;
    answer = json(200, { access_token: jwt(1_000_000_000 + 1000), token_type: 'Bearer' });
    seen.length = 0;
    const cc = make({ clock });
    await cc.token();
    clock.advance(939_000); // 1000 s lifetime: refreshed 60 s early
    await cc.token();
    assert.equal(seen.length, 1);
    clock.advance(1_000);
    await cc.token();
    assert.equal(seen.length, 2);
    answer = json(200, { access_token: 'opaque', token_type: 'Bearer' });
    const opaque = make({ clock });
    seen.length = 0;
    await opaque.token();
    await opaque.token();
    assert.equal(seen.length, 2);
  });

  it('errors: not JSON, no access_token, a non-Bearer token_type, an echoed secret, a timeout, nobody listening', async () => {
    const endpoint = `${origin}/oauth/token`; // named without its query
    answer = (_q, res) => { res.writeHead(502); res.end('<html>bad gateway</html>'); };
    await assert.rejects(make().token(), new RegExp(`^RuntimeError: token endpoint ${endpoint} refused the client-credentials grant: no OAuth error code \\(HTTP 502\\)$`));
    answer = (_q, res) => { res.writeHead(200); res.end('<html>'); };
    await assert.rejects(make().token(), /HTTP 200 answer is not a JSON object/);
    answer = json(200, { token_type: 'Bearer' });
    await assert.rejects(make().token(), /has no usable access_token/);
    answer = json(200, { access_token: 'abc', token_type: 'DPoP' });
    await assert.rejects(make().token(), /token_type "DPoP" is not Bearer/);
    answer = json(400, { error: 'invalid_request', error_description: 'bad secret s3cret/value given' });
    await assert.rejects(make().token(), (err: Error) => {
      assert.match(err.message, /invalid_request \(HTTP 400\): bad secret \[redacted\] given$/);
      return true;
    });
    // The timeout runs on the injected clock: the request is cut off when the fake clock says so.
    answer = () => { /* never answers */ };
    const clock = fakeClock(0);
    const recording = abortRecordingFetch(clock);
    seen.length = 0;
    const pending = make({ timeoutMs: 200, clock, fetch: recording.fetch }).token();
    await waitFor('the token request to reach the endpoint', () => seen.length === 1);
    clock.advance(1_000);
    await assert.rejects(pending, new RegExp(`^RuntimeError: token endpoint ${endpoint} did not answer within 200 ms$`));
    assert.deepEqual(recording.abortedAt, [200], 'cut off when the injected clock reached the timeout');
    const closed = await listen(() => undefined);
    await close(closed.server);
    await assert.rejects(make({ tokenEndpoint: `${closed.origin}/token` }).token(),
      new RegExp(`^RuntimeError: cannot reach token endpoint ${closed.origin}/token: ECONNREFUSED$`));
    await assert.rejects(make({ tokenEndpoint: 'ftp://x/token' }).token(), /not an http\(s\) URL/);
  });
});
