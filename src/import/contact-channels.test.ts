import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONTACT_KINDS } from './import-result.js';
import { DEFAULT_CONTACT_CHANNELS, e164, parseChannelMap } from './contact-channels.js';
import { IdAllocator, slug } from './slug-ids.js';

describe('contact channels and ids', () => {
  it('--channels renames kinds over the defaults and refuses what would not load', () => {
    assert.deepEqual(parseChannelMap(undefined), { ok: true, value: DEFAULT_CONTACT_CHANNELS });
    const map = parseChannelMap('email=work-mail, sms=twilio-sms');
    assert.ok(map.ok);
    assert.deepEqual([map.value.email, map.value.sms, map.value.voice], ['work-mail', 'twilio-sms', 'phone']);
    for (const [text, error] of [['fax=f', /unknown contact kind "fax"/], ['email=Mail', /channel id must match/], ['email', /kind=channel pairs/],
      ['email=a,email=b', /email is given twice/], ['email=sms', /email and sms would share channel sms/]] as const) {
      const parsed = parseChannelMap(text);
      assert.ok(!parsed.ok && error.test(parsed.error), text);
    }
  });

  it('docs/import.md lists every kind with its default channel', () => {
    const docs = readFileSync(new URL('../../docs/import.md', import.meta.url), 'utf8');
    const rows = [...docs.matchAll(/^\| `([a-z]+)` \| `([a-z-]+)` \|/gm)].map((m) => [m[1], m[2]]);
    assert.deepEqual(rows, CONTACT_KINDS.map((kind) => [kind, DEFAULT_CONTACT_CHANNELS[kind]]));
  });

  it('writes phone numbers as E.164 from each vendor\'s form', () => {
    assert.equal(e164(null, '49-15112345678'), '+4915112345678', 'Opsgenie');
    assert.equal(e164(49, '015112345678'), '+4915112345678', 'PagerDuty: country code and national number');
    assert.equal(e164(1, '(212) 555-0123'), '+12125550123');
    assert.equal(e164(null, '+1 212 555 0123'), '+12125550123');
    assert.equal(e164(null, 'my phone'), null);
  });

  it('makes readable, unique, valid ids', () => {
    assert.equal(slug('Platform Primary', 'x'), 'platform-primary');
    assert.equal(slug('Ärger & Ölen (EU)', 'x'), 'arger-olen-eu');
    assert.equal(slug('——', 'schedule'), 'schedule');
    const ids = new IdAllocator();
    assert.deepEqual([ids.next('alice', 'p'), ids.next('Alice', 'p'), ids.next('alice', 'p'), ids.next('a'.repeat(80), 'p'), ids.next('a'.repeat(80), 'p')],
      ['alice', 'alice-2', 'alice-3', 'a'.repeat(64), `${'a'.repeat(62)}-2`]);
  });
});
