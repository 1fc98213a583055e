/** channels.yaml entries of the channels that ring a phone (contract §21.2, §21.3) as `svc check` and `svc up` read them. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../core/errors.js';
import { loadAgentDir } from './load-agent.js';

const root = mkdtempSync(join(tmpdir(), 'svc-ring-'));
after(() => rmSync(root, { recursive: true, force: true }));
const APP_TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const NTFY_TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';
const ctx = { env: { PUSHOVER_TOKEN: APP_TOKEN, NTFY_TOKEN, SHORT: 'tooShortToBeAToken' }, home: join(root, 'home') };

let n = 0;
function agentDir(channels: string[]): string {
  const dir = join(root, `agent${++n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'agent.yaml'), 'id: a\nprovider: rules\n');
  writeFileSync(join(dir, 'event-sources.yaml'), 'sources:\n  - { id: am, type: webhook, port: 8787, bearerToken: "${env:PUSHOVER_TOKEN}" }\n');
  writeFileSync(join(dir, 'channels.yaml'), `channels:\n${channels.join('\n')}\n`);
  return dir;
}
function errorOf(dir: string): string {
  try {
    loadAgentDir(dir, ctx);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('expected a ConfigError');
}

describe('ntfy and pushover channels in channels.yaml', () => {
  it('load with their defaults: Pushover repeats every 60 s for an hour, its API at api.pushover.net/1', () => {
    const dir = agentDir([
      '  - { id: push, type: ntfy, direction: outbound, server: "https://ntfy.example.com", token: "${env:NTFY_TOKEN}" }',
      '  - { id: po, type: pushover, direction: outbound, token: "${env:PUSHOVER_TOKEN}" }',
    ]);
    // Without oncall.yaml every message names no person: a channel with no topic or user could send none.
    assert.deepEqual(errorOf(dir).split('\n').map((line) => line.replace(/^.*channels\.yaml:/, '')), [
      "2:5: channels.0: channel push (type: ntfy) has no `topic`: it sends only to people's contacts in oncall.yaml, and this agent has no oncall.yaml: every message goes to the channel's own recipient, so set one",
      "3:5: channels.1: channel po (type: pushover) has no `user`: it sends only to people's contacts in oncall.yaml, and this agent has no oncall.yaml: every message goes to the channel's own recipient, so set one",
    ]);
    writeFileSync(join(dir, 'oncall.yaml'), '');
    assert.deepEqual(loadAgentDir(dir, ctx).channels, [
      { id: 'push', type: 'ntfy', direction: 'outbound', server: 'https://ntfy.example.com', token: NTFY_TOKEN, timeoutMs: 10_000 },
      { id: 'po', type: 'pushover', direction: 'outbound', token: APP_TOKEN, apiUrl: 'https://api.pushover.net/1', retry: 60, expire: 3600, timeoutMs: 10_000 },
    ]);
  });

  it('refuses what Pushover and ntfy would refuse, each at its position, and literal tokens unquoted', () => {
    const dir = agentDir([
      '  - id: push',
      '    type: ntfy',
      '    direction: outbound',
      '    server: ntfy.example.com',
      '    token: tk_literal0000000000000000000000',
      '    topic: ops/room',
      '  - id: po',
      '    type: pushover',
      '    direction: outbound',
      `    token: ${APP_TOKEN}`,
      '    retry: 20',
      '    expire: 10801',
      '    user: nobody@example.com',
      '  - { id: po2, type: pushover, direction: outbound, token: "${env:SHORT}", retry: 600, expire: 300 }',
    ]);
    const c = join(dir, 'channels.yaml');
    const msg = errorOf(dir);
    assert.equal(msg, [
      `${c}:5:13: channels.0.server: must be an http(s) URL, e.g. https://ntfy.example.com`,
      `${c}:6:12: channels.0.token: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${c}:7:12: channels.0.topic: must be an ntfy topic: 1-64 letters, digits, "-" and "_"`,
      `${c}:11:12: channels.1.token: must be a \${env:…}, \${file:…} or \${secret:…} reference, not a literal secret`,
      `${c}:12:12: channels.1.retry: must be at least 30 seconds`,
      `${c}:13:13: channels.1.expire: must be at most 10800 seconds`,
      `${c}:14:11: channels.1.user: must be a Pushover user or group key (30 letters and digits)`,
      `${c}:15:60: channels.2.token: must be a Pushover application token (30 letters and digits) (from a \${env:…} reference; the value is not shown)`,
      `${c}:15:83: channels.2.retry: is longer than expire (300 s): the message would never repeat`,
    ].join('\n'));
    for (const secret of [APP_TOKEN, 'tk_literal', 'tooShortToBeAToken']) assert.ok(!msg.includes(secret), `${secret} quoted`);
  });
});
