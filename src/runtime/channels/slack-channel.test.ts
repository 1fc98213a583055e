import assert from 'node:assert/strict';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { createSlackChannel } from './slack-channel.js';
import { slackChannelSchema } from '../../config/schema.js';
import type { FakeSlack } from '../../../test/support/fake-slack.js';
import { startFakeSlack } from '../../../test/support/fake-slack.js';
import { waitFor } from '../../../test/support/wait.js';
import { pageStory } from '../../../test/support/page-messages.js';

const TOKEN = 'xoxb-0000000000-1111111111-SeCrEtToKeNvAlUe';
const USER = 'U0ONCALL1';

const message: OutboundMessage = {
  eventId: 'evt-1', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] FIRING: HighLatency on api-1\n- p99 > 2s & rising',
  triagedBy: 'rules',
  deliveryId: 'evt-7.dm',
  attempt: 1,
};

interface Seen { method: string; auth: string | undefined; contentType: string | undefined; body: Record<string, unknown> }
type Mode = 'ok' | 'ratelimited' | 'invalid_auth' | 'hang' | 'server_error';

/** A loopback stand-in that speaks the Slack Web API wire format. */
function slackStub(): { server: Server; seen: Seen[]; setMode(m: Mode): void } {
  const seen: Seen[] = [];
  let mode: Mode = 'ok';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = (req.url ?? '').replace(/^\/api\//, '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      seen.push({ method, auth: req.headers.authorization, contentType: req.headers['content-type'], body });
      const reply = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(payload));
      };
      if (mode === 'hang') return; // never answers
      if (req.method !== 'POST') return reply(405, { ok: false, error: 'method_not_allowed' });
      if (req.headers.authorization !== `Bearer ${TOKEN}` || mode === 'invalid_auth') {
        return reply(200, { ok: false, error: 'invalid_auth' });
      }
      if (!/^application\/json/.test(req.headers['content-type'] ?? '')) return reply(200, { ok: false, error: 'invalid_arguments' });
      if (mode === 'ratelimited') return reply(429, { ok: false, error: 'ratelimited' }, { 'Retry-After': '2' });
      if (mode === 'server_error') return reply(503, { ok: false, error: 'service_unavailable' });
      if (method === 'conversations.open') {
        if (body.users !== USER) return reply(200, { ok: false, error: 'user_not_found' });
        return reply(200, { ok: true, channel: { id: 'D123' } });
      }
      if (method === 'chat.postMessage') {
        if (body.channel !== 'D123') return reply(200, { ok: false, error: 'channel_not_found' });
        const ts = body.thread_ts === undefined ? '1700000000.000100' : '1700000000.000200';
        return reply(200, { ok: true, channel: 'D123', ts, message: { type: 'message', text: body.text, user: 'UBOT', ts } });
      }
      if (method === 'chat.update') {
        if (body.ts === '1600000000.000001') return reply(200, { ok: false, error: 'message_not_found' });
        return reply(200, { ok: true, channel: body.channel, ts: body.ts, text: body.text });
      }
      return reply(404, { ok: false, error: 'unknown_method' });
    });
  });
  return { server, seen, setMode: (m) => { mode = m; } };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function channelFor(port: number, timeoutMs = 2000, clock = fakeClock(Date.parse('2026-11-21T03:12:00.000Z'))) {
  const config = slackChannelSchema.parse({ id: 'oncall-dm', type: 'slack', direction: 'outbound', token: TOKEN,
    user: USER, apiUrl: `http://127.0.0.1:${port}/api`, timeoutMs });
  return createSlackChannel(config, { clock });
}

const signal = (): AbortSignal => new AbortController().signal;

describe('slack channel against a local Slack Web API', () => {
  const stub = slackStub();
  let port = 0;
  before(async () => { port = await listen(stub.server); });
  after(() => new Promise<void>((resolve) => { stub.server.closeAllConnections(); stub.server.close(() => resolve()); }));
  beforeEach(() => { stub.seen.length = 0; stub.setMode('ok'); });

  it('a page message with links shows its buttons only: no link line beside them (§24.1); a message of no page keeps its links', async () => {
    const links = { ack: 'https://svc.example.com/ack/v1.a.b', resolve: 'https://svc.example.com/ack/v1.c.d' };
    assert.equal((await channelFor(port).send({ ...message, pageId: 'p0123456789ab', links }, signal())).ok, true);
    assert.equal((stub.seen.find((x) => x.method === 'chat.postMessage')?.body as { text: string }).text,
      '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising');
    stub.seen.length = 0;
    assert.equal((await channelFor(port).send({ ...message, links }, signal())).ok, true);
    assert.equal((stub.seen.find((x) => x.method === 'chat.postMessage')?.body as { text: string }).text,
      '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising\n\nAcknowledge: https://svc.example.com/ack/v1.a.b\nResolve: https://svc.example.com/ack/v1.c.d');
  });

  it('a page opened, acknowledged and resolved: exact bytes, what is wrong escaped, only the buttons that still make sense (§24.1)', async () => {
    const story = pageStory('oncall-dm', USER, { links: true });
    const channel = channelFor(port);
    const posted = await channel.send(story.opened, signal());
    assert.ok(posted.ok);
    const at = { pageMessage: { channel: 'D123', ts: posted.detail.ts ?? '' } };
    assert.equal((await channel.send({ ...story.acknowledged, ...at }, signal())).ok, true);
    assert.equal((await channel.send({ ...story.resolved, ...at }, signal())).ok, true);
    const what = 'Checkout 5xx ratio 12% &gt; 5% &amp; rising &lt;!here&gt; *now* [Acknowledge](https://evil.example/)\nInstance: api-1\n'
      + 'Runbook: https://runbooks.example.com/checkout\nSource: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&amp;g0.tab=1\n';
    const opened = `[P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a opened.\nPaged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)`;
    const acked = `[P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a acknowledged by alice.`;
    const resolved = `RESOLVED [P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a resolved by source.`;
    const section = (text: string): Record<string, unknown> => ({ type: 'section', text: { type: 'mrkdwn', text } });
    const button = (text: string, action: string, style?: string): Record<string, unknown> => ({ type: 'button', text: { type: 'plain_text', text },
      action_id: action, value: 'p7xq2m4k9a', ...(style === undefined ? {} : { style }) });
    assert.deepEqual(stub.seen.map((x) => [x.method, x.body]), [
      ['conversations.open', { users: USER }],
      ['chat.postMessage', { channel: 'D123', text: opened, unfurl_links: false, blocks: [section(opened), { type: 'actions', block_id: 'svc_page',
        elements: [button('Acknowledge', 'svc_ack', 'primary'), button('Resolve', 'svc_resolve'), button('Escalate', 'svc_escalate', 'danger')] }] }],
      ['chat.update', { channel: 'D123', ts: '1700000000.000100', text: acked, blocks: [section(acked), { type: 'actions', block_id: 'svc_page',
        elements: [button('Resolve', 'svc_resolve')] }] }],
      ['chat.update', { channel: 'D123', ts: '1700000000.000100', text: resolved, blocks: [section(resolved)] }],
    ]);
  });

  it('a firing page message: Block Kit blocks with Acknowledge / Resolve / Escalate beside the plain text (§18.1)', async () => {
    const channel = channelFor(port);
    const page = { ...message, pageId: 'p0123456789ab', to: USER };
    assert.equal((await channel.send(page, signal())).ok, true);
    const post = stub.seen.find((x) => x.method === 'chat.postMessage')?.body as Record<string, unknown>;
    assert.equal(post.text, '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising');
    assert.deepEqual(post.blocks, [
      { type: 'section', text: { type: 'mrkdwn', text: '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising' } },
      { type: 'actions', block_id: 'svc_page', elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Acknowledge' }, action_id: 'svc_ack', value: 'p0123456789ab', style: 'primary' },
        { type: 'button', text: { type: 'plain_text', text: 'Resolve' }, action_id: 'svc_resolve', value: 'p0123456789ab' },
        { type: 'button', text: { type: 'plain_text', text: 'Escalate' }, action_id: 'svc_escalate', value: 'p0123456789ab', style: 'danger' },
      ] },
    ]);
    stub.seen.length = 0;
    assert.equal((await channel.send({ ...message, status: 'resolved' }, signal())).ok, true);
    assert.equal((stub.seen.find((x) => x.method === 'chat.postMessage')?.body as Record<string, unknown>).blocks, undefined,
      'a message of no page is text');
  });

  it('a page message edited in place: acknowledged keeps only Resolve, resolved drops every button (§18.1, §24.1)', async () => {
    const channel = channelFor(port);
    const page: OutboundMessage = { ...message, pageId: 'p0123456789ab', to: USER, pageMessage: { channel: 'D123', ts: '1700000000.000100' } };
    const acked = await channel.send({ ...page, pageKind: 'acknowledged', text: 'Page p0123456789ab was acknowledged by alice.' }, signal());
    assert.deepEqual(acked, { ok: true, detail: { channel: 'D123', ts: '1700000000.000100' } });
    assert.deepEqual(stub.seen.map((x) => [x.method, x.auth, x.contentType]), [['chat.update', `Bearer ${TOKEN}`, 'application/json; charset=utf-8']]);
    assert.deepEqual(stub.seen[0]?.body, { channel: 'D123', ts: '1700000000.000100', text: 'Page p0123456789ab was acknowledged by alice.', blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: 'Page p0123456789ab was acknowledged by alice.' } },
      { type: 'actions', block_id: 'svc_page', elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Resolve' }, action_id: 'svc_resolve', value: 'p0123456789ab' },
      ] },
    ] });
    stub.seen.length = 0;
    assert.equal((await channel.send({ ...page, pageKind: 'resolved', status: 'resolved', text: 'RESOLVED' }, signal())).ok, true);
    assert.deepEqual(stub.seen.map((x) => x.body), [{ channel: 'D123', ts: '1700000000.000100', text: 'RESOLVED',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'RESOLVED' } }] }]);
  });

  it('a joining alert is a thread reply; an escalation edits the message and pages again in its thread (§18.1)', async () => {
    const channel = channelFor(port);
    const page: OutboundMessage = { ...message, pageId: 'p0123456789ab', to: USER, pageMessage: { channel: 'D123', ts: '1700000000.000100' } };
    const joined = await channel.send({ ...page, pageKind: 'join', text: '2 alerts now on page p0123456789ab' }, signal());
    assert.deepEqual(joined, { ok: true, detail: { channel: 'D123', ts: '1700000000.000200', thread_ts: '1700000000.000100' } });
    assert.deepEqual(stub.seen.map((x) => [x.method, x.body]), [['chat.postMessage',
      { channel: 'D123', thread_ts: '1700000000.000100', text: '2 alerts now on page p0123456789ab', unfurl_links: false }]]);
    stub.seen.length = 0;
    // A join told to the holder of an acknowledged page (a status update) is a reply too: the message keeps saying who acknowledged it.
    await channel.send({ ...page, pageKind: 'joined-acked', text: '3 alerts now on page p0123456789ab' }, signal());
    assert.deepEqual(stub.seen.map((x) => [x.method, x.body.thread_ts]), [['chat.postMessage', '1700000000.000100']]);
    stub.seen.length = 0;
    const escalated = await channel.send({ ...page, pageKind: 'escalation', text: 'escalated' }, signal());
    assert.deepEqual(escalated, { ok: true, detail: { channel: 'D123', ts: '1700000000.000100', reply_ts: '1700000000.000200' } });
    assert.deepEqual(stub.seen.map((x) => [x.method, x.body.ts ?? x.body.thread_ts]),
      [['chat.update', '1700000000.000100'], ['chat.postMessage', '1700000000.000100']]);
  });

  it('a page message Slack no longer has is replaced by a new one', async () => {
    const page: OutboundMessage = { ...message, pageId: 'p0123456789ab', to: USER, pageKind: 'acknowledged',
      pageMessage: { channel: 'D123', ts: '1600000000.000001' } };
    const result = await channelFor(port).send(page, signal());
    assert.deepEqual(result, { ok: true, detail: { channel: 'D123', ts: '1700000000.000100' } });
    assert.deepEqual(stub.seen.map((x) => x.method), ['chat.update', 'conversations.open', 'chat.postMessage']);
  });

  it('an update rate limited: 429 with Retry-After → retryable with its wait', async () => {
    stub.setMode('ratelimited');
    const result = await channelFor(port).send({ ...message, pageId: 'p0123456789ab', pageKind: 'acknowledged',
      pageMessage: { channel: 'D123', ts: '1700000000.000100' } }, signal());
    assert.deepEqual(result, { ok: false, retryable: true, error: 'slack chat.update: ratelimited', retryAfterMs: 2000 });
  });

  it('a message to a person opens the DM with their Slack user, not the channel\'s own', async () => {
    const result = await channelFor(port).send({ ...message, pageId: 'p0123456789ab', to: 'U0OTHER' }, signal());
    assert.equal(result.ok, false);
    assert.deepEqual(stub.seen.map((x) => x.body), [{ users: 'U0OTHER' }]);
  });

  it('a page message takes its last look after opening the DM, right before the post; a look that says no posts nothing', async () => {
    const looks: string[][] = [];
    let left = 0;
    const gate = (go: boolean): WireGate => ({
      enter: () => { looks.push(stub.seen.map((x) => x.method)); return Promise.resolve(go); },
      leave: () => { left += 1; },
    });
    const channel = channelFor(port);
    assert.deepEqual(await channel.send({ ...message, pageId: 'p0123456789ab' }, signal(), gate(false)), NOT_SENT);
    assert.deepEqual(looks, [['conversations.open']], 'looked once the DM was open');
    assert.deepEqual(stub.seen.map((x) => x.method), ['conversations.open'], 'and posted nothing');
    assert.equal(left, 0, 'a look that said no holds nothing to leave');
    assert.equal(channel.ready(), true, 'not a failure of the channel');
    assert.equal((await channel.send({ ...message, pageId: 'p0123456789ab' }, signal(), gate(true))).ok, true);
    assert.deepEqual(stub.seen.map((x) => x.method), ['conversations.open', 'chat.postMessage']);
    assert.equal(left, 1, 'left once the post was written');
  });

  it('opens the DM, posts the message, reports channel and ts, caches the DM id', async () => {
    const channel = channelFor(port);
    assert.equal(channel.type, 'slack');
    assert.equal(channel.ready(), true);
    const result = await channel.send(message, signal());
    assert.deepEqual(result, { ok: true, detail: { channel: 'D123', ts: '1700000000.000100' } });
    assert.deepEqual(stub.seen.map((s) => s.method), ['conversations.open', 'chat.postMessage']);
    for (const s of stub.seen) {
      assert.equal(s.auth, `Bearer ${TOKEN}`);
      assert.equal(s.contentType, 'application/json; charset=utf-8');
    }
    assert.deepEqual(stub.seen[0]?.body, { users: USER });
    assert.deepEqual(stub.seen[1]?.body, { channel: 'D123', unfurl_links: false,
      text: '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising' });

    stub.seen.length = 0;
    assert.equal((await channel.send(message, signal())).ok, true);
    assert.deepEqual(stub.seen.map((s) => s.method), ['chat.postMessage'], 'DM channel id is cached');
    assert.deepEqual(channel.receive({ from: 'U1', text: 'hi' }), { handled: false, reason: 'outbound-only' });
  });

  it('429 with Retry-After: 2 → retryable, retryAfterMs 2000', async () => {
    stub.setMode('ratelimited');
    const result = await channelFor(port).send(message, signal());
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.equal(result.retryAfterMs, 2000);
    assert.match(result.error, /ratelimited/);
  });

  it('5xx → retryable', async () => {
    stub.setMode('server_error');
    const result = await channelFor(port).send(message, signal());
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.retryable, true);
  });

  it('{ok:false, error:"invalid_auth"} → not retryable, token absent, not ready', async () => {
    stub.setMode('invalid_auth');
    const channel = channelFor(port);
    const result = await channel.send(message, signal());
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, false);
    assert.match(result.error, /invalid_auth/);
    assert.equal(JSON.stringify(result).includes(TOKEN), false);
    assert.equal(result.error.includes('SeCrEt'), false);
    assert.equal(channel.ready(), false);
  });

  it('a hanging server → timeout, retryable, once timeoutMs has passed', async () => {
    stub.setMode('hang');
    const clock = fakeClock(0);
    const before = stub.seen.length;
    const pending = channelFor(port, 300, clock).send(message, signal());
    await waitFor('the request to reach the stub', () => stub.seen.length === before + 1);
    clock.advance(300);
    const result = await pending;
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.match(result.error, /timed out after 300 ms/);
  });

  it('the caller aborting ends the attempt at once', async () => {
    stub.setMode('hang');
    const controller = new AbortController();
    const before = stub.seen.length;
    const pending = channelFor(port, 5000).send(message, controller.signal);
    await waitFor('the request to reach the stub', () => stub.seen.length === before + 1);
    controller.abort(); // the fake clock never moves: only the abort can end the attempt
    const result = await pending;
    assert.equal(result.ok, false);
  });
});

describe('slack channel without a server', () => {
  it('a closed port → retryable network error', async () => {
    const server = createServer();
    const port = await listen(server);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await channelFor(port).send(message, signal());
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.retryable, true);
    assert.match(result.error, /ECONNREFUSED/);
    assert.equal(result.error.includes(TOKEN), false);
  });
});

describe('slack channel with a shared conversation (§24.2), against the shared fake Slack', () => {
  const ROOM = 'C0ROOM12345';
  let slack: FakeSlack;
  before(async () => { slack = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE', memberOf: [ROOM] }); });
  after(() => slack.close());
  beforeEach(() => { slack.calls.length = 0; });

  const roomChannel = (keys: Record<string, string> = { conversation: ROOM }) => createSlackChannel(slackChannelSchema.parse({ id: 'slack-room',
    type: 'slack', direction: 'outbound', token: TOKEN, apiUrl: slack.apiUrl, ...keys }), { clock: fakeClock(Date.parse('2026-11-21T03:12:00.000Z')) });
  /** A message of page p0123456789ab to the channel's own recipient (a `channel:slack-room` target): no `to`. */
  const toRoom: OutboundMessage = { ...message, pageId: 'p0123456789ab', pageKind: 'escalation', deliveryId: 'p0123456789ab.3.-.slack-room' };
  const sent = (): Array<[string, Record<string, unknown>]> => slack.calls.map((c) => [c.method, c.body]);
  const TEXT = '[P1] FIRING: HighLatency on api-1\n- p99 &gt; 2s &amp; rising';
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const buttons = (...ids: string[]) => ({ type: 'actions', block_id: 'svc_page', elements: ids.map((id) => ({
    svc_ack: { type: 'button', text: { type: 'plain_text', text: 'Acknowledge' }, action_id: 'svc_ack', value: 'p0123456789ab', style: 'primary' },
    svc_resolve: { type: 'button', text: { type: 'plain_text', text: 'Resolve' }, action_id: 'svc_resolve', value: 'p0123456789ab' },
    svc_escalate: { type: 'button', text: { type: 'plain_text', text: 'Escalate' }, action_id: 'svc_escalate', value: 'p0123456789ab', style: 'danger' },
  })[id]) });

  it('a message that names no person is posted into the conversation itself: no conversations.open, no user needed', async () => {
    const result = await roomChannel().send(toRoom, signal());
    assert.deepEqual(result, { ok: true, detail: { channel: ROOM, ts: '1700000000.000001' } });
    assert.deepEqual(sent(), [['chat.postMessage', { channel: ROOM, text: TEXT, unfurl_links: false,
      blocks: [section(TEXT), buttons('svc_ack', 'svc_resolve', 'svc_escalate')] }]]);
    assert.equal(slack.calls[0]?.auth, `Bearer ${TOKEN}`);
    assert.equal(slack.calls[0]?.contentType, 'application/json; charset=utf-8');
  });

  it('the page changing: its message edited in place, and the change told in its thread for the room to see', async () => {
    const earlier = { ...toRoom, pageMessage: { channel: ROOM, ts: '1700000000.000001' } };
    const acked = await roomChannel().send({ ...earlier, pageKind: 'acknowledged', text: 'Page p0123456789ab was acknowledged by alice.' }, signal());
    assert.deepEqual(acked, { ok: true, detail: { channel: ROOM, ts: '1700000000.000001', reply_ts: '1700000000.000002' } });
    assert.deepEqual(sent(), [
      ['chat.update', { channel: ROOM, ts: '1700000000.000001', text: 'Page p0123456789ab was acknowledged by alice.',
        blocks: [section('Page p0123456789ab was acknowledged by alice.'), buttons('svc_resolve')] }],
      ['chat.postMessage', { channel: ROOM, thread_ts: '1700000000.000001', text: 'Page p0123456789ab was acknowledged by alice.', unfurl_links: false }],
    ]);
    slack.calls.length = 0;
    const joined = await roomChannel().send({ ...earlier, pageKind: 'join', text: '2 alerts now on page p0123456789ab' }, signal());
    assert.deepEqual(joined, { ok: true, detail: { channel: ROOM, ts: '1700000000.000001', thread_ts: '1700000000.000001' } });
    assert.deepEqual(sent(), [['chat.postMessage', { channel: ROOM, thread_ts: '1700000000.000001', text: '2 alerts now on page p0123456789ab',
      unfurl_links: false }]]);
    slack.calls.length = 0;
    assert.equal((await roomChannel().send({ ...earlier, pageKind: 'resolved', status: 'resolved', text: 'RESOLVED' }, signal())).ok, true);
    assert.deepEqual(sent(), [
      ['chat.update', { channel: ROOM, ts: '1700000000.000001', text: 'RESOLVED', blocks: [section('RESOLVED')] }],
      ['chat.postMessage', { channel: ROOM, thread_ts: '1700000000.000001', text: 'RESOLVED', unfurl_links: false }],
    ]);
  });

  it('a person\'s contact on the same channel is still their direct message, edited without a thread reply', async () => {
    const channel = roomChannel();
    const dm = await channel.send({ ...toRoom, to: 'U0ALICE', deliveryId: 'p0123456789ab.1.alice.slack-room' }, signal());
    assert.deepEqual(dm, { ok: true, detail: { channel: 'D0ALICE', ts: '1700000000.000002' } });
    assert.deepEqual(sent().map(([m, b]) => [m, b.users ?? b.channel]), [['conversations.open', 'U0ALICE'], ['chat.postMessage', 'D0ALICE']]);
    slack.calls.length = 0;
    await channel.send({ ...toRoom, to: 'U0ALICE', pageKind: 'acknowledged', text: 'acked', pageMessage: { channel: 'D0ALICE', ts: '1700000000.000002' } },
      signal());
    assert.deepEqual(sent().map(([m]) => m), ['chat.update']);
  });

  it('a conversation the app was not invited to: not retried, and the dead letter says to invite it', async () => {
    const result = await roomChannel({ conversation: 'C0ELSEWHERE1' }).send(toRoom, signal());
    assert.deepEqual(result, { ok: false, retryable: false,
      error: 'slack chat.postMessage: not_in_channel (is the Slack app in C0ELSEWHERE1? invite it there: /invite @<app name>)' });
  });

  it('without user or conversation, a message that names no person fails at once, nothing sent; a person\'s still goes', async () => {
    const channel = roomChannel({});
    assert.deepEqual(await channel.send(toRoom, signal()), { ok: false, retryable: false,
      error: 'slack channel slack-room has no `user` or `conversation`: it sends only to people\'s contacts' });
    assert.equal((await channel.send({ ...toRoom, to: 'U0ALICE' }, signal())).ok, true);
    assert.deepEqual(sent().map(([m]) => m), ['conversations.open', 'chat.postMessage'], 'only the person\'s message reached Slack');
  });
});
