import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { teamsChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage } from './channel.js';
import { createTeamsChannel } from './teams-channel.js';
import { STORY_LINKS, pageStory } from '../../../test/support/page-messages.js';

const NOW = Date.parse('2026-11-21T03:12:00.000Z');
/** A canary: the workflow URL's signature must never appear in a result. */
const SIG = 'CanarySig0f3a9b77e1';
const message: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq opened (step 1 of 2).\nAcknowledge: svc ack p3k9x2mfq',
  triagedBy: 'oncall', deliveryId: 'p3k9x2mfq.1.-.room', attempt: 1, pageId: 'p3k9x2mfq', pageKind: 'escalation',
};

interface Reply { status: number; headers?: Record<string, string>; body: string }
interface Seen { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders; body: string }

/** Answers as a Workflows trigger does: 202 and an empty body, unless told otherwise. */
function fakeWorkflow(): { server: Server; seen: Seen[]; replies: Reply[] } {
  const seen: Seen[] = [];
  const replies: Reply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const r = replies.shift() ?? { status: 202, body: '' };
      res.writeHead(r.status, r.headers ?? {});
      res.end(r.body);
    });
  });
  return { server, seen, replies };
}

/** The Workflows envelope of a P1 page card, exactly as Teams receives it. */
function teamsCard(head: string, color: string, text: string, fact: { agent: string; event: string; page: string },
  links: Array<[string, string]>): unknown {
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      content: {
        $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.2',
        body: [
          { type: 'TextBlock', text: head, weight: 'Bolder', size: 'Medium', wrap: true, color },
          { type: 'TextBlock', text, wrap: true },
          { type: 'FactSet', facts: [{ title: 'Severity', value: 'P1' }, { title: 'Page', value: fact.page },
            { title: 'Agent', value: fact.agent }, { title: 'Event', value: fact.event }] },
        ],
        ...(links.length === 0 ? {} : { actions: links.map(([title, url]) => ({ type: 'Action.OpenUrl', title, url })) }),
      },
    }],
  };
}

describe('teams channel against a local Workflows webhook', () => {
  const wf = fakeWorkflow();
  let port = 0;
  before(() => new Promise<void>((resolve) => wf.server.listen(0, '127.0.0.1', () => {
    port = (wf.server.address() as AddressInfo).port;
    resolve();
  })));
  after(() => new Promise<void>((resolve) => { wf.server.closeAllConnections(); wf.server.close(() => resolve()); }));
  beforeEach(() => { wf.seen.length = 0; wf.replies.length = 0; });
  const path = `/workflows/a1b2/triggers/manual/paths/invoke?api-version=1&sig=${SIG}`;
  const channel = () => createTeamsChannel(teamsChannelSchema.parse({ id: 'room', type: 'teams', direction: 'outbound',
    url: `http://127.0.0.1:${port}${path}` }), { clock: fakeClock(NOW) });
  const signal = new AbortController().signal;

  it('POSTs the Workflows envelope with an Adaptive Card 1.2; 202 is delivered', async () => {
    assert.deepEqual(await channel().send(message, signal), { ok: true, detail: { httpStatus: '202' } });
    const seen = wf.seen[0];
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.url, path);
    assert.equal(seen?.headers['content-type'], 'application/json');
    assert.equal(seen?.headers['idempotency-key'], 'p3k9x2mfq.1.-.room');
    assert.deepEqual(JSON.parse(seen?.body ?? ''), teamsCard('\\[P1\\] HighLatency on api-1', 'Attention',
      'Page p3k9x2mfq opened (step 1 of 2).\n\nAcknowledge: svc ack p3k9x2mfq', { agent: 'oncall', event: 'evt-7', page: 'p3k9x2mfq' }, []));
  });

  it('text from alert labels shows literally: a Markdown link or emphasis in a label is escaped, a bare URL stays a URL (issue 33)', async () => {
    const hostile = { ...message,
      text: '[P1] [Acknowledge](https://evil.example/ack) on *db-1*\n  Runbook: https://wiki.example/Run_books/disk[1]?x=`y`\n  node_exporter <b>down</b>' };
    await channel().send(hostile, signal);
    const body = (JSON.parse(wf.seen[0]?.body ?? '') as { attachments: Array<{ content: { body: Array<{ text?: string }> } }> }).attachments[0]?.content.body;
    assert.deepEqual(body?.slice(0, 2).map((b) => b.text), [
      '\\[P1\\] \\[Acknowledge\\](https://evil.example/ack) on \\*db-1\\*',
      '  Runbook: https://wiki.example/Run_books/disk%5B1%5D?x=%60y%60\n\n  node\\_exporter \\<b\\>down\\</b\\>',
    ]);
  });

  it('carries Acknowledge and Resolve links as OpenUrl actions when the message has them', async () => {
    await channel().send({ ...message, links: { ack: 'https://svc.example.com/ack/t1', resolve: 'https://svc.example.com/ack/t2' } }, signal);
    const card = (JSON.parse(wf.seen[0]?.body ?? '') as { attachments: Array<{ content: { actions: unknown } }> }).attachments[0]?.content;
    assert.deepEqual(card?.actions, [
      { type: 'Action.OpenUrl', title: 'Acknowledge', url: 'https://svc.example.com/ack/t1' },
      { type: 'Action.OpenUrl', title: 'Resolve', url: 'https://svc.example.com/ack/t2' },
    ]);
  });

  it('a page opened, acknowledged and resolved: exact cards, the summary escaped, only the links that still make sense (§24.1)', async () => {
    const story = pageStory('room', 'alice', { links: true });
    for (const m of [story.opened, story.acknowledged, story.resolved]) assert.equal((await channel().send(m, signal)).ok, true);
    const what = 'Checkout 5xx ratio 12% \\> 5% & rising \\<!here\\> \\*now\\* \\[Acknowledge\\](https://evil.example/)\n\nInstance: api-1\n\n'
      + 'Runbook: https://runbooks.example.com/checkout\n\nSource: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1\n\n';
    const card = (head: string, color: string, rest: string, links: Array<[string, string]>): unknown => teamsCard(head, color, `${what}${rest}`,
      { agent: 'shop', event: rest.includes('resolved') ? 'e2' : 'e1', page: 'p7xq2m4k9a' }, links);
    assert.deepEqual(wf.seen.map((x) => JSON.parse(x.body) as unknown), [
      card('\\[P1\\] CheckoutErrors on api-1', 'Attention', 'Page p7xq2m4k9a opened.\n\nPaged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)',
        [['Acknowledge', STORY_LINKS.ack], ['Resolve', STORY_LINKS.resolve]]),
      card('\\[P1\\] CheckoutErrors on api-1', 'Attention', 'Page p7xq2m4k9a acknowledged by alice.', [['Resolve', STORY_LINKS.resolve]]),
      card('RESOLVED \\[P1\\] CheckoutErrors on api-1', 'Good', 'Page p7xq2m4k9a resolved by source.', []),
    ]);
  });

  it('without links a page card says what to type, once', async () => {
    await channel().send(pageStory('room', 'alice').opened, signal);
    const body = (JSON.parse(wf.seen[0]?.body ?? '') as { attachments: Array<{ content: { body: Array<{ text?: string }>; actions?: unknown } }> })
      .attachments[0]?.content;
    assert.match(body?.body[1]?.text ?? '', /\n\nsvc ack p7xq2m4k9a$/);
    assert.equal(body?.actions, undefined);
  });

  it('429 waits Retry-After; 400 is not retried; the signature never shows', async () => {
    wf.replies.push({ status: 429, headers: { 'Retry-After': '12' }, body: '{"error":{"code":"TooManyRequests"}}' });
    wf.replies.push({ status: 400, body: `{"error":{"code":"InvalidRequestContent","message":"bad card at ${path}"}}` });
    const throttled = await channel().send(message, signal);
    const refused = await channel().send(message, signal);
    assert.deepEqual(throttled, { ok: false, retryable: true, retryAfterMs: 12_000, error: 'teams: HTTP 429: {"error":{"code":"TooManyRequests"}}' });
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && !refused.retryable && refused.error.startsWith('teams: HTTP 400: {"error":{"code":"InvalidRequestContent"'));
    assert.ok(!JSON.stringify([throttled, refused]).includes(SIG));
  });
});
