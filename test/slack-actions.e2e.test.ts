/**
 * Slack interactivity against the built daemon (contract §18.2): a local server speaks Slack's Web
 * API (for the agent's slack channel) and receives response_url posts. A signed button click from
 * alice's Slack user acknowledges the page (`via: slack`) before the 200 and the escalation stops; a
 * bad signature and a stale timestamp are 401 and change nothing; an unknown user is audited
 * `page.ack-refused` and told ephemerally; the page stays as it was.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FakeSlack } from './support/fake-slack.js';
import { startFakeSlack } from './support/fake-slack.js';
import { freePort, postAlert } from './support/http.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { oncallYaml } from './support/oncall-yaml.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-secret-token';
const ONCALL = oncallYaml('30s', '1h', '', 'slack-dm: U0ALICE');

describe('slack interactivity e2e', () => {
  const t = tempEnv();
  let slack: FakeSlack | null = null;
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    await slack?.close();
    t.cleanup();
  });

  it('a signed click by alice acks; a bad signature, a stale timestamp and an unknown user change nothing', async () => {
    const fake = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE' });
    slack = fake;
    const { base } = fake;
    const a = await scaffoldAgent(t, 'slack-actions');
    writeFileSync(join(a.dir, 'oncall.yaml'), ONCALL);
    appendFileSync(join(a.dir, 'channels.yaml'), ['  - id: slack-dm', '    type: slack', '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}', '    user: U0ONCALL', `    apiUrl: ${base}/api`, ''].join('\n'));
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    const port = await freePort();
    appendFileSync(sourcesFile, `  - id: slack-actions\n    type: slack\n    port: ${port}\n    signingSecret: ${secretRef}\n`);
    const env = { ...t.env, SLACK_BOT_TOKEN: TOKEN };
    const up = await runSvc(['up', '-d'], { env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);
    const lines = (): Array<Record<string, unknown>> => readJsonLines(join(a.dir, 'out', 'oncall-dm.jsonl'));
    const pageState = (id: string): string | undefined => queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', id)[0]?.state;

    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'slack-1')).status, 202);
    const first = await waitFor('step 1 paged alice', () => lines().find((l) => l.to === 'alice'));
    const pageId = String(first.pageId);

    const url = `http://127.0.0.1:${port}/webhooks/slack-actions`;
    const click = (user: string, actionId = 'svc_ack'): string => `payload=${encodeURIComponent(JSON.stringify({
      type: 'block_actions', user: { id: user, username: user.toLowerCase() }, response_url: `${base}/response`,
      actions: [{ type: 'button', action_id: actionId, block_id: 'page', value: pageId, action_ts: '1700000001.000200' }] }))}`;
    const sign = (body: string, ts: number, secret = a.secret): string => `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
    const send = (body: string, ts: number, signature: string): Promise<Response> => fetch(url, { method: 'POST', body,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Slack-Request-Timestamp': String(ts), 'X-Slack-Signature': signature } });
    const now = (): number => Math.floor(Date.now() / 1000);

    // Bad signature (another secret) and a stale timestamp: 401, the page untouched.
    const body = click('U0ALICE');
    const forged = await send(body, now(), sign(body, now(), 'another-secret-0123456789'));
    assert.equal(forged.status, 401);
    assert.equal(await forged.text(), 'bad or stale signature\n');
    const staleTs = now() - 301;
    assert.equal((await send(body, staleTs, sign(body, staleTs))).status, 401);
    assert.equal(pageState(pageId), 'triggered');

    // An unknown Slack user: 200 (Slack needs it), audited page.ack-refused, told ephemerally, page untouched.
    const strangerBody = click('U0STRANGER');
    assert.equal((await send(strangerBody, now(), sign(strangerBody, now()))).status, 200);
    const refused = auditRows(t.home).filter((r) => r.kind === 'page.ack-refused');
    assert.equal(refused.length, 1);
    assert.deepEqual(refused[0]?.data, { pageId, via: 'slack', user: 'U0STRANGER', action: 'ack', reason: 'unknown-user' });
    assert.equal(refused[0]?.actor, 'slack:U0STRANGER');
    const told = await waitFor('the ephemeral refusal', () => fake.responses[0]);
    assert.deepEqual(told, { response_type: 'ephemeral', replace_original: false,
      text: 'You are not on call for svc, so this button does nothing for you.' });
    assert.equal(pageState(pageId), 'triggered');
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.acknowledged').length, 0, 'none of the three acknowledged');

    // alice's signed click: stored before the 200. The same request sent again (a replay, inside its 300 s) does nothing.
    const clickTs = now();
    const ok = await send(body, clickTs, sign(body, clickTs));
    assert.equal(ok.status, 200);
    assert.equal(pageState(pageId), 'acknowledged', 'committed before the answer');
    assert.equal((await send(body, clickTs, sign(body, clickTs))).status, 200);
    const replayed = await waitFor('the replay logged', () => readJsonLines(join(t.home, 'logs', 'oncall-escalator.log'))
      .find((l) => l.event === 'slack-action.replayed'));
    assert.deepEqual([replayed.pageId, replayed.action], [pageId, 'svc_ack']);
    const acked = auditRows(t.home).filter((r) => r.kind === 'page.acknowledged');
    assert.deepEqual(acked.map((r) => [r.actor, r.data]), [['slack:U0ALICE', { pageId, by: 'alice', via: 'slack', step: 1, loop: 0 }]]);
    // Round 2 edits alice's Slack message (§18.1). Waited for before the resolve: a notice whose page has
    // resolved before it is sent is stale and cancelled (page.notice-cancelled), which is right, not a loss.
    await waitFor('the ack round delivered to Slack', () => auditRows(t.home).some((r) => r.kind === 'message.delivered' && r.data.deliveryId === `${pageId}.2.alice.slack-dm`));

    // The escalation stopped: resolve, and the resolution round follows step 1 and the ack directly (bob never
    // paged; round 2 told alice's Slack message of the ack, §18.1, and the file channel does not follow state).
    const resolveBody = click('U0ALICE', 'svc_resolve');
    assert.equal((await send(resolveBody, now(), sign(resolveBody, now()))).status, 200);
    assert.equal(pageState(pageId), 'resolved');
    await waitFor('alice told of the resolution', () => lines().some((l) => l.status === 'resolved'));
    assert.deepEqual(lines().map((l) => l.deliveryId), [first.deliveryId, `${pageId}.3.alice.oncall-dm`]);
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.escalated').length, 0);
  });
});
