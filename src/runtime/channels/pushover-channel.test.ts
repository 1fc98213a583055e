import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pushoverChannelSchema } from '../../config/schema.js';
import type { PushoverChannelConfig } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { FakePushover } from '../../../test/support/fake-pushover.js';
import { startFakePushover } from '../../../test/support/fake-pushover.js';
import type { OutboundMessage } from './channel.js';
import { createPushoverChannel } from './pushover-channel.js';
import { STORY_LINKS, pageStory } from '../../../test/support/page-messages.js';

/** A canary application token: it must never appear in a result. */
const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzCanry';
const ALICE = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const TEAM = 'gznej3rKEVAvPUxu9vvNnqpmZpokzF';
const NOW = Date.parse('2026-11-21T03:12:00.000Z');
const ACK = 'https://svc.example.com/ack/v1.eyJhIjoxfQ.AAAA';
const RESOLVE = 'https://svc.example.com/ack/v1.eyJyIjoxfQ.BBBB';
const opening: OutboundMessage = {
  eventId: 'evt-7', agentId: 'oncall', severity: 'P1', status: 'firing', title: 'HighLatency on api-1',
  text: '[P1] HighLatency on api-1\nPage p3k9x2mfq opened (step 1 of 2).', triagedBy: 'oncall', deliveryId: 'p3k9x2mfq.1.alice.pushover',
  attempt: 1, to: ALICE, pageId: 'p3k9x2mfq', pageKind: 'escalation', links: { ack: ACK, resolve: RESOLVE },
};

describe('pushover channel against a local Pushover API', () => {
  let po: FakePushover;
  const clock = fakeClock(NOW);
  before(async () => { po = await startFakePushover({ token: TOKEN, users: [ALICE, TEAM], now: () => clock.now() }); });
  after(() => po.close());
  beforeEach(() => { po.messages.length = 0; po.polls.length = 0; po.cancels.length = 0; po.failNext.length = 0; });
  const config = (over: Partial<PushoverChannelConfig> = {}): PushoverChannelConfig => ({
    ...pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound', token: TOKEN, apiUrl: `${po.apiUrl}/` }), ...over });
  const channel = (over: Partial<PushoverChannelConfig> = {}) => createPushoverChannel(config(over), { clock });
  const signal = new AbortController().signal;

  it('a P1 page to a person goes out at emergency priority with retry and expire; its receipt comes back with the delivery', async () => {
    const result = await channel({ retry: 45, expire: 1800 }).send(opening, signal);
    const [m] = po.messages;
    assert.ok(m);
    assert.deepEqual(m.form, { token: TOKEN, user: ALICE, title: '[P1] HighLatency on api-1', message: `${opening.text}\n\nResolve: ${RESOLVE}`,
      priority: '2', retry: '45', expire: '1800', url: ACK, url_title: 'Acknowledge' });
    assert.equal(m.status, 200);
    assert.ok(result.ok);
    assert.deepEqual(result.receipt, { id: m.receipt, expiresAtMs: NOW + 1_800_000 });
    assert.equal(result.detail.receipt, m.receipt);
    assert.match(result.detail.request ?? '', /^[0-9a-f-]{36}$/);
  });

  it('a page opened, acknowledged and resolved: exact forms, the first action that still makes sense as the URL (§24.1)', async () => {
    const story = pageStory('pushover', ALICE, { links: true });
    const ch = channel();
    for (const m of [story.opened, story.acknowledged, story.resolved]) assert.equal((await ch.send(m, signal)).ok, true);
    const what = 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)\nInstance: api-1\n'
      + 'Runbook: https://runbooks.example.com/checkout\nSource: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1\n';
    const base = { token: TOKEN, user: ALICE, title: '[P1] CheckoutErrors on api-1' };
    assert.deepEqual(po.messages.map((m) => m.form), [
      { ...base, message: `${what}Page p7xq2m4k9a opened.\nPaged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)\nResolve: ${STORY_LINKS.resolve}`,
        priority: '2', retry: '60', expire: '3600', url: STORY_LINKS.ack, url_title: 'Acknowledge' },
      { ...base, message: `${what}Page p7xq2m4k9a acknowledged by alice.`, priority: '-1', url: STORY_LINKS.resolve, url_title: 'Resolve' },
      { ...base, message: `${what}Page p7xq2m4k9a resolved by source.`, priority: '-1' },
    ]);
  });

  it('P2 is high (1), P3 normal (0), a status update quiet (-1); a P1 that is no page\'s, no person\'s or a join is high, without a receipt', async () => {
    const ch = channel({ user: TEAM });
    const { to: _to, ...toTheChannel } = opening;
    const { pageId: _p, pageKind: _k, links: _l, ...noPage } = opening;
    const sent = [
      await ch.send({ ...opening, severity: 'P2' }, signal),
      await ch.send({ ...opening, severity: 'P3' }, signal),
      await ch.send({ ...opening, pageKind: 'acknowledged', links: undefined }, signal),
      await ch.send({ ...opening, pageKind: 'resolved', status: 'resolved', links: undefined }, signal),
      await ch.send(noPage, signal),
      await ch.send(toTheChannel, signal),
      await ch.send({ ...opening, pageKind: 'join' }, signal),
      await ch.send({ ...opening, pageKind: 'joined-acked', links: undefined }, signal),
    ];
    assert.deepEqual(po.messages.map((m) => [m.form.priority, m.form.retry, m.form.user]), [
      ['1', undefined, ALICE], ['0', undefined, ALICE], ['-1', undefined, ALICE], ['-1', undefined, ALICE], ['1', undefined, ALICE],
      ['1', undefined, TEAM], ['1', undefined, ALICE], ['-1', undefined, ALICE]]);
    assert.ok(sent.every((r) => r.ok && r.receipt === undefined));
  });

  it('keeps to Pushover\'s limits: a message cut to 1,024 characters with the resolve link whole, a title to 250, an ack link over 512 below the text', async () => {
    const longAck = `https://svc.example.com/ack/${'a'.repeat(520)}`;
    await channel().send({ ...opening, title: 'ü'.repeat(300), text: 'x'.repeat(2000), links: { ack: longAck, resolve: RESOLVE } }, signal);
    const [m] = po.messages;
    assert.equal(m?.status, 200, JSON.stringify(m));
    assert.equal([...(m?.form.message ?? '')].length, 1024);
    assert.ok(m?.form.message?.endsWith(`…\n\nAcknowledge: ${longAck}\nResolve: ${RESOLVE}`));
    assert.equal([...(m?.form.title ?? '')].length, 250);
    assert.equal(m?.form.url, undefined);
  });

  it('Pushover\'s refusals are given up with its own words (a bad expire, a wrong user); a refused token leaves the channel not ready, unquoted', async () => {
    const tooLong = await channel({ expire: 20_000 }).send(opening, signal);
    assert.deepEqual(tooLong, { ok: false, retryable: false, error: 'pushover 400: expire must be at most 10800 seconds' });
    const stranger = await channel().send({ ...opening, to: 'uNobodyNobodyNobodyNobody00000' }, signal);
    assert.deepEqual(stranger, { ok: false, retryable: false,
      error: 'pushover 400: user identifier is not a valid user, group, or subscribed user key, see https://pushover.net/api#identifiers' });
    const wrong = channel({ token: 'aWrongTokenWrongTokenWrongToke' });
    assert.deepEqual(await wrong.send(opening, signal),
      { ok: false, retryable: false, error: 'pushover 400: application token is invalid, see https://pushover.net/api' });
    assert.equal(wrong.ready(), false);
    assert.ok(po.messages.every((m) => m.status === 400));
  });

  it('429 (over the monthly quota) and 5xx are retried, Retry-After honoured; the token is never in a result', async () => {
    po.failNext.push({ status: 429, retryAfter: '60' }, { status: 500 });
    const ch = channel();
    assert.deepEqual(await ch.send(opening, signal),
      { ok: false, retryable: true, error: 'pushover 429: application is over its monthly message limit', retryAfterMs: 60_000 });
    assert.deepEqual(await ch.send(opening, signal), { ok: false, retryable: true, error: 'pushover 500: internal error, please try again' });
    assert.equal(ch.ready(), false);
    assert.equal((await ch.send(opening, signal)).ok, true);
    assert.equal(ch.ready(), true);
  });

  it('asks about a receipt and cancels it, as Pushover answers: pending, acknowledged by a device, cancelled, unknown', async () => {
    const ch = channel();
    const sent = await ch.send(opening, signal);
    const receipt = sent.ok ? sent.receipt?.id ?? '' : '';
    const api = ch.receipts;
    assert.ok(api);
    assert.deepEqual(await api.poll(receipt, signal), { kind: 'pending' });
    clock.advance(20_000);
    po.acknowledge(receipt, 'alice-iphone');
    assert.deepEqual(await api.poll(receipt, signal), { kind: 'acknowledged', device: 'alice-iphone', atMs: Math.floor(clock.now() / 1000) * 1000 });
    assert.deepEqual(await api.cancel(receipt, signal), { kind: 'cancelled' });
    assert.deepEqual(await api.poll('r0000000000000000000000000000x', signal),
      { kind: 'gone', error: 'pushover receipt 400: receipt not found; may be invalid or expired' });
    assert.deepEqual(await api.cancel('r0000000000000000000000000000x', signal),
      { kind: 'gone', error: 'pushover cancel 400: receipt not found; may be invalid or expired' });
    assert.deepEqual(po.polls.map((p) => p.receipt), [receipt, receipt, 'r0000000000000000000000000000x']);
  });

  it('an expired receipt says so; a refused token or a 5xx is a failure to ask again, not the receipt\'s end', async () => {
    const ch = channel({ expire: 60, retry: 30 });
    const sent = await ch.send(opening, signal);
    const receipt = sent.ok ? sent.receipt?.id ?? '' : '';
    clock.advance(61_000);
    assert.deepEqual(await ch.receipts?.poll(receipt, signal), { kind: 'expired' });
    assert.deepEqual(await channel({ token: 'aWrongTokenWrongTokenWrongToke' }).receipts?.poll(receipt, signal),
      { kind: 'failed', error: 'pushover receipt 400: application token is invalid, see https://pushover.net/api' });
    po.failNext.push({ status: 503, retryAfter: '5' });
    assert.deepEqual(await ch.receipts?.poll(receipt, signal), { kind: 'failed', error: 'pushover receipt 503: internal error, please try again', retryAfterMs: 5000 });
  });

  it('an unreachable API is a retryable network error, and a poll\'s failure never shows its URL (the token is in it)', async () => {
    const down = await startFakePushover({ token: TOKEN, users: [ALICE] });
    await down.close();
    const ch = createPushoverChannel({ ...config(), apiUrl: down.apiUrl }, { clock });
    const sent = await ch.send(opening, signal);
    const polled = await ch.receipts?.poll('r0000000000000000000000000000x', signal);
    assert.ok(!sent.ok && sent.retryable && sent.error.startsWith('pushover: network error: connect ECONNREFUSED'), JSON.stringify(sent));
    assert.equal(polled?.kind, 'failed');
    assert.ok(!JSON.stringify([sent, polled]).includes(TOKEN));
  });
});
