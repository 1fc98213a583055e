/**
 * The verifier in process: its pure checks as tables, and verify() against a local key getter with a
 * fake clock — the exact skew boundaries, claims jose does not look at, several candidate keys, and
 * how each kind of error maps to a reason. The same reasons over real HTTP: auth-http.test.ts.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KeyObject, sign as cryptoSign } from 'node:crypto';
import { CompactSign, createLocalJWKSet, errors, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import type { AuthSettings } from '../config/control-plane.js';
import { fakeClock, systemClock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { KeyGetter } from './key-set.js';
import { checkTimeClaims, createTokenVerifier, grantedScopes, hasScopes, wellFormed } from './verify-token.js';
import type { VerifyResult } from './verify-token.js';

const ISSUER = 'https://id.example.com';
const AUDIENCE = 'svc';
const NOW_MS = 1_800_000_000_500;
const NOW = Math.floor(NOW_MS / 1000);
const SETTINGS: AuthSettings = {
  provider: 'oidc', issuer: ISSUER, audience: AUDIENCE, jwksUri: null, scopes: ['control:read'], allowLoopback: true, client: null,
};
const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

describe('verifier: pure checks', () => {
  it('wellFormed: size, shape, JSON objects, asymmetric alg', () => {
    const h = b64({ alg: 'RS256' });
    const p = b64({ iss: ISSUER });
    const table: Array<[string, boolean]> = [
      [`${h}.${p}.c2ln`, true],
      [`${b64({ alg: 'EdDSA' })}.${p}.c2ln`, true],
      [`${b64({ alg: 'Ed25519' })}.${p}.c2ln`, true],
      [`${b64({ alg: 'ES512' })}.${p}.c2ln`, true],
      [`${b64({ alg: 'PS384' })}.${p}.c2ln`, true],
      [`${b64({ alg: 'none' })}.${p}.`, false],
      [`${b64({ alg: 'none' })}.${p}.c2ln`, false],
      [`${b64({ alg: 'HS256' })}.${p}.c2ln`, false],
      [`${b64({ alg: 'hs256' })}.${p}.c2ln`, false],
      [`${b64({ alg: 'rs256' })}.${p}.c2ln`, false],
      [`${b64({ alg: 'ES256K' })}.${p}.c2ln`, false],
      [`${b64({ alg: ['RS256'] })}.${p}.c2ln`, false],
      [`${b64({ typ: 'JWT' })}.${p}.c2ln`, false],
      [`${b64({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.${p}.c2ln`, false],
      [`${h}.${p}`, false],
      [`${h}.${p}.c2ln.eHg`, false],
      [`${h}..c2ln`, false],
      [`${h}.${b64('[1]')}.c2ln`, false],
      [`${h}.${b64('null')}.c2ln`, false],
      [`${h}.${b64('{"a":')}.c2ln`, false],
      [`${b64('"RS256"')}.${p}.c2ln`, false],
      [`${h}.${p}.c2ln=`, false],
      [`${h}.${p}.c2+n`, false],
      [`${h.slice(0, -1)}A.${p}.c2ln`, false],
      [` ${h}.${p}.c2ln`, false],
      [`${h}.${b64({ pad: 'x'.repeat(8 * 1024) })}.c2ln`, false],
      ['', false],
      ['garbage', false],
    ];
    for (const [token, expected] of table) assert.equal(wellFormed(token), expected, token.slice(0, 80));
  });

  it('checkTimeClaims: exp and iat required and finite; iat at most 60 s ahead', () => {
    const table: Array<[JWTPayload, string | null]> = [
      [{ exp: NOW + 10, iat: NOW }, null],
      [{ exp: NOW + 10, iat: NOW + 60 }, null],
      [{ exp: NOW + 10, iat: NOW + 61 }, 'not-yet-valid'],
      [{ exp: NOW + 10 }, 'malformed-token'],
      [{ iat: NOW }, 'malformed-token'],
      [{ exp: Number.POSITIVE_INFINITY, iat: NOW }, 'malformed-token'],
      [{ exp: NOW, iat: Number.NaN }, 'malformed-token'],
      [{ exp: `${NOW + 10}` as unknown as number, iat: NOW }, 'malformed-token'],
    ];
    for (const [claims, expected] of table) assert.equal(checkTimeClaims(claims, NOW), expected, JSON.stringify(claims));
  });

  it('grantedScopes / hasScopes: scope string ∪ scp string or array, AND semantics', () => {
    assert.deepEqual([...grantedScopes({ scope: 'a  b', scp: ['c', 'd e', 1] })].sort(), ['a', 'b', 'c', 'd e']);
    assert.deepEqual([...grantedScopes({ scp: 'x y' })].sort(), ['x', 'y']);
    assert.deepEqual([...grantedScopes({ scope: 42 })], []);
    const table: Array<[JWTPayload, string[], boolean]> = [
      [{}, [], true],
      [{}, ['a'], false],
      [{ scope: 'a b' }, ['a', 'b'], true],
      [{ scope: 'a' }, ['a', 'b'], false],
      [{ scope: 'a', scp: 'b' }, ['a', 'b'], true],
      [{ scp: ['a', 'b'] }, ['b'], true],
      [{ scope: 'A' }, ['a'], false],
      [{ scope: 'a,b' }, ['a'], false],
    ];
    for (const [claims, required, expected] of table) assert.equal(hasScopes(claims, required), expected, JSON.stringify([claims, required]));
  });
});

describe('verifier: verify()', () => {
  let k1: CryptoKey;
  let k2: CryptoKey;
  let jwk1: JWK;
  let jwk2: JWK;
  const clock = fakeClock(NOW_MS);

  before(async () => {
    const a = await generateKeyPair('RS256', { extractable: true });
    const b = await generateKeyPair('RS256', { extractable: true });
    k1 = a.privateKey;
    k2 = b.privateKey;
    jwk1 = { ...(await exportJWK(a.publicKey)), kid: 'k1' };
    jwk2 = { ...(await exportJWK(b.publicKey)), kid: 'k2' };
  });

  const claims = (over: Record<string, unknown> = {}): JWTPayload => {
    const c: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, iat: NOW, exp: NOW + 300, scope: 'control:read', ...over };
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete c[k];
    return c;
  };
  const sign = (payload: JWTPayload, key = k1, protectedHeader: Record<string, unknown> = { alg: 'RS256', kid: 'k1' }): Promise<string> =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', ...protectedHeader }).sign(key);

  async function verify(token: string, keys: KeyGetter = createLocalJWKSet({ keys: [jwk1, jwk2] })): Promise<VerifyResult> {
    return createTokenVerifier(SETTINGS, { clock, keys }).verify(token);
  }
  const reason = async (token: string, keys?: KeyGetter): Promise<string> => {
    const r = await verify(token, keys);
    return r.ok ? 'ok' : r.reason;
  };

  it('accepts a good token; expiresAtMs is (exp + 60 s) × 1000', async () => {
    const r = await verify(await sign(claims()));
    assert.ok(r.ok);
    assert.equal(r.expiresAtMs, (NOW + 300 + 60) * 1000);
    assert.equal(r.claims.iss, ISSUER);
  });

  it('the 60 s skew, exactly, both ways', async () => {
    assert.equal(await reason(await sign(claims({ iat: NOW - 900, exp: NOW - 59 }))), 'ok');
    assert.equal(await reason(await sign(claims({ iat: NOW - 900, exp: NOW - 60 }))), 'expired');
    assert.equal(await reason(await sign(claims({ iat: NOW + 60 }))), 'ok');
    assert.equal(await reason(await sign(claims({ iat: NOW + 61 }))), 'not-yet-valid');
    assert.equal(await reason(await sign(claims({ nbf: NOW + 60 }))), 'ok');
    assert.equal(await reason(await sign(claims({ nbf: NOW + 61 }))), 'not-yet-valid');
  });

  it('time claims that are missing, not numbers, or not finite are malformed-token', async () => {
    for (const over of [{ exp: undefined }, { iat: undefined }, { exp: 'soon' }, { iat: true }, { nbf: 'now' }]) {
      assert.equal(await reason(await sign(claims(over))), 'malformed-token', JSON.stringify(over));
    }
    // JSON has no Infinity, but 1e400 parses to it.
    const h = b64({ alg: 'RS256', kid: 'k1' });
    const payload = JSON.stringify(claims()).replace(/"exp":\d+/, '"exp":1e400');
    const infinite = await new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(k1);
    assert.ok(infinite.startsWith(h));
    assert.equal(await reason(infinite), 'malformed-token');
  });

  it('iss and aud: exact issuer, audience string or array member', async () => {
    assert.equal(await reason(await sign(claims({ iss: `${ISSUER}/` }))), 'wrong-issuer');
    assert.equal(await reason(await sign(claims({ iss: ['https://id.example.com'] }))), 'wrong-issuer');
    assert.equal(await reason(await sign(claims({ aud: 'SVC' }))), 'wrong-audience');
    assert.equal(await reason(await sign(claims({ aud: ['a', 'svc'] }))), 'ok');
    assert.equal(await reason(await sign(claims({ aud: [['svc']] }))), 'wrong-audience');
  });

  it('an unknown critical header and an unencoded payload are malformed-token, though validly signed', async () => {
    // jose will not sign these; node:crypto will.
    const raw = (header: Record<string, unknown>, payload: string): string => {
      const input = `${b64(header)}.${payload}`;
      return `${input}.${cryptoSign('sha256', Buffer.from(input), KeyObject.from(k1)).toString('base64url')}`;
    };
    assert.equal(await reason(raw({ alg: 'RS256', kid: 'k1' }, b64(claims()))), 'ok');
    assert.equal(await reason(raw({ alg: 'RS256', kid: 'k1', crit: ['x-custom'], 'x-custom': 1 }, b64(claims()))), 'malformed-token');
    assert.equal(await reason(raw({ alg: 'RS256', kid: 'k1', crit: ['b64'], b64: false }, b64(claims()))), 'malformed-token');
  });

  it('several keys fit a header without kid: each is tried', async () => {
    const noKid = { alg: 'RS256' };
    assert.equal(await reason(await sign(claims(), k2, noKid)), 'ok');
    assert.equal(await reason(await sign(claims(), k1, noKid)), 'ok');
    const { privateKey } = await generateKeyPair('RS256');
    assert.equal(await reason(await sign(claims(), privateKey, noKid)), 'bad-signature');
    assert.equal(await reason(await sign(claims({ iss: 'x' }), k2, noKid)), 'wrong-issuer');
  });

  it('errors out of the key getter: jose JWKS failures are idp-unreachable, anything else provider-failed', async () => {
    const token = await sign(claims());
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- non-Error rejections are among the cases
    const throwing = (err: unknown): KeyGetter => () => Promise.reject(err);
    assert.equal(await reason(token, throwing(new errors.JWKSTimeout())), 'idp-unreachable');
    assert.equal(await reason(token, throwing(new errors.JOSEError('Expected 200 OK from the JSON Web Key Set HTTP response'))), 'idp-unreachable');
    assert.equal(await reason(token, throwing(new errors.JWKSNoMatchingKey())), 'bad-signature');
    assert.equal(await reason(token, throwing(new TypeError('fetch failed'))), 'provider-failed');
    assert.equal(await reason(token, throwing('a string')), 'provider-failed');
    const r = await verify(token, throwing(new Error('secret internals')));
    assert.ok(!r.ok && r.reason === 'provider-failed' && r.detail === 'secret internals');
  });

  it('a clock that returns NaN is config-error; settings that cannot work are a ConfigError at construction', async () => {
    const broken = createTokenVerifier(SETTINGS, { clock: { ...systemClock, now: () => Number.NaN }, keys: createLocalJWKSet({ keys: [jwk1] }) });
    const r = await broken.verify(await sign(claims()));
    assert.ok(!r.ok && r.reason === 'config-error');
    for (const over of [{ issuer: '' }, { issuer: 'id.example.com' }, { issuer: 'ftp://id.example.com' }, { audience: '' }, { jwksUri: 'file:///keys.json' }]) {
      assert.throws(() => createTokenVerifier({ ...SETTINGS, ...over }, { clock }), ConfigError, JSON.stringify(over));
    }
  });
});
