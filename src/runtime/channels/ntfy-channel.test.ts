import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ntfyChannelSchema } from '../../config/schema.js';
import type { NtfyChannelConfig } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { FakeNtfy } from '../../../test/support/fake-ntfy.js';
import { startFakeNtfy } from '../../../test/support/fake-ntfy.js';
import type { OutboundMessage } from './channel.js';
import { NTFY_MAX_BODY_BYTES, createNtfyChannel, encodeHeaderText } from './ntfy-channel.js';
import { STORY_LINKS, pageStory } from '../../../test/support/page-messages.js';

/** A canary: it must never appear in a result. */
const TOKEN = 'tk_CanaryCanaryCanaryCanary00042';
const NOW = Date.parse('2026-11-21T03:12:00.000Z');
const ACK = 'https://svc.example.com/ack/v1.eyJhIjoxfQ.AAAA';
const RESOLVE = 'https://svc.example.com/ack/v1.eyJyIjoxfQ.BBBB';
const opening: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq opened (step 1 of 2).', triagedBy: 'oncall', deliveryId: 'p3k9x2mfq.1.alice.push',
  attempt: 1, to: 'alice-7f3k2q', pageId: 'p3k9x2mfq', pageKind: 'escalation', links: { ack: ACK, resolve: RESOLVE },
};

describe('ntfy channel against a local ntfy server', () => {
  let ntfy: FakeNtfy;
  before(async () => { ntfy = await startFakeNtfy({ token: TOKEN }); });
  after(() => ntfy.close());
  beforeEach(() => { ntfy.publishes.length = 0; ntfy.failNext.length = 0; });
  const config = (over: Partial<NtfyChannelConfig> = {}): NtfyChannelConfig => ntfyChannelSchema.parse({ id: 'push', type: 'ntfy',
    direction: 'outbound', server: `${ntfy.url}/`, token: TOKEN, ...over });
  const channel = (over: Partial<NtfyChannelConfig> = {}) => createNtfyChannel(config(over), { clock: fakeClock(NOW) });
  const signal = new AbortController().signal;

  it('a P1 page rings at priority 5 with Acknowledge and Resolve buttons that POST the person\'s links', async () => {
    const result = await channel().send(opening, signal);
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.match(result.ok ? result.detail.ntfyId ?? '' : '', /^[\w-]{12}$/);
    const [p] = ntfy.publishes;
    assert.ok(p);
    assert.equal(p.topic, 'alice-7f3k2q');
    assert.equal(p.status, 200);
    assert.equal(p.body, opening.text);
    assert.equal(p.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(p.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(p.headers.title, '[P1] HighLatency on api-1');
    assert.equal(p.headers.priority, '5');
    assert.equal(p.headers.tags, 'rotating_light,P1');
    assert.equal(p.headers.actions, `http, Acknowledge, ${ACK}, method=POST, clear=true; http, Resolve, ${RESOLVE}, method=POST, clear=true`);
    assert.equal(p.headers.click, undefined, 'no console URL is known: no Click');
    assert.deepEqual(p.actions, [
      { action: 'http', label: 'Acknowledge', url: ACK, method: 'POST', clear: true },
      { action: 'http', label: 'Resolve', url: RESOLVE, method: 'POST', clear: true },
    ]);
    assert.equal(p.priority, 5);
  });

  it('a page opened, acknowledged and resolved: the title apart, what is wrong in the body, buttons only for what still makes sense (§24.1)', async () => {
    const story = pageStory('push', 'alice-7f3k2q', { links: true });
    const ch = channel();
    for (const m of [story.opened, story.acknowledged, story.resolved]) assert.equal((await ch.send(m, signal)).ok, true);
    const what = 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)\nInstance: api-1\n'
      + 'Runbook: https://runbooks.example.com/checkout\nSource: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1\n';
    assert.deepEqual(ntfy.publishes.map((p) => [p.headers.title, p.headers.priority, p.headers.tags, p.headers.actions, p.body]), [
      ['[P1] CheckoutErrors on api-1', '5', 'rotating_light,P1',
        `http, Acknowledge, ${STORY_LINKS.ack}, method=POST, clear=true; http, Resolve, ${STORY_LINKS.resolve}, method=POST, clear=true`,
        `${what}Page p7xq2m4k9a opened.\nPaged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)`],
      ['[P1] CheckoutErrors on api-1', '2', 'eyes,P1', `http, Resolve, ${STORY_LINKS.resolve}, method=POST, clear=true`,
        `${what}Page p7xq2m4k9a acknowledged by alice.`],
      ['[P1] CheckoutErrors on api-1', '2', 'white_check_mark,P1', undefined, `${what}Page p7xq2m4k9a resolved by source.`],
    ]);
  });

  it('a page without links has no buttons: its body ends with the command to type', async () => {
    await channel().send(pageStory('push', 'alice-7f3k2q').opened, signal);
    assert.equal(ntfy.publishes[0]?.headers.actions, undefined);
    assert.match(ntfy.publishes[0]?.body ?? '', /\(in 5m\)\nsvc ack p7xq2m4k9a$/);
  });

  it('P2 is 4 and P3 3; an acknowledgement, a resolution and a join after the ack are status updates at 2, which make no sound', async () => {
    const ch = channel();
    await ch.send({ ...opening, severity: 'P2', links: undefined }, signal);
    await ch.send({ ...opening, severity: 'P3', links: undefined }, signal);
    await ch.send({ ...opening, pageKind: 'acknowledged', links: undefined, text: 'Page p3k9x2mfq was acknowledged by alice.' }, signal);
    await ch.send({ ...opening, pageKind: 'resolved', status: 'resolved', links: undefined }, signal);
    await ch.send({ ...opening, pageKind: 'unacknowledged', links: undefined }, signal);
    await ch.send({ ...opening, pageKind: 'joined-acked', links: undefined }, signal);
    assert.deepEqual(ntfy.publishes.map((p) => [p.priority, p.headers.tags, p.headers.actions]), [
      [4, 'warning,P2', undefined], [3, 'information_source,P3', undefined], [2, 'eyes,P1', undefined], [2, 'white_check_mark,P1', undefined],
      [5, 'rotating_light,P1', undefined], [2, 'heavy_plus_sign,P1', undefined],
    ]);
  });

  it('a title beyond ASCII travels as RFC 2047 encoded-words that ntfy decodes back; newlines in it become spaces', async () => {
    const title = 'Überlast auf Knoten „süd-1“ — 98 % CPU 🔥 seit 10 Minuten, Warteschlange wächst\nweiter';
    await channel().send({ ...opening, title }, signal);
    const [p] = ntfy.publishes;
    assert.match(String(p?.headers.title), /^[\x20-\x7e]+$/);
    assert.ok(String(p?.headers.title).split(' ').every((w) => w.length <= 75), 'each encoded-word at most 75 characters (RFC 2047 §2)');
    assert.equal(p?.title, `[P1] ${title.replace('\n', ' ')}`);
    assert.equal(encodeHeaderText('plain ASCII'), 'plain ASCII');
  });

  it('a message over ntfy\'s 4,096 bytes is cut so it stays a message, not an attachment', async () => {
    await channel().send({ ...opening, text: 'ü'.repeat(3000) }, signal);
    const [p] = ntfy.publishes;
    assert.equal(p?.attachment, false);
    assert.ok(Buffer.byteLength(p?.body ?? '') <= NTFY_MAX_BODY_BYTES);
    assert.ok(p?.body.endsWith('ü…'));
  });

  it('a message naming nobody goes to the channel\'s topic; without one it is given up at once', async () => {
    const { to: _to, ...toNobody } = opening;
    assert.equal((await channel({ topic: 'ops-room' }).send(toNobody, signal)).ok, true);
    assert.equal(ntfy.publishes[0]?.topic, 'ops-room');
    assert.deepEqual(await channel().send(toNobody, signal),
      { ok: false, retryable: false, error: 'ntfy: the message names no person and channel push has no topic of its own' });
  });

  it('429 and 5xx are retried (Retry-After honoured) with ntfy\'s code; a refused token is given up, the token never shown', async () => {
    ntfy.failNext.push({ status: 429 }, { status: 503, retryAfter: '7' });
    const ch = channel();
    assert.deepEqual(await ch.send(opening, signal), { ok: false, retryable: true, error: 'ntfy 429 (42901): limit reached: too many requests' });
    assert.deepEqual(await ch.send(opening, signal), { ok: false, retryable: true, error: 'ntfy 503 (50300): error', retryAfterMs: 7000 });
    assert.equal(ch.ready(), false);
    assert.equal((await ch.send(opening, signal)).ok, true);
    assert.equal(ch.ready(), true);
    const wrong = channel({ token: 'tk_wrong' });
    assert.deepEqual(await wrong.send(opening, signal), { ok: false, retryable: false, error: 'ntfy 401 (40101): unauthorized' });
    assert.equal(wrong.ready(), false, 'a refused token: not ready');
  });

  it('an unreachable server is a retryable network error that does not quote the token', async () => {
    const down = await startFakeNtfy();
    await down.close();
    const result = await createNtfyChannel(ntfyChannelSchema.parse({ id: 'push', type: 'ntfy', direction: 'outbound', server: down.url, token: TOKEN }),
      { clock: fakeClock(NOW) }).send(opening, signal);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.retryable && result.error.startsWith('ntfy: network error: connect ECONNREFUSED'), JSON.stringify(result));
    assert.ok(!JSON.stringify(result).includes(TOKEN));
  });
});
