import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ChannelConfig } from '../config/schema.js';
import { ntfyChannelSchema, pushoverChannelSchema } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';
import { loadOncall } from './load-oncall.js';

const root = mkdtempSync(join(tmpdir(), 'svc-oncall-contacts-'));
after(() => rmSync(root, { recursive: true, force: true }));
const ctx = { env: {}, home: join(root, 'home'), nowMs: Date.parse('2026-11-25T12:00:00Z') };
const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const ALICE_KEY = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

const push = (over: Record<string, unknown> = {}): ChannelConfig =>
  ntfyChannelSchema.parse({ id: 'push', type: 'ntfy', direction: 'outbound', server: 'https://ntfy.example.com', ...over });
const pushover = (over: Record<string, unknown> = {}): ChannelConfig =>
  pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound', token: TOKEN, ...over });

const file = (contacts: string, extraRoute = ''): string => `people:
  - id: alice
    contacts:
${contacts}
routes:
  - { match: { severity: [P1, P2, P3] }, notify: [person:alice${extraRoute}] }
`;

let n = 0;
function dirWith(text: string | null): string {
  const dir = join(root, `agent${++n}`);
  mkdirSync(dir, { recursive: true });
  if (text !== null) writeFileSync(join(dir, 'oncall.yaml'), text);
  return dir;
}
function problems(text: string, channels: ChannelConfig[]): string[] {
  try {
    loadOncall({ dir: dirWith(text), channels, sources: [] }, ctx);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message.split('\n').map((l) => l.replace(/^[^:]*\/(oncall\.yaml)/, '$1'));
  }
  assert.fail('expected a ConfigError');
}

describe('oncall.yaml contacts on channels that ring (§21.2, §21.3)', () => {
  it('takes an ntfy topic and a Pushover key', () => {
    const config = loadOncall({ dir: dirWith(file(`      push: alice-7f3k2q\n      pushover: ${ALICE_KEY}`)), channels: [push(), pushover()], sources: [] }, ctx);
    assert.deepEqual(config?.people[0]?.contacts, { push: 'alice-7f3k2q', pushover: ALICE_KEY });
  });

  it('refuses a contact that is no topic or no key, at its position', () => {
    assert.deepEqual(problems(file('      push: alice/phone\n      pushover: alice@example.com'), [push(), pushover()]), [
      'oncall.yaml:4:13: people.0.contacts.push: must be an ntfy topic: 1-64 letters, digits, "-" and "_" (channel push is type: ntfy)',
      'oncall.yaml:5:17: people.0.contacts.pushover: must be a Pushover user or group key: 30 letters and digits (channel pushover is type: pushover)',
    ]);
    assert.equal(problems(file(`      push: ${'t'.repeat(65)}`), [push()]).length, 1);
  });

  it('refuses a channel: target on a channel with no recipient of its own, and takes it once it has one', () => {
    const text = file('      push: alice-7f3k2q', ', channel:push');
    assert.deepEqual(problems(text, [push()]), [
      "oncall.yaml:6:65: routes.0.notify.1: channel:push sends to the channel's own recipient, and ntfy channel push has none: set `topic` on it in channels.yaml, or notify people here",
    ]);
    assert.ok(loadOncall({ dir: dirWith(text), channels: [push({ topic: 'ops-room' })], sources: [] }, ctx));
  });
});
