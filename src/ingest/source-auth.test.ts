import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signBody } from './signature.js';
import type { SourceAuthConfig, SourceAuthResult } from './source-auth.js';
import { authChallenge, authMethods, checkSourceAuth, constantTimeEqual, parseAuthorization } from './source-auth.js';

const SECRET = 'hmac-secret-0123456789abcdef';
const TOKEN = 'bearer-token-0123456789abcdef';
const USER = 'alertmanager';
const PASS = 'basic-password-0123456789';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const BODY = Buffer.from('{"status":"firing"}');
const base = { signatureHeader: 'X-Signature' } as const;
const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function check(source: SourceAuthConfig, headers: Record<string, string | string[]>, body = BODY): SourceAuthResult {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return checkSourceAuth(source, {
    header: (name) => {
      const v = lower[name.toLowerCase()];
      if (v === undefined) return undefined;
      return Array.isArray(v) ? (v.length === 1 ? v[0] : null) : v;
    },
    body,
    nowMs: NOW,
  });
}

describe('checkSourceAuth', () => {
  const hmacOnly: SourceAuthConfig = { ...base, secret: SECRET };
  const bearerOnly: SourceAuthConfig = { ...base, bearerToken: TOKEN };
  const basicOnly: SourceAuthConfig = { ...base, basicAuth: { username: USER, password: PASS } };
  const all: SourceAuthConfig = { ...base, secret: SECRET, bearerToken: TOKEN, basicAuth: { username: USER, password: PASS } };
  const timed: SourceAuthConfig = { ...hmacOnly, timestampHeader: 'X-Ts' };
  const ts = String(NOW / 1000);

  const table: Array<[string, SourceAuthConfig, Record<string, string | string[]>, SourceAuthResult]> = [
    ['hmac: good', hmacOnly, { 'x-signature': signBody(SECRET, BODY) }, { ok: true, method: 'hmac' }],
    ['hmac: nothing', hmacOnly, {}, { ok: false, reason: 'missing-signature' }],
    ['hmac: bearer is not a signature', hmacOnly, { authorization: `Bearer ${TOKEN}` }, { ok: false, reason: 'missing-signature' }],
    ['hmac: malformed', hmacOnly, { 'x-signature': 'sha256=zz' }, { ok: false, reason: 'malformed-signature' }],
    ['hmac: twice', hmacOnly, { 'x-signature': [signBody(SECRET, BODY), signBody(SECRET, BODY)] }, { ok: false, reason: 'malformed-signature' }],
    ['hmac: wrong key', hmacOnly, { 'x-signature': signBody('another-secret-0123456789', BODY) }, { ok: false, reason: 'bad-signature' }],
    ['hmac+ts: good', timed, { 'x-signature': signBody(SECRET, BODY, ts), 'x-ts': ts }, { ok: true, method: 'hmac' }],
    ['hmac+ts: missing ts', timed, { 'x-signature': signBody(SECRET, BODY, ts) }, { ok: false, reason: 'missing-timestamp' }],
    ['hmac+ts: malformed ts', timed, { 'x-signature': signBody(SECRET, BODY, ts), 'x-ts': 'soon' }, { ok: false, reason: 'malformed-timestamp' }],
    ['hmac+ts: stale', timed, { 'x-signature': signBody(SECRET, BODY, '1000'), 'x-ts': '1000' }, { ok: false, reason: 'stale-timestamp' }],
    ['bearer: good', bearerOnly, { authorization: `Bearer ${TOKEN}` }, { ok: true, method: 'bearer' }],
    ['bearer: scheme case-insensitive', bearerOnly, { authorization: `bEARER ${TOKEN}` }, { ok: true, method: 'bearer' }],
    ['bearer: wrong', bearerOnly, { authorization: `Bearer ${TOKEN}x` }, { ok: false, reason: 'bad-bearer' }],
    ['bearer: prefix of the token', bearerOnly, { authorization: `Bearer ${TOKEN.slice(0, 10)}` }, { ok: false, reason: 'bad-bearer' }],
    ['bearer: nothing', bearerOnly, {}, { ok: false, reason: 'missing-credentials' }],
    ['bearer: basic sent instead', bearerOnly, { authorization: basic(USER, PASS) }, { ok: false, reason: 'malformed-authorization' }],
    ['bearer: no token', bearerOnly, { authorization: 'Bearer' }, { ok: false, reason: 'malformed-authorization' }],
    ['bearer: two headers', bearerOnly, { authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] }, { ok: false, reason: 'malformed-authorization' }],
    ['bearer: a signature does not do', bearerOnly, { 'x-signature': signBody(SECRET, BODY) }, { ok: false, reason: 'missing-credentials' }],
    ['basic: good', basicOnly, { authorization: basic(USER, PASS) }, { ok: true, method: 'basic' }],
    ['basic: wrong password', basicOnly, { authorization: basic(USER, `${PASS}x`) }, { ok: false, reason: 'bad-basic' }],
    ['basic: wrong user', basicOnly, { authorization: basic('root', PASS) }, { ok: false, reason: 'bad-basic' }],
    ['basic: no colon', basicOnly, { authorization: `Basic ${Buffer.from(USER).toString('base64')}` }, { ok: false, reason: 'malformed-authorization' }],
    ['basic: password holding a colon is compared whole', basicOnly, { authorization: basic(USER, `${PASS}:x`) }, { ok: false, reason: 'bad-basic' }],
    ['all: bearer alone passes', all, { authorization: `Bearer ${TOKEN}` }, { ok: true, method: 'bearer' }],
    ['all: basic alone passes', all, { authorization: basic(USER, PASS) }, { ok: true, method: 'basic' }],
    ['all: hmac passes despite a wrong bearer', all, { 'x-signature': signBody(SECRET, BODY), authorization: 'Bearer nope' }, { ok: true, method: 'hmac' }],
    ['all: nothing', all, {}, { ok: false, reason: 'missing-credentials' }],
    ['all: a wrong signature is named', all, { 'x-signature': signBody('another-secret-0123456789', BODY) }, { ok: false, reason: 'bad-signature' }],
    ['all: a wrong token is named', all, { authorization: 'Bearer nope-nope' }, { ok: false, reason: 'bad-bearer' }],
    ['none configured: refused', { ...base }, { authorization: `Bearer ${TOKEN}` }, { ok: false, reason: 'missing-credentials' }],
  ];
  for (const [name, source, headers, want] of table) {
    it(name, () => assert.deepEqual(check(source, headers), want));
  }

  it('methods and challenges follow the configuration', () => {
    assert.deepEqual(authMethods(all), ['hmac', 'bearer', 'basic']);
    assert.deepEqual(authMethods(basicOnly), ['basic']);
    assert.deepEqual(authChallenge(hmacOnly), []);
    assert.deepEqual(authChallenge(bearerOnly), ['Bearer']);
    assert.equal(authChallenge(all)[0], 'Bearer');
  });
});

describe('constantTimeEqual and parseAuthorization', () => {
  it('compares any lengths without throwing', () => {
    assert.equal(constantTimeEqual('a', 'a'), true);
    assert.equal(constantTimeEqual('a', 'ab'), false);
    assert.equal(constantTimeEqual('', 'x'.repeat(10_000)), false);
    assert.equal(constantTimeEqual(Buffer.from('é'), 'é'), true);
  });

  it('parses the two schemes and refuses junk', () => {
    assert.deepEqual(parseAuthorization(undefined), { scheme: 'none' });
    assert.deepEqual(parseAuthorization(null), { scheme: 'malformed' });
    assert.deepEqual(parseAuthorization('Bearer abc.def'), { scheme: 'bearer', token: 'abc.def' });
    assert.deepEqual(parseAuthorization('Digest x=y'), { scheme: 'malformed' });
    assert.deepEqual(parseAuthorization('Negotiate abc'), { scheme: 'other' });
    assert.deepEqual(parseAuthorization('Bearer a b'), { scheme: 'malformed' });
    const parsed = parseAuthorization(basic('u', 'p:q'));
    assert.equal(parsed.scheme, 'basic');
    if (parsed.scheme === 'basic') assert.deepEqual([parsed.username.toString(), parsed.password.toString()], ['u', 'p:q']);
  });
});
