import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { AckClaims } from './ack-token.js';
import { createHmac } from 'node:crypto';
import { ACK_LINK_TTL_MS, ackTokenId, checkAckToken, mintAckToken } from './ack-token.js';

const KEY = 'k'.repeat(32);

describe('ack tokens', () => {
  const clock = fakeClock(Date.UTC(2026, 10, 25, 3, 0));
  const claims: AckClaims = { agentId: 'ops', pageId: 'p0123456789ab', person: 'alice', action: 'ack', expiresAtMs: clock.now() + ACK_LINK_TTL_MS,
    incarnation: 0 };

  it('a minted token carries its claims back, with a version prefix and base64url parts only', () => {
    const token = mintAckToken(claims, KEY);
    assert.match(token, /^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(checkAckToken(token, KEY, clock.now()), { ok: true, claims, tokenId: ackTokenId(token) });
  });

  it('expires at its expiry instant (fake clock), not before', () => {
    const token = mintAckToken(claims, KEY);
    clock.advance(ACK_LINK_TTL_MS - 1);
    assert.equal(checkAckToken(token, KEY, clock.now()).ok, true);
    clock.advance(1);
    assert.deepEqual(checkAckToken(token, KEY, clock.now()), { ok: false, reason: 'expired', claims, tokenId: ackTokenId(token) },
      'its MAC held: the claims are svc\'s own, for the refusal\'s audit row');
  });

  it('another key, a changed claim or a changed MAC is forged', () => {
    const token = mintAckToken(claims, KEY);
    const now = claims.expiresAtMs - 1000;
    assert.deepEqual(checkAckToken(token, 'x'.repeat(32), now), { ok: false, reason: 'forged' });
    const [v, , m] = token.split('.');
    const otherBody = Buffer.from(JSON.stringify(['ops', 'p0123456789ab', 'mallory', 'ack', claims.expiresAtMs, 0])).toString('base64url');
    assert.deepEqual(checkAckToken(`${v}.${otherBody}.${m}`, KEY, now), { ok: false, reason: 'forged' });
    const laterOpening = Buffer.from(JSON.stringify(['ops', 'p0123456789ab', 'alice', 'ack', claims.expiresAtMs, 1])).toString('base64url');
    assert.deepEqual(checkAckToken(`${v}.${laterOpening}.${m}`, KEY, now), { ok: false, reason: 'forged' }, 'the incarnation is under the MAC');
    const flipped = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.deepEqual(checkAckToken(flipped, KEY, now), { ok: false, reason: 'forged' });
  });

  it('a MAC spelt another way that decodes to the same bytes is refused: one token, one spelling, one id', () => {
    const now = claims.expiresAtMs - 1000;
    // 32 bytes are 43 base64url characters; the last one's two low bits are unused, so A, B, C and D
    // (0, 1, 2, 3 in those bits) can spell the same MAC. Find a token whose MAC ends in one of them.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let checked = 0;
    for (let i = 0; i < 64; i++) {
      const token = mintAckToken({ ...claims, expiresAtMs: claims.expiresAtMs + i }, KEY);
      const last = alphabet.indexOf(token.slice(-1));
      const twin = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
      assert.equal(Buffer.from(twin.split('.')[2] ?? '', 'base64url').equals(Buffer.from(token.split('.')[2] ?? '', 'base64url')), true);
      assert.equal(checkAckToken(token, KEY, now).ok, true);
      assert.deepEqual(checkAckToken(twin, KEY, now), { ok: false, reason: 'forged' });
      checked += 1;
    }
    assert.equal(checked, 64);
  });

  it('another version, shape or alphabet is malformed, and so is an over-long token', () => {
    const token = mintAckToken(claims, KEY);
    const now = claims.expiresAtMs - 1000;
    for (const bad of [`v3${token.slice(2)}`, token.split('.').slice(0, 2).join('.'), `${token}.x`, token.replace('.', '.+'), `v2.${'a'.repeat(2000)}.b`]) {
      assert.deepEqual(checkAckToken(bad, KEY, now), { ok: false, reason: 'malformed' }, bad.slice(0, 40));
    }
  });

  it('a v1 token (before incarnations) is read as one of the page\'s first opening; a v1 body with six claims, or a v2 with five, is malformed', () => {
    const now = claims.expiresAtMs - 1000;
    const v1 = (fields: unknown[]): string => {
      const body = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `v1.${body}.${createHmac('sha256', KEY).update(`v1.${body}`).digest('base64url')}`;
    };
    const old = v1(['ops', 'p0123456789ab', 'alice', 'ack', claims.expiresAtMs]);
    assert.deepEqual(checkAckToken(old, KEY, now), { ok: true, claims: { ...claims, incarnation: 0 }, tokenId: ackTokenId(old) });
    assert.deepEqual(checkAckToken(v1(['ops', 'p0123456789ab', 'alice', 'ack', claims.expiresAtMs, 3]), KEY, now), { ok: false, reason: 'malformed' });
    const body = Buffer.from(JSON.stringify(['ops', 'p0123456789ab', 'alice', 'ack', claims.expiresAtMs])).toString('base64url');
    const short = `v2.${body}.${createHmac('sha256', KEY).update(`v2.${body}`).digest('base64url')}`;
    assert.deepEqual(checkAckToken(short, KEY, now), { ok: false, reason: 'malformed' });
    const reopened = mintAckToken({ ...claims, incarnation: 2 }, KEY);
    assert.equal((checkAckToken(reopened, KEY, now) as { claims: AckClaims }).claims.incarnation, 2);
  });
});
