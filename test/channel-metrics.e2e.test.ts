/**
 * svc_channel_messages_total for every vendor channel through the dispatcher (contract §18.7): one
 * agent pages Slack, Teams, PagerDuty and email at once, each against a local stand-in speaking its
 * wire format (Slack's Web API, a Teams Workflows webhook, the Events API v2, a real SMTP server with
 * STARTTLS). The first alert is delivered on all four; then every vendor refuses (Slack
 * `channel_not_found`, Teams 400, PagerDuty 400, SMTP 550) and the second alert fails on all four.
 * The counter reads 1 delivered and 1 failed per channel.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Daemon } from './support/daemon.js';
import { startDaemon } from './support/daemon.js';
import { metricValue, postAlert } from './support/http.js';
import { selfSignedCert, startSmtpServer } from './support/smtp.js';
import type { TestSmtpServer } from './support/smtp.js';
import { waitFor } from './support/wait.js';

const TOKEN = 'xoxb-test-0000000000-secret-token';
const ROUTING_KEY = 'R0utingKey000000000000000000e2e1';

/** Slack (/api/…), Teams (/teams) and PagerDuty (/v2/enqueue) in one local server; `refuse` turns every one to its refusal. */
function fakeVendors(): { hits: string[]; refuse(): void; start(): Promise<string>; close(): void } {
  const hits: string[] = [];
  let refusing = false;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString(); });
    req.on('end', () => {
      const url = req.url ?? '';
      hits.push(url);
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
      };
      if (url.startsWith('/api/')) {
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(200, { ok: false, error: 'not_authed' });
        if (url === '/api/conversations.open') return json(200, { ok: true, channel: { id: 'D0ONCALL' } });
        if (refusing) return json(200, { ok: false, error: 'channel_not_found' });
        return json(200, { ok: true, channel: 'D0ONCALL', ts: `1700000000.00010${hits.length}` });
      }
      if (url === '/teams') {
        if (refusing) return json(400, { error: { code: 'InvalidRequestContent', message: 'The request content is not valid.' } });
        res.writeHead(202).end();
        return;
      }
      if (url === '/v2/enqueue') {
        const dedupKey = (JSON.parse(raw) as { dedup_key?: string }).dedup_key;
        if (refusing) return json(400, { status: 'invalid event', message: 'Event object is invalid', errors: ['Length of \'routing_key\' is incorrect'] });
        return json(202, { status: 'success', message: 'Event processed', dedup_key: dedupKey });
      }
      res.writeHead(404).end();
    });
  });
  return {
    hits,
    refuse: () => { refusing = true; },
    start: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

describe('svc_channel_messages_total for slack, teams, pagerduty and email', () => {
  const vendors = fakeVendors();
  let smtp: TestSmtpServer | undefined;
  let daemon: Daemon | undefined;
  after(async () => {
    await daemon?.stop();
    await smtp?.close();
    vendors.close();
  });

  it('one delivered and one failed message per channel, counted by channel and outcome', async () => {
    const base = await vendors.start();
    const cert = selfSignedCert();
    smtp = await startSmtpServer({ cert, starttls: true });
    const channels = ['channels:',
      '  - { id: oncall-dm, type: file, direction: outbound, path: ./out/oncall-dm.jsonl }',
      `  - { id: slack, type: slack, direction: outbound, token: "\${env:SLACK_BOT_TOKEN}", user: U0ONCALL, apiUrl: "${base}/api", maxAttempts: 1 }`,
      `  - { id: teams, type: teams, direction: outbound, url: "\${env:TEAMS_URL}", maxAttempts: 1 }`,
      `  - { id: pd, type: pagerduty, direction: outbound, routingKey: "\${env:PD_KEY}", url: "${base}/v2/enqueue", maxAttempts: 1 }`,
      '  - id: mail',
      '    type: email',
      '    direction: outbound',
      `    smtp: { host: 127.0.0.1, port: ${smtp.port}, tls: starttls, ca: "\${file:ca.pem}" }`,
      '    from: svc@example.com',
      '    to: oncall@example.com',
      '    maxAttempts: 1',
      ''].join('\n');
    daemon = await startDaemon({ channelsYaml: channels, files: { 'ca.pem': cert.cert },
      env: { SLACK_BOT_TOKEN: TOKEN, TEAMS_URL: `${base}/teams`, PD_KEY: ROUTING_KEY } });
    const d = daemon;
    const count = async (channel: string, outcome: string): Promise<number> => metricValue(await (await fetch(`${d.cp}/metrics`)).text(),
      'svc_channel_messages_total', { agent: 'oncall-escalator', channel, outcome }) ?? 0;
    const vendorChannels = ['slack', 'teams', 'pd', 'mail'];
    const all = async (outcome: string): Promise<number[]> => Promise.all(vendorChannels.map((c) => count(c, outcome)));

    assert.equal((await postAlert(d.url, d.secret, d.fixture, 'metrics-1')).status, 202);
    await waitFor('delivered on all four', async () => ((await all('delivered')).every((n) => n === 1) ? true : undefined), 60_000);
    assert.deepEqual(await all('failed'), [0, 0, 0, 0]);
    assert.equal(smtp.mails.length, 1);
    assert.ok(smtp.mails[0]?.secure, 'the mail went over STARTTLS');

    vendors.refuse();
    smtp.failNext(550, 'Mailbox unavailable');
    assert.equal((await postAlert(d.url, d.secret, d.fixture, 'metrics-2')).status, 202);
    await waitFor('failed on all four', async () => ((await all('failed')).every((n) => n === 1) ? true : undefined), 60_000);
    assert.deepEqual(await all('delivered'), [1, 1, 1, 1], 'the refusals were not counted as deliveries');
    assert.equal(await count('oncall-dm', 'delivered'), 2, 'the file channel delivered both');
    assert.equal(smtp.mails.length, 1);
  });
});
