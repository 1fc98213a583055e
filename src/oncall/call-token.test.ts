import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mintCallToken, personOfDelivery, readCallToken } from './call-token.js';

describe('call tokens (§21.4): what a call is about, in its URL', () => {
  it('round-trips, URL-safe, the title cut to 120 characters', () => {
    const claims = { deliveryId: 'p0a1b2c3d4e5f.3.alice.phone', pageId: 'p0a1b2c3d4e5f', severity: 'P1' as const, title: `<b>&"x"</b> ${'y'.repeat(200)}`, note: null };
    const token = mintCallToken(claims);
    assert.match(token, /^c1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(readCallToken(token), { ...claims, title: claims.title.slice(0, 120) });
    const status = { ...claims, title: 'Disk full', note: 'Page p0a1b2c3d4e5f was resolved by bob.' };
    assert.deepEqual(readCallToken(mintCallToken(status)), status);
    assert.deepEqual(readCallToken(mintCallToken({ ...status, pageId: null })), { ...status, pageId: null });
    const spoken = { ...claims, title: 'Disk full', summary: `Disk 97% full ${'z'.repeat(300)}` };
    assert.deepEqual(readCallToken(mintCallToken(spoken)), { ...spoken, summary: spoken.summary.slice(0, 160) }, 'the summary cut to 160');
  });

  it('anything else is not a token: another version, not base64url, not the shape, a page id out of pattern', () => {
    const enc = (v: unknown): string => `c1.${Buffer.from(JSON.stringify(v)).toString('base64url')}`;
    for (const token of ['c2.W10', 'c1.***', 'c1.', enc([]), enc(['d', 'p0a1b2c3d4e5f', 'P4', 't', null]), enc(['d', 'P!', 'P1', 't', null]),
      enc(['', '', 'P1', 't', null]), enc(['d', '', 'P1', 7, null]), enc(['d', '', 'P1', 't', null, 7]), enc(['d', '', 'P1', 't', null, '']),
      enc(['d', '', 'P1', 't', null, 's', 'x']), `c1.${'A'.repeat(3000)}`]) {
      assert.equal(readCallToken(token), null, token);
    }
  });

  it('names the person of a page\'s deliveryId, dots in the id and the channel included', () => {
    assert.equal(personOfDelivery('p0a1b2c3d4e5f.12.alice.phone', 'p0a1b2c3d4e5f', 'phone'), 'alice');
    assert.equal(personOfDelivery('p0a1b2c3d4e5f.2.a.b.c.tw.voice', 'p0a1b2c3d4e5f', 'tw.voice'), 'a.b.c');
    assert.equal(personOfDelivery('p0a1b2c3d4e5f.2.-.phone', 'p0a1b2c3d4e5f', 'phone'), null, 'a channel target is nobody');
    assert.equal(personOfDelivery('p0a1b2c3d4e5f.2.alice.phone', 'p0a1b2c3d4e5g', 'phone'), null);
    assert.equal(personOfDelivery('p0a1b2c3d4e5f.x.alice.phone', 'p0a1b2c3d4e5f', 'phone'), null);
  });
});
