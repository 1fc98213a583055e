import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ChannelConfig } from '../config/schema.js';
import { ntfyChannelSchema, pushoverChannelSchema } from '../config/schema.js';
import { oncallFiles } from '../../test/support/oncall-files.js';
import { loadOncall } from './load-oncall.js';

const { root, dirWith, problems: problemsOf } = oncallFiles('svc-oncall-contacts-');
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

const problems = (text: string, channels: ChannelConfig[]): string[] => problemsOf(text, (dir) => loadOncall({ dir, channels, sources: [] }, ctx));

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
