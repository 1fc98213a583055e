import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pagerdutyChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { OutboundMessage } from './channel.js';
import { MAX_EVENT_BYTES, createPagerdutyChannel, pagerdutyEvent } from './pagerduty-channel.js';
import { STORY_PAGE, pageStory } from '../../../test/support/page-messages.js';

const NOW = Date.parse('2026-11-21T03:12:00.000Z');
/** A canary: it must never appear in a result. */
const ROUTING_KEY = 'R0ut1ngKeyCanary0000000000000042';
const opening: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq opened (step 1 of 2).\nAcknowledge: svc ack p3k9x2mfq',
  triagedBy: 'oncall', deliveryId: 'p3k9x2mfq.1.-.pd', attempt: 1, pageId: 'p3k9x2mfq', pageKind: 'escalation',
};
const acked: OutboundMessage = { ...opening, deliveryId: 'p3k9x2mfq.2.-.pd', pageKind: 'acknowledged',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq was acknowledged by alice.' };
const resolved: OutboundMessage = { ...opening, deliveryId: 'p3k9x2mfq.3.-.pd', pageKind: 'resolved', status: 'resolved',
  text: 'RESOLVED [P1] HighLatency on api-1\nPage p3k9x2mfq was resolved by alice.' };

interface Reply { status: number; headers?: Record<string, string>; body: string }
interface Seen { method: string | undefined; url: string | undefined; headers: IncomingHttpHeaders; body: string }

/** Speaks the Events API v2 enqueue endpoint's answers; `replies` are used in order, then 202. */
function fakePagerduty(): { server: Server; seen: Seen[]; replies: Reply[] } {
  const seen: Seen[] = [];
  const replies: Reply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const dedupKey = (JSON.parse(body) as { dedup_key?: string }).dedup_key;
      const r = replies.shift() ?? { status: 202, body: JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: dedupKey }) };
      res.writeHead(r.status, { 'Content-Type': 'application/json', ...r.headers });
      res.end(r.body);
    });
  });
  return { server, seen, replies };
}

describe('pagerduty channel against a local Events API v2', () => {
  const pd = fakePagerduty();
  let port = 0;
  before(() => new Promise<void>((resolve) => pd.server.listen(0, '127.0.0.1', () => {
    port = (pd.server.address() as AddressInfo).port;
    resolve();
  })));
  after(() => new Promise<void>((resolve) => { pd.server.closeAllConnections(); pd.server.close(() => resolve()); }));
  beforeEach(() => { pd.seen.length = 0; pd.replies.length = 0; });
  const channel = () => createPagerdutyChannel(pagerdutyChannelSchema.parse({ id: 'pd', type: 'pagerduty', direction: 'outbound',
    routingKey: ROUTING_KEY, url: `http://127.0.0.1:${port}/v2/enqueue` }), { clock: fakeClock(NOW) });
  const signal = new AbortController().signal;
  const body = (i: number): Record<string, unknown> => JSON.parse(pd.seen[i]?.body ?? '{}') as Record<string, unknown>;

  it('trigger → acknowledge → resolve share one dedup_key, the page id', async () => {
    const c = channel();
    assert.equal(c.followsPageState, true, 'it asks to hear acknowledgements');
    assert.deepEqual(await c.send(opening, signal), { ok: true, detail: { httpStatus: '202', dedupKey: 'p3k9x2mfq' } });
    assert.equal((await c.send(acked, signal)).ok, true);
    assert.equal((await c.send(resolved, signal)).ok, true);
    assert.equal(pd.seen.length, 3);
    assert.equal(pd.seen[0]?.method, 'POST');
    assert.equal(pd.seen[0]?.url, '/v2/enqueue');
    assert.equal(pd.seen[0]?.headers['content-type'], 'application/json');
    assert.equal(pd.seen[0]?.headers['idempotency-key'], 'p3k9x2mfq.1.-.pd');
    assert.deepEqual(body(0), {
      routing_key: ROUTING_KEY, event_action: 'trigger', dedup_key: 'p3k9x2mfq', client: 'svc',
      payload: { summary: 'HighLatency on api-1', source: 'oncall', severity: 'critical',
        custom_details: { finding: opening.text, event_id: 'evt-7', page_id: 'p3k9x2mfq', triaged_by: 'oncall' } },
    });
    assert.deepEqual(body(1), { routing_key: ROUTING_KEY, event_action: 'acknowledge', dedup_key: 'p3k9x2mfq' });
    assert.deepEqual(body(2), { routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: 'p3k9x2mfq' });
  });

  it('a page message says what is wrong in PagerDuty\'s places: summary, each alert\'s details, who is paged, links (§24.1), exact bytes', async () => {
    const story = pageStory('pd', 'alice');
    const c = channel();
    for (const m of [story.opened, story.acknowledged, story.resolved]) assert.equal((await c.send(m, signal)).ok, true);
    const summary = 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)';
    const source = 'http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1';
    const paged = 'step 1 of 2: alice; next: bob at 03:10 CET (in 5m)';
    assert.equal(pd.seen[0]?.body, JSON.stringify({
      routing_key: ROUTING_KEY, event_action: 'trigger', dedup_key: STORY_PAGE, client: 'svc',
      payload: { summary: `CheckoutErrors on api-1: ${summary}`, source: 'shop', severity: 'critical', custom_details: {
        finding: `[P1] CheckoutErrors on api-1\n${summary}\nInstance: api-1\nRunbook: https://runbooks.example.com/checkout\nSource: ${source}\n`
          + `Page ${STORY_PAGE} opened.\nPaged: ${paged}\nsvc ack ${STORY_PAGE}`,
        alerts: [{ name: 'CheckoutErrors on api-1', summary, instance: 'api-1', runbook_url: 'https://runbooks.example.com/checkout', source_url: source }],
        happened: `Page ${STORY_PAGE} opened.`, paged, event_id: 'e1', page_id: STORY_PAGE, triaged_by: 'oncall' } },
      links: [{ href: 'https://runbooks.example.com/checkout', text: 'Runbook' }, { href: source, text: 'Source' }],
    }));
    assert.equal(pd.seen[1]?.body, JSON.stringify({ routing_key: ROUTING_KEY, event_action: 'acknowledge', dedup_key: STORY_PAGE }));
    assert.equal(pd.seen[2]?.body, JSON.stringify({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: STORY_PAGE }));
  });

  it('several alerts: the summary says each once and is cut to 1,024 characters; each alert\'s links named, each URL once', () => {
    const { opened } = pageStory('pd', 'alice');
    const model = opened.page;
    assert.ok(model !== undefined);
    const alerts = [{ name: 'A on x', summary: 's'.repeat(700), runbookUrl: 'https://rb/a', sourceUrl: 'https://src/a' },
      { name: 'A on y', summary: 's'.repeat(700), runbookUrl: 'https://rb/a' }, { name: 'B on z', summary: 't'.repeat(400), sourceUrl: 'https://src/b' }];
    const event = pagerdutyEvent({ ...opened, page: { ...model, alerts, moreAlerts: 2, alertmanagerUrl: 'https://am/#/alerts' } }, ROUTING_KEY);
    const payload = event.payload as { summary: string; custom_details: Record<string, unknown> };
    assert.equal(payload.summary, `CheckoutErrors on api-1: ${'s'.repeat(700)}; ${'t'.repeat(400)}`.slice(0, 1023) + '…', 'the same summary once');
    assert.equal(payload.summary.length, 1024);
    assert.equal(payload.custom_details.more_alerts, 2);
    assert.deepEqual(event.links, [{ href: 'https://rb/a', text: 'Runbook: A on x' }, { href: 'https://src/a', text: 'Source: A on x' },
      { href: 'https://src/b', text: 'Source: B on z' }, { href: 'https://am/#/alerts', text: 'Alertmanager' }]);
  });

  it('P2 is error and P3 warning; a summary is cut to 1,024 characters', async () => {
    const c = channel();
    await c.send({ ...opening, severity: 'P2' }, signal);
    await c.send({ ...opening, severity: 'P3', title: 'x'.repeat(5000) }, signal);
    const p0 = body(0).payload as Record<string, unknown>;
    const p1 = body(1).payload as Record<string, unknown>;
    assert.equal(p0.severity, 'error');
    assert.equal(p1.severity, 'warning');
    assert.equal((p1.summary as string).length, 1024);
    assert.ok((p1.summary as string).endsWith('…'));
  });

  it('a 400 is not retried and carries PagerDuty’s message; never the routing key', async () => {
    pd.replies.push({ status: 400, body: JSON.stringify({ status: 'invalid event', message: 'Event object is invalid',
      errors: [`'routing_key' ${ROUTING_KEY} is unknown`] }) });
    const result = await channel().send(opening, signal);
    assert.deepEqual(result, { ok: false, retryable: false,
      error: "pagerduty 400: Event object is invalid; 'routing_key' [redacted] is unknown" });
    assert.ok(!JSON.stringify(result).includes(ROUTING_KEY));
  });

  it('a 429 is retried after Retry-After; a 500 is retried', async () => {
    pd.replies.push({ status: 429, headers: { 'Retry-After': '30' }, body: JSON.stringify({ status: 'throttle event', message: 'Requests for this service are arriving too quickly' }) });
    pd.replies.push({ status: 500, body: 'oops' });
    const throttled = await channel().send(opening, signal);
    const broken = await channel().send(opening, signal);
    assert.deepEqual(throttled, { ok: false, retryable: true, retryAfterMs: 30_000,
      error: 'pagerduty 429: Requests for this service are arriving too quickly' });
    assert.deepEqual(broken, { ok: false, retryable: true, error: 'pagerduty 500: oops' });
  });

  it('a 900 KB finding is cut so the whole event stays under 512 KB, and says so', async () => {
    const big = `line "quoted" é\n`.repeat(Math.ceil(900 * 1024 / 17));
    assert.ok(Buffer.byteLength(big) >= 900 * 1024);
    assert.equal((await channel().send({ ...opening, text: big }, signal)).ok, true);
    const raw = pd.seen[0]?.body ?? '';
    assert.ok(Buffer.byteLength(raw) <= MAX_EVENT_BYTES, `${Buffer.byteLength(raw)} bytes`);
    assert.ok(Buffer.byteLength(raw) > MAX_EVENT_BYTES - 4096, 'cut no more than needed');
    const finding = ((body(0).payload as Record<string, unknown>).custom_details as Record<string, string>).finding ?? '';
    assert.ok(big.startsWith(finding.slice(0, finding.lastIndexOf('\n[cut: '))), 'the beginning of the finding is kept');
    assert.match(finding, /\n\[cut: \d+ of \d+ bytes kept to stay under PagerDuty's 512 KB\]$/);
  });

  it('connection refused is retryable', async () => {
    const c = createPagerdutyChannel(pagerdutyChannelSchema.parse({ id: 'pd', type: 'pagerduty', direction: 'outbound',
      routingKey: ROUTING_KEY, url: 'http://127.0.0.1:1/v2/enqueue' }), { clock: fakeClock(NOW) });
    const result = await c.send(opening, signal);
    assert.ok(!result.ok && result.retryable && result.error.startsWith('pagerduty: network error:'), JSON.stringify(result));
  });
});
