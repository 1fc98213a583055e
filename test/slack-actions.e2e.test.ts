/**
 * Slack interactivity against the built daemon (contract §18.2): a local server speaks Slack's Web
 * API (for the agent's slack channels) and receives response_url posts. A signed button click from
 * alice's Slack user acknowledges the page (`via: slack`) before the 200 and the escalation stops; a
 * bad signature and a stale timestamp are 401 and change nothing; an unknown user is audited
 * `page.ack-refused` and told ephemerally; the page stays as it was. A page whose policy runs out
 * tells its `onExhausted` team room — a slack channel with a `conversation` (§24.2) — in that shared
 * channel, where a stranger's click is refused and alice's acks, the room's message edited in place.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FakeSlack, SlackCall } from './support/fake-slack.js';
import { actionIds, startFakeSlack } from './support/fake-slack.js';
import { freePort, postAlert } from './support/http.js';
import { auditRows, queryStore, readJsonLines } from './support/store.js';
import type { ScaffoldedAgent } from './support/svc.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { alertInGroup, oncallYaml } from './support/oncall-yaml.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-secret-token';
const ROOM = 'C0ROOM12345';
/** Besides `default`, alerts labelled room=yes page bob for a second, then the team room (§24.2). */
const ONCALL = oncallYaml('30s', '1h', '', 'slack-dm: U0ALICE')
  .replace('policies:\n', 'policies:\n  - id: room\n    steps:\n      - { notify: [person:bob], after: 1s }\n    repeat: 0\n'
    + '    onExhausted: [channel:slack-room]\n')
  .replace('routes:\n', 'routes:\n  - { match: { severity: [P1], labels: { room: "yes" } }, policy: room }\n');

describe('slack interactivity e2e', () => {
  const t = tempEnv();
  let slack: FakeSlack | null = null;
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    await slack?.close();
    t.cleanup();
  });

  let fake: FakeSlack;
  let a: ScaffoldedAgent;
  let env: NodeJS.ProcessEnv;
  let port = 0;
  const lines = (): Array<Record<string, unknown>> => readJsonLines(join(a.dir, 'out', 'oncall-dm.jsonl'));
  const pageState = (id: string): string | undefined => queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', id)[0]?.state;
  const click = (user: string, pageId: string, actionId = 'svc_ack'): string => `payload=${encodeURIComponent(JSON.stringify({
    type: 'block_actions', user: { id: user, username: user.toLowerCase() }, response_url: `${fake.base}/response`,
    actions: [{ type: 'button', action_id: actionId, block_id: 'page', value: pageId, action_ts: '1700000001.000200' }] }))}`;
  const sign = (body: string, ts: number, secret = a.secret): string => `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
  const send = (body: string, ts: number, signature: string): Promise<Response> => fetch(`http://127.0.0.1:${port}/webhooks/slack-actions`,
    { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Slack-Request-Timestamp': String(ts),
      'X-Slack-Signature': signature } });
  const now = (): number => Math.floor(Date.now() / 1000);

  before(async () => {
    fake = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE', memberOf: [ROOM] });
    slack = fake;
    a = await scaffoldAgent(t, 'slack-actions');
    writeFileSync(join(a.dir, 'oncall.yaml'), ONCALL);
    // Two Slack channels of one app: direct messages, and the team room (no user: a conversation).
    appendFileSync(join(a.dir, 'channels.yaml'), ['  - id: slack-dm', '    type: slack', '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}', '    user: U0ONCALL', `    apiUrl: ${fake.apiUrl}`,
      '  - id: slack-room', '    type: slack', '    direction: outbound', '    token: ${env:SLACK_BOT_TOKEN}', `    conversation: ${ROOM}`,
      `    apiUrl: ${fake.apiUrl}`, ''].join('\n'));
    const sourcesFile = join(a.dir, 'event-sources.yaml');
    const secretRef = /secret: (\$\{secret:[^}]+\})/.exec(readFileSync(sourcesFile, 'utf8'))?.[1];
    assert.ok(secretRef !== undefined);
    port = await freePort();
    appendFileSync(sourcesFile, `  - id: slack-actions\n    type: slack\n    port: ${port}\n    signingSecret: ${secretRef}\n`);
    env = { ...t.env, SLACK_BOT_TOKEN: TOKEN };
    const up = await runSvc(['up', '-d'], { env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);
  });

  it('a signed click by alice acks; a bad signature, a stale timestamp and an unknown user change nothing', async () => {
    assert.equal((await postAlert(a.url, a.secret, a.fixture, 'slack-1')).status, 202);
    const first = await waitFor('step 1 paged alice', () => lines().find((l) => l.to === 'alice'));
    const pageId = String(first.pageId);
    const body = click('U0ALICE', pageId);

    // Bad signature (another secret) and a stale timestamp: 401, the page untouched.
    const forged = await send(body, now(), sign(body, now(), 'another-secret-0123456789'));
    assert.equal(forged.status, 401);
    assert.equal(await forged.text(), 'bad or stale signature\n');
    const staleTs = now() - 301;
    assert.equal((await send(body, staleTs, sign(body, staleTs))).status, 401);
    assert.equal(pageState(pageId), 'triggered');

    // An unknown Slack user: 200 (Slack needs it), audited page.ack-refused, told ephemerally, page untouched.
    const strangerBody = click('U0STRANGER', pageId);
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
    // paged; round 2 told alice of the ack on both her contacts, §24.1 — her Slack message edited in place, §18.1).
    const resolveBody = click('U0ALICE', pageId, 'svc_resolve');
    assert.equal((await send(resolveBody, now(), sign(resolveBody, now()))).status, 200);
    assert.equal(pageState(pageId), 'resolved');
    await waitFor('alice told of the resolution', () => lines().some((l) => l.status === 'resolved'));
    assert.deepEqual(lines().map((l) => l.deliveryId), [first.deliveryId, `${pageId}.2.alice.oncall-dm`, `${pageId}.3.alice.oncall-dm`]);
    assert.equal(auditRows(t.home).filter((r) => r.kind === 'page.escalated').length, 0);
  });

  it('onExhausted: channel:slack-room posts into the shared conversation; a stranger\'s click there is refused, alice\'s acks and the message is edited in place', async () => {
    const roomAlert = JSON.parse(alertInGroup(a.fixture, 'RoomGroup')) as { commonLabels: Record<string, string>; alerts: Array<{ labels: Record<string, string> }> };
    roomAlert.commonLabels.room = 'yes';
    for (const alert of roomAlert.alerts) alert.labels.room = 'yes';
    const openedBefore = auditRows(t.home).filter((r) => r.kind === 'page.opened').length;
    assert.equal((await postAlert(a.url, a.secret, JSON.stringify(roomAlert), 'slack-room-1')).status, 202);
    const opened = await waitFor('the room page opened', () => auditRows(t.home).filter((r) => r.kind === 'page.opened')[openedBefore]);
    const pageId = String(opened.data.pageId);
    assert.equal(opened.data.policy, 'room');
    const inRoom = (): SlackCall[] => fake.calls.filter((c) => c.body.channel === ROOM);

    // Bob's one step (a second) runs out: the team room is told once, in the conversation itself.
    const post = await waitFor('the exhausted page posted into the room', () => inRoom()[0], 30_000);
    assert.equal(post.method, 'chat.postMessage');
    assert.equal(post.auth, `Bearer ${TOKEN}`);
    assert.equal(post.body.thread_ts, undefined);
    assert.deepEqual(actionIds(post.body), ['svc_ack', 'svc_resolve', 'svc_escalate']);
    assert.ok(!fake.calls.some((c) => c.method === 'conversations.open' && c.body.users !== 'U0ALICE'), 'no direct message opened for the room');
    const postedTs = String(post.reply.body.ts);
    const delivered = await waitFor('the room delivery recorded', () => auditRows(t.home).find((r) => r.kind === 'message.delivered'
      && r.data.deliveryId === `${pageId}.2.-.slack-room`));
    assert.deepEqual([delivered.data.person, delivered.data.channel, delivered.data.ts], ['-', ROOM, postedTs]);

    // Anyone in the room can press: a stranger is refused (audited on the page), alice — a person with a Slack contact — acks.
    const stranger = click('U0STRANGER', pageId);
    assert.equal((await send(stranger, now(), sign(stranger, now()))).status, 200);
    assert.deepEqual(auditRows(t.home).filter((r) => r.kind === 'page.ack-refused' && r.data.pageId === pageId).map((r) => r.data),
      [{ pageId, via: 'slack', user: 'U0STRANGER', action: 'ack', reason: 'unknown-user' }]);
    assert.equal(pageState(pageId), 'triggered');
    const alice = click('U0ALICE', pageId);
    assert.equal((await send(alice, now(), sign(alice, now()))).status, 200);
    assert.equal(pageState(pageId), 'acknowledged');
    assert.deepEqual(auditRows(t.home).filter((r) => r.kind === 'page.acknowledged' && r.data.pageId === pageId).map((r) => [r.actor, r.data.by]),
      [['slack:U0ALICE', 'alice']]);

    // The room's message is edited in place (no Acknowledge left) and the ack told in its thread.
    const [edit, reply] = await waitFor('the ack edited in and told in the thread', () => (inRoom().length >= 3 ? inRoom().slice(1) : undefined));
    assert.equal(edit?.method, 'chat.update');
    assert.equal(edit?.body.ts, postedTs);
    assert.deepEqual(actionIds(edit?.body ?? {}), ['svc_resolve'], 'once acknowledged only Resolve (§24.1)');
    assert.equal(reply?.method, 'chat.postMessage');
    assert.equal(reply?.body.thread_ts, postedTs);
    assert.equal(reply?.body.text, edit?.body.text);
    assert.equal(inRoom().filter((c) => c.method === 'chat.postMessage' && c.body.thread_ts === undefined).length, 1, 'one message in the room, not two');
  });
});
