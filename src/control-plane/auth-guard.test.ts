/**
 * The guard's pure halves as tables (loopback peer, the bypass rule, the Bearer header), and the guard
 * itself on hand-made requests: what no loopback listener can produce (a remote TCP peer), the
 * principal it hands to routes, and its rate-limited log lines. Over real HTTP: auth-http.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AuthSettings } from '../config/control-plane.js';
import { fakeClock } from '../core/clock.js';
import type { HostClass } from './host-guard.js';
import { bearerToken, bypassesAuth, createAuthGuard, isLoopbackPeer } from './auth-guard.js';
import type { TokenVerifier, VerifyResult } from '../auth/verify-token.js';

const SETTINGS: AuthSettings = {
  provider: 'oidc', issuer: 'https://id.example.com', audience: 'svc', jwksUri: null, scopes: [], allowLoopback: true, client: null,
};

function fakeRequest(peer: string | undefined, headers: Record<string, string | string[]>): IncomingMessage {
  const rawHeaders = Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, v]));
  const lower: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = Array.isArray(v) ? v[0] : v;
  return { socket: { remoteAddress: peer }, headers: lower, rawHeaders } as unknown as IncomingMessage;
}

function verifierAnswering(result: VerifyResult | Error): TokenVerifier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    verify: (token) => { calls.push(token); return result instanceof Error ? Promise.reject(result) : Promise.resolve(result); },
    close: () => undefined,
  };
}

describe('auth guard: pure checks', () => {
  it('isLoopbackPeer', () => {
    const table: Array<[string | undefined, boolean]> = [
      ['127.0.0.1', true], ['127.255.3.4', true], ['::1', true], ['::ffff:127.0.0.1', true], ['::FFFF:127.1.2.3', true],
      ['10.0.0.1', false], ['192.168.1.1', false], ['::ffff:10.0.0.1', false], ['::', false], ['0.0.0.0', false],
      ['fe80::1', false], ['128.0.0.1', false], ['127.0.0.1.evil', false], ['localhost', false], ['', false], [undefined, false],
    ];
    for (const [peer, expected] of table) assert.equal(isLoopbackPeer(peer), expected, String(peer));
  });

  it('bypassesAuth: allowed, loopback Host, loopback peer, and no proxy header — all four', () => {
    const base = { allowLoopback: true, host: 'loopback' as HostClass, peer: '127.0.0.1', headers: {} as IncomingHttpHeaders };
    assert.equal(bypassesAuth(base), true);
    assert.equal(bypassesAuth({ ...base, peer: '::1' }), true);
    assert.equal(bypassesAuth({ ...base, allowLoopback: false }), false);
    assert.equal(bypassesAuth({ ...base, host: 'remote' }), false);
    assert.equal(bypassesAuth({ ...base, peer: '203.0.113.5' }), false);
    assert.equal(bypassesAuth({ ...base, peer: undefined }), false);
    for (const name of ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip']) {
      assert.equal(bypassesAuth({ ...base, headers: { [name]: '' } }), false, name);
    }
    assert.equal(bypassesAuth({ ...base, headers: { 'user-agent': 'curl', accept: '*/*' } }), true);
  });

  it('bearerToken: one Authorization header, scheme Bearer in any case, one credential', () => {
    const table: Array<[string[], string]> = [
      [[], 'missing-token'],
      [['Host', 'x'], 'missing-token'],
      [['Authorization', ''], 'missing-token'],
      [['Authorization', 'Basic dXNlcjpwYXNz'], 'missing-token'],
      [['Authorization', 'Bearerabc'], 'missing-token'],
      [['Authorization', 'Token abc'], 'missing-token'],
      [['Authorization', 'Bearer'], 'malformed-token'],
      [['Authorization', 'Bearer a b'], 'malformed-token'],
      [['Authorization', 'Bearer a\tb'], 'malformed-token'],
      [['Authorization', 'Bearer a', 'authorization', 'Bearer a'], 'malformed-token'],
      [['Authorization', 'Basic x', 'AUTHORIZATION', 'Bearer a'], 'malformed-token'],
      [['Authorization', 'Bearer abc'], 'abc'],
      [['authorization', 'bearer abc'], 'abc'],
      [['AUTHORIZATION', 'BEARER   abc  '], 'abc'],
      [['Authorization', 'Bearer\tabc'], 'abc'],
    ];
    for (const [raw, expected] of table) {
      const r = bearerToken(raw);
      assert.equal(r.ok ? r.token : r.reason, expected, JSON.stringify(raw));
    }
  });
});

describe('auth guard: createAuthGuard', () => {
  const clock = fakeClock(1_800_000_000_000);
  const ok: VerifyResult = { ok: true, claims: {}, expiresAtMs: 1_800_000_360_000 };

  it('a remote TCP peer never bypasses, even with a loopback Host', async () => {
    const verifier = verifierAnswering(ok);
    const guard = createAuthGuard(SETTINGS, verifier, { clock });
    for (const peer of ['192.0.2.10', '::ffff:192.0.2.10', '2001:db8::1', undefined]) {
      const out = await guard(fakeRequest(peer, { Host: '127.0.0.1:9464' }), 'loopback');
      assert.ok(!out.ok && out.status === 401 && out.body.reason === 'missing-token', String(peer));
    }
    const bypass = await guard(fakeRequest('127.0.0.1', { Host: '127.0.0.1:9464' }), 'loopback');
    assert.deepEqual(bypass, { ok: true, principal: { expiresAtMs: null } });
    assert.equal(verifier.calls.length, 0);
  });

  it('an authenticated principal carries the verifier expiry; the token reaches the verifier untouched', async () => {
    const verifier = verifierAnswering(ok);
    const guard = createAuthGuard({ ...SETTINGS, allowLoopback: false }, verifier, { clock });
    const out = await guard(fakeRequest('127.0.0.1', { Host: '127.0.0.1', Authorization: 'Bearer a.b.c' }), 'loopback');
    assert.deepEqual(out, { ok: true, principal: { expiresAtMs: 1_800_000_360_000 } });
    assert.deepEqual(verifier.calls, ['a.b.c']);
  });

  it('failures: 401, {error, reason}, a Bearer challenge per RFC 6750', async () => {
    const cases: Array<[VerifyResult, string]> = [
      [{ ok: false, reason: 'expired' }, 'Bearer error="invalid_token"'],
      [{ ok: false, reason: 'insufficient-scope' }, 'Bearer error="insufficient_scope"'],
      [{ ok: false, reason: 'idp-unreachable' }, 'Bearer'],
    ];
    for (const [result, challenge] of cases) {
      const guard = createAuthGuard(SETTINGS, verifierAnswering(result), { clock });
      const out = await guard(fakeRequest('192.0.2.1', { Authorization: 'Bearer t' }), 'remote');
      assert.ok(!out.ok);
      assert.equal(out.status, 401);
      assert.deepEqual(out.headers, { 'www-authenticate': challenge });
      assert.equal(out.body.reason, result.ok ? '' : result.reason);
    }
  });

  it('a verifier or a logger that throws is provider-failed, not an exception', async () => {
    const guard = createAuthGuard(SETTINGS, verifierAnswering(new Error('boom')), { clock, report: () => { throw new Error('log down'); } });
    const out = await guard(fakeRequest('192.0.2.1', { Authorization: 'Bearer t' }), 'remote');
    assert.ok(!out.ok && out.body.reason === 'provider-failed');
  });

  it('server-side failures are logged with their detail, at most once a minute per reason; client mistakes are not', async () => {
    const lines: string[] = [];
    const results: VerifyResult[] = [
      { ok: false, reason: 'idp-unreachable', detail: 'http://idp/jwks answered HTTP 500' },
      { ok: false, reason: 'bad-signature' },
    ];
    let i = 0;
    const verifier: TokenVerifier = { verify: () => Promise.resolve(results[i % 2] as VerifyResult), close: () => undefined };
    const guard = createAuthGuard(SETTINGS, verifier, { clock, report: (line) => lines.push(line) });
    const req = fakeRequest('192.0.2.1', { Authorization: 'Bearer t' });
    for (i = 0; i < 10; i++) await guard(req, 'remote');
    assert.deepEqual(lines, ['control plane auth: idp-unreachable: http://idp/jwks answered HTTP 500']);
    clock.advance(60_000);
    await guard(req, 'remote');
    assert.equal(lines.length, 2);
  });
});
