import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { AckClaims } from './ack-token.js';
import { ACK_LINK_TTL_MS, ackTokenId, checkAckToken, mintAckToken } from './ack-token.js';

const KEY = 'k'.repeat(32);

describe('ack tokens', () => {
  const clock = fakeClock(Date.UTC(2026, 10, 25, 3, 0));
  const claims: AckClaims = { agentId: 'ops', pageId: 'p0123456789ab', person: 'alice', action: 'ack', expiresAtMs: clock.now() + ACK_LINK_TTL_MS };

  it('a minted token carries its claims back, with a version prefix and base64url parts only', () => {
    const token = mintAckToken(claims, KEY);
    assert.match(token, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(checkAckToken(token, KEY, clock.now()), { ok: true, claims, tokenId: ackTokenId(token) });
  });

  it('expires at its expiry instant (fake clock), not before', () => {
    const token = mintAckToken(claims, KEY);
    clock.advance(ACK_LINK_TTL_MS - 1);
    assert.equal(checkAckToken(token, KEY, clock.now()).ok, true);
    clock.advance(1);
    assert.deepEqual(checkAckToken(token, KEY, clock.now()), { ok: false, reason: 'expired' });
  });

  it('another key, a changed claim or a changed MAC is forged', () => {
    const token = mintAckToken(claims, KEY);
    const now = claims.expiresAtMs - 1000;
    assert.deepEqual(checkAckToken(token, 'x'.repeat(32), now), { ok: false, reason: 'forged' });
    const [v, , m] = token.split('.');
    const otherBody = Buffer.from(JSON.stringify(['ops', 'p0123456789ab', 'mallory', 'ack', claims.expiresAtMs])).toString('base64url');
    assert.deepEqual(checkAckToken(`${v}.${otherBody}.${m}`, KEY, now), { ok: false, reason: 'forged' });
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
    for (const bad of [`v2${token.slice(2)}`, token.split('.').slice(0, 2).join('.'), `${token}.x`, token.replace('.', '.+'), `v1.${'a'.repeat(2000)}.b`]) {
      assert.deepEqual(checkAckToken(bad, KEY, now), { ok: false, reason: 'malformed' }, bad.slice(0, 40));
    }
  });
});
