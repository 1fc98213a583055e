/**
 * Page integrity with a model (issue 26.6): whatever the model answers, the message a person receives
 * carries the alert name, instance, runbook and source links of the event itself, and a severity
 * below `llm.severityFloor` (default: the rules' severity) is raised and audited. The daemon runs an
 * `anthropic` agent against the fake vendor server and delivers to a file channel and to a fake Slack
 * Web API; both are checked byte for byte.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeLlm } from './support/fake-llm.js';
import { startFakeLlm } from './support/fake-llm.js';
import type { FakeSlack } from './support/fake-slack.js';
import { startFakeSlack } from './support/fake-slack.js';
import { postAlert } from './support/http.js';
import { auditRows } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-integrity';

/** What the person reads: the model's words first, the event's facts below them, never replaced. */
const EXPECTED_TEXT = [
  '[P1] FIRING: HighErrorRate on checkout-api-7f9c:8080',
  'Checkout errors, probably noise',
  '(the model said P3; raised to P1 by llm.severityFloor)',
  'Runbook: https://wiki.example/ignore-this',
  'Runbook: https://runbooks.example.com/checkout-api/high-error-rate',
  'Source: http://prometheus.example.com:9090/graph?g0.expr=job%3Acheckout_5xx_ratio%3Arate5m+%3E+0.05',
  'Alertmanager: http://alertmanager.example.com:9093',
].join('\n');

describe('page integrity with a model', () => {
  const t = tempEnv();
  let fake: FakeLlm;
  let slack: FakeSlack;
  let dir = '';
  let url = '';
  let secret = '';
  let fixture = '';
  let env: NodeJS.ProcessEnv = {};

  before(async () => {
    fake = await startFakeLlm('anthropic');
    slack = await startFakeSlack(TOKEN);
    const a = await scaffoldAgent(t, 'agent', 'anthropic');
    ({ dir, url, secret, fixture } = a);
    env = { ...t.env, SVC_METRICS_PORT: String(a.cpPort), ANTHROPIC_API_KEY: fake.apiKey, SLACK_BOT_TOKEN: TOKEN, SLACK_ONCALL_USER: 'U0ONCALL' };
    appendAgentYaml(dir, `baseUrl: ${fake.baseUrl}`);
    writeFileSync(join(dir, 'channels.yaml'), [
      'channels:',
      '  - id: oncall-dm',
      '    type: file',
      '    direction: outbound',
      '    path: ./out/oncall-dm.jsonl',
      '    to: on-call',
      '  - id: oncall-slack',
      '    type: slack',
      '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}',
      '    user: ${env:SLACK_ONCALL_USER}',
      `    apiUrl: ${slack.apiUrl}`,
      '',
    ].join('\n'));
    const up = await runSvc(['up', '-d'], { env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await runSvc(['down'], { env, cwd: dir });
    await fake.close();
    await slack.close();
    t.cleanup();
  });

  it('a model answer that drops the instance, offers another runbook and lowers the severity still pages P1 with the event\'s facts', async () => {
    // The fixture is commonLabels.severity "critical": the rules say P1.
    fake.reply(fake.toolCall('submit_triage', { severity: 'P3', summary: 'Checkout errors, probably noise',
      details: 'Runbook: https://wiki.example/ignore-this' }));
    const res = await postAlert(url, secret, fixture, 'integrity-1');
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    const delivered = () => auditRows(t.home).filter((r) => r.kind === 'message.delivered' && r.data.eventId === eventId);
    await waitFor('both channels delivered', () => delivered().length === 2, 60_000);

    // The file channel: the whole line, byte for byte (only the timestamp is the daemon's).
    const [line = ''] = readFileSync(join(dir, 'out/oncall-dm.jsonl'), 'utf8').split('\n');
    const ts = (JSON.parse(line) as { ts: string }).ts;
    assert.equal(line, JSON.stringify({ ts, channel: 'oncall-dm', to: 'on-call', eventId, agentId: 'oncall-escalator', severity: 'P1',
      status: 'firing', title: 'HighErrorRate on checkout-api-7f9c:8080', text: EXPECTED_TEXT, triagedBy: 'anthropic:claude-haiku-4-5',
      deliveryId: `${eventId}.oncall-dm` }));

    // Slack: the chat.postMessage body as Slack receives it.
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    assert.equal(posts.length, 1);
    assert.equal(posts[0]?.auth, `Bearer ${TOKEN}`);
    assert.equal(posts[0]?.raw, JSON.stringify({ channel: slack.dmChannel, text: EXPECTED_TEXT, unfurl_links: false }));

    // The raise is on the record, and the decision row says what was sent.
    const rows = auditRows(t.home).filter((r) => r.data.eventId === eventId);
    const raised = rows.filter((r) => r.kind === 'triage.severity-raised');
    assert.deepEqual(raised.map((r) => r.data), [{ eventId, provider: 'anthropic', model: 'claude-haiku-4-5', from: 'P3', to: 'P1', floor: 'rules' }]);
    assert.equal(rows.find((r) => r.kind === 'triage.decision')?.data.severity, 'P1');
    assert.deepEqual(fake.violations, []);
  });
});

describe('page integrity on a page (oncall.yaml) with Slack Block Kit', () => {
  const t = tempEnv();
  let fake: FakeLlm;
  let slack: FakeSlack;
  let dir = '';
  let env: NodeJS.ProcessEnv = {};
  let pageUrl = '';
  let pageSecret = '';
  let pageFixture = '';

  before(async () => {
    fake = await startFakeLlm('openai');
    slack = await startFakeSlack(TOKEN);
    const a = await scaffoldAgent(t, 'paging', 'openai');
    dir = a.dir;
    env = { ...t.env, SVC_METRICS_PORT: String(a.cpPort), OPENAI_API_KEY: fake.apiKey, SLACK_BOT_TOKEN: TOKEN };
    appendAgentYaml(dir, `baseUrl: ${fake.baseUrl}`);
    appendFileSync(join(dir, 'channels.yaml'), ['  - id: slack-dm', '    type: slack', '    direction: outbound',
      '    token: ${env:SLACK_BOT_TOKEN}', '    user: U0ONCALL', `    apiUrl: ${slack.apiUrl}`, ''].join('\n'));
    // alice pages through Slack; a P3 would notify nobody, so a lowered severity would page no one.
    writeFileSync(join(dir, 'oncall.yaml'), [
      'people:',
      '  - { id: alice, contacts: { slack-dm: U0ALICE } }',
      'schedules:',
      '  - id: primary',
      '    timeZone: Europe/Berlin',
      '    rotations:',
      '      - { people: [alice], every: 1w, handoff: 2026-11-23T09:00 }',
      'policies:',
      '  - id: default',
      '    steps:',
      '      - { notify: [schedule:primary], after: 1h }',
      '    repeat: 0',
      'routes:',
      '  - { match: { severity: [P1, P2] }, policy: default }',
      'incidents: { key: groupKey, reopenWindow: 1s }',
      '',
    ].join('\n'));
    const up = await runSvc(['up', '-d'], { env, cwd: dir });
    assert.equal(up.code, 0, up.stderr);
    ({ url: pageUrl, secret: pageSecret, fixture: pageFixture } = a);
  });
  after(async () => {
    await runSvc(['down'], { env, cwd: dir });
    await fake.close();
    await slack.close();
    t.cleanup();
  });

  it('an openai answer of P3 with its own summary still opens a P1 page whose Block Kit message carries the alert\'s links', async () => {
    fake.reply(fake.toolCall('submit_triage', { severity: 'P3', summary: 'Nothing to see here' }));
    const res = await postAlert(pageUrl, pageSecret, pageFixture, 'integrity-page-1');
    assert.equal(res.status, 202);
    const post = await waitFor('the page on Slack', () => slack.calls.find((c) => c.method === 'chat.postMessage'), 60_000);
    const pageId = String(auditRows(t.home).find((r) => r.kind === 'page.opened')?.data.pageId);
    // What is wrong from the payload, whatever the model said (§24.1); the buttons are the way to act: no command line.
    const text = [
      '[P1] HighErrorRate on checkout-api-7f9c:8080',
      'checkout-api 5xx ratio above 5% for 10 minutes',
      'Instance: checkout-api-7f9c:8080',
      'Runbook: https://runbooks.example.com/checkout-api/high-error-rate',
      'Source: http://prometheus.example.com:9090/graph?g0.expr=job%3Acheckout_5xx_ratio%3Arate5m+%3E+0.05',
      'Alertmanager: http://alertmanager.example.com:9093',
      `Page ${pageId} opened.`,
      'Paged: step 1 of 1: alice',
    ].join('\n');
    const button = (label: string, actionId: string, style?: string) => ({ type: 'button', text: { type: 'plain_text', text: label },
      action_id: actionId, value: pageId, ...(style === undefined ? {} : { style }) });
    assert.equal(post.raw, JSON.stringify({ channel: slack.dmChannel, text, blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'actions', block_id: 'svc_page', elements: [button('Acknowledge', 'svc_ack', 'primary'), button('Resolve', 'svc_resolve'),
        button('Escalate', 'svc_escalate', 'danger')] },
    ], unfurl_links: false }));
    assert.deepEqual(auditRows(t.home).filter((r) => r.kind === 'triage.severity-raised').map((r) => [r.data.from, r.data.to]), [['P3', 'P1']]);
    assert.deepEqual(fake.violations, []);
  });
});
