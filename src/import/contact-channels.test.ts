import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadAgentDir } from '../config/load-agent.js';
import { writeSecret } from '../config/secrets.js';
import { CONTACT_KINDS } from './import-result.js';
import { channelSnippet, DEFAULT_CONTACT_CHANNELS, e164, parseChannelMap } from './contact-channels.js';
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

  it('each kind\'s channels.yaml entry loads as svc up loads it, once its placeholders are filled in', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-import-channels-'));
    try {
      const home = join(root, 'home');
      for (const path of ['hmac', 'smtp/password', 'slack/bot-token']) writeSecret(home, path, 'placeholder-secret-1');
      writeSecret(home, 'twilio/auth-token', 'f'.repeat(32));
      writeSecret(home, 'telegram/bot-token', '123456:ABCdefGhIJKlmNoPQRstuVWXyz012345678');
      const dir = join(root, 'agent');
      mkdirSync(join(dir, 'skills'), { recursive: true });
      writeFileSync(join(dir, 'agent.yaml'), 'id: imported\nprovider: rules\nskills: [skills/triage.md]\n');
      writeFileSync(join(dir, 'skills', 'triage.md'), '# Triage\n');
      writeFileSync(join(dir, 'event-sources.yaml'), ['sources:', '  - { id: am, type: webhook, port: 8787, secret: "${secret:hmac}" }',
        '  - { id: twilio-phone, type: twilio, port: 8792, publicUrl: "https://svc.example.com/twilio-phone", channel: phone }', ''].join('\n'));
      writeFileSync(join(dir, 'oncall.yaml'), 'people: []\n');  // the channels serve people's contacts; only its being there is read here
      // Exactly the report's lines; only the `AC…` placeholder is filled, as a person would.
      const lines = CONTACT_KINDS.map((kind) => `  ${channelSnippet(kind, DEFAULT_CONTACT_CHANNELS[kind])}`.replace('AC…', `AC${'0123456789abcdef'.repeat(2)}`));
      writeFileSync(join(dir, 'channels.yaml'), `channels:\n${lines.join('\n')}\n`);
      const loaded = loadAgentDir(dir, { env: { PATH: process.env.PATH }, home });
      assert.deepEqual(loaded.channels.map((c) => [c.id, c.type, c.direction]), CONTACT_KINDS.map((kind) => [DEFAULT_CONTACT_CHANNELS[kind],
        { email: 'email', sms: 'twilio', voice: 'twilio', push: 'ntfy', slack: 'slack', telegram: 'telegram' }[kind], 'outbound']));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
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
