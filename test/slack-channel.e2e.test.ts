/**
 * The daemon delivering through the slack channel to a local server that speaks Slack's Web API wire
 * format: a 429 with Retry-After is waited out; a delivery that keeps failing ends in the dead-letter
 * list with its reason; an auth error is not retried. The bot token never reaches a log or the store.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeSlack, SlackCall } from './support/fake-slack.js';
import { startFakeSlack } from './support/fake-slack.js';
import { freePort, postAlert } from './support/http.js';
import { queryStore } from './support/store.js';
import { readSecretFile, runSvc, setIngestPort, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-secret-token';

describe('slack channel through the daemon', () => {
  const t = tempEnv();
  const dir = join(t.work, 'agent');
  let slack: FakeSlack;
  let url = '';
  let secret = '';
  let fixture = '';
  let n = 0;
  const send = async (): Promise<string> => {
    const res = await postAlert(url, secret, fixture, `slack-${n++}`);
    assert.equal(res.status, 202);
    return String(res.json?.eventId);
  };

  before(async () => {
    mkdirSync(t.work, { recursive: true });
    assert.equal((await runSvc(['init', '--template', 'alert-escalation', '--provider', 'rules', dir], { env: t.env, cwd: t.work })).code, 0);
    const port = await freePort();
    setIngestPort(dir, port);
    url = `http://127.0.0.1:${port}/webhooks/alertmanager`;
    slack = await startFakeSlack(TOKEN);
    const { apiUrl } = slack;
    writeFileSync(join(dir, 'channels.yaml'), [
      'channels:',
      '  - id: oncall-slack',
      '    type: slack',
      '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}',
      '    user: ${env:SLACK_ONCALL_USER}',
      `    apiUrl: ${apiUrl}`,
      '    maxAttempts: 3',
      '    timeoutMs: 2000',
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'agent.yaml'), readFileSync(join(dir, 'agent.yaml'), 'utf8') +
      'dispatch:\n  initialBackoffMs: 20\n  maxBackoffMs: 1500\nstore:\n  deliveryWindow: 0s\n');
    secret = readSecretFile(t.home, 'alert-escalation/webhook-hmac');
    fixture = readFileSync(join(dir, 'fixtures/mock-alert.json'), 'utf8');
    const env = { ...t.env, SLACK_BOT_TOKEN: TOKEN, SLACK_ONCALL_USER: 'U0ONCALL' };
    const up = await runSvc(['up', '-d'], { env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await runSvc(['down'], { env: t.env, cwd: dir });
    await slack.close();
    t.cleanup();
  });

  it('waits out a 429 with Retry-After, then delivers the DM', async () => {
    slack.postReplies.push({ status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } });
    const eventId = await send();
    const row = await waitFor('message.delivered', () => queryStore<{ data: string }>(t.home,
      "SELECT data FROM audit WHERE kind = 'message.delivered' AND json_extract(data, '$.eventId') = ?", eventId)[0]);
    const data = JSON.parse(row.data) as Record<string, unknown>;
    assert.equal(data.tries, 2, 'the second try went out');
    assert.equal(data.attempt, 1, 'within the first claim of the event');
    assert.equal(data.channelId, 'oncall-slack');
    const open = slack.calls.find((c) => c.method === 'conversations.open');
    assert.deepEqual(open?.body, { users: 'U0ONCALL' });
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    assert.equal(posts.length, 2);
    const [first, second] = posts as [SlackCall, SlackCall];
    assert.equal(second.auth, `Bearer ${TOKEN}`);
    assert.match(second.contentType ?? '', /^application\/json/);
    assert.equal(second.body.channel, 'D0ONCALL');
    assert.match(String(second.body.text), /^\[P1\] FIRING: HighErrorRate/);
    assert.deepEqual(first.body, second.body);
  });

  it('a delivery that keeps failing lands in the dead-letter list', async () => {
    for (let i = 0; i < 3; i += 1) slack.postReplies.push({ status: 500, body: { ok: false, error: 'internal_error' } });
    const eventId = await send();
    const letter = await waitFor('dead letter', () => queryStore<{ reason: string; attempts: number; error: string }>(t.home,
      'SELECT reason, attempts, error FROM dead_letters WHERE event_id = ?', eventId)[0]);
    assert.equal(letter.reason, 'delivery-failed');
    assert.equal(letter.attempts, 3);
    assert.match(letter.error, /oncall-slack/);
    assert.equal(queryStore<{ status: string }>(t.home, 'SELECT status FROM events WHERE id = ?', eventId)[0]?.status, 'dead-lettered');
    assert.equal(queryStore(t.home, "SELECT seq FROM audit WHERE kind = 'event.dead-lettered' AND json_extract(data, '$.eventId') = ?", eventId).length, 1);
  });

  it('an auth error is not retried: delivery-rejected after one attempt', async () => {
    slack.postReplies.push({ status: 200, body: { ok: false, error: 'invalid_auth' } });
    const eventId = await send();
    const letter = await waitFor('dead letter', () => queryStore<{ reason: string; attempts: number }>(t.home,
      'SELECT reason, attempts FROM dead_letters WHERE event_id = ?', eventId)[0]);
    assert.equal(letter.reason, 'delivery-rejected');
    assert.equal(letter.attempts, 1);
  });

  it('the bot token appears in no log and no stored row', () => {
    const log = readFileSync(join(t.home, 'logs', 'oncall-escalator.log'), 'utf8');
    assert.ok(log.includes('dispatch.dead-lettered'));
    assert.ok(!log.includes(TOKEN));
    const rows = queryStore<{ data: string }>(t.home, 'SELECT data FROM audit');
    assert.ok(!JSON.stringify(rows).includes(TOKEN));
    const letters = queryStore(t.home, 'SELECT * FROM dead_letters');
    assert.ok(!JSON.stringify(letters).includes(TOKEN));
  });
});
