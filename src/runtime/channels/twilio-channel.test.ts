/**
 * The twilio channel against a local server that speaks Twilio's REST API (test/support/fake-twilio.ts):
 * the exact request of an SMS and of a call, Twilio's error JSON given up with its code, 429 and 5xx
 * retried (Retry-After honoured), the auth token in no result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeTwilio } from '../../../test/support/fake-twilio.js';
import { startFakeTwilio } from '../../../test/support/fake-twilio.js';
import { twilioChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import { readCallToken } from '../../oncall/call-token.js';
import { smsReplyCode } from '../../oncall/sms-reply.js';
import type { Channel, OutboundMessage } from './channel.js';
import { createTwilioChannel } from './twilio-channel.js';
import { STORY_LINKS, STORY_PAGE, pageStory } from '../../../test/support/page-messages.js';

const PAGE = 'p0a1b2c3d4e5f';
const ALICE = '+4915112345678';
const message: OutboundMessage = { eventId: 'e1', agentId: 'ops', severity: 'P1', status: 'firing', title: 'Disk full on db-1', triagedBy: 'oncall',
  text: `[P1] Disk full on db-1\nPage ${PAGE} opened (step 1 of 2).\nAcknowledge: svc ack ${PAGE}`, deliveryId: `${PAGE}.1.alice.sms`, attempt: 1,
  to: ALICE, pageId: PAGE, pageKind: 'escalation' };
const signal = new AbortController().signal;

describe('twilio channel (§21.4)', () => {
  let twilio: FakeTwilio;
  const clock = fakeClock(Date.UTC(2026, 10, 21, 3));
  const channel = (over: Record<string, unknown> = {}, source?: { publicUrl: string }): Channel => createTwilioChannel(twilioChannelSchema.parse({
    id: 'sms', type: 'twilio', direction: 'outbound', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006',
    mode: 'sms', apiUrl: twilio.apiUrl, ...over }), { clock, ...(source === undefined ? {} : { source }) });
  before(async () => { twilio = await startFakeTwilio(); });
  after(() => twilio.close());

  it('an SMS: Messages.json, form-encoded, Basic auth, the page with its reply code; delivered with Twilio\'s sid', async () => {
    const result = await channel({}, { publicUrl: 'https://svc.example.com/twilio' }).send(message, signal);
    assert.ok(result.ok, JSON.stringify(result));
    const sent = twilio.messages().at(-1);
    assert.equal(sent?.path, `/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`);
    assert.equal(sent?.auth, `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`);
    assert.equal(sent?.contentType, 'application/x-www-form-urlencoded');
    const code = smsReplyCode(twilio.authToken, 'ops', PAGE, ALICE);
    const body = `svc P1: Disk full on db-1 - reply 4${code} ack, 6${code} resolve`;
    assert.equal(sent?.raw, new URLSearchParams({ To: ALICE, From: '+15005550006', Body: body }).toString());
    assert.deepEqual(result.detail, { sid: sent?.reply.body.sid });
    assert.match(String(result.detail.sid), /^SM[0-9a-f]{32}$/);
  });

  it('a page opened, acknowledged and resolved by SMS: the summary first, one part each, exact bodies (§24.1)', async () => {
    const story = pageStory('sms', ALICE, { links: true });
    const ch = channel({}, { publicUrl: 'https://svc.example.com/twilio' });
    const before = twilio.messages().length;
    for (const m of [story.opened, story.acknowledged, story.resolved]) assert.ok((await ch.send(m, signal)).ok);
    const code = smsReplyCode(twilio.authToken, 'shop', STORY_PAGE, ALICE);
    const summary = 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge]';
    assert.deepEqual(twilio.messages().slice(before).map((r) => r.form.Body), [
      `svc P1: ${summary}(http... - reply 4${code} ack, 6${code} resolve ${STORY_LINKS.ack}`,
      `svc P1: ${summary}(https://evil.example/) - CheckoutErrors o... - Page p7xq2m4k9a acknowledged by alice.`,
      `svc P1: ${summary}(https://evil.example/) - CheckoutErrors on a... - Page p7xq2m4k9a resolved by source.`,
    ]);
  });

  it('an SMS channel no source serves: no codes (nobody could take the reply)', async () => {
    assert.ok((await channel().send(message, signal)).ok);
    assert.equal(twilio.messages().at(-1)?.form.Body, `svc P1: Disk full on db-1 - svc ack ${PAGE}`);
  });

  it('a call: Calls.json with Url and StatusCallback on the source, the token saying what to ask', async () => {
    const result = await channel({ id: 'phone', mode: 'voice' }, { publicUrl: 'https://svc.example.com/twilio/' }).send(message, signal);
    assert.ok(result.ok, JSON.stringify(result));
    const call = twilio.calls().at(-1);
    assert.equal(call?.path, `/2010-04-01/Accounts/${twilio.accountSid}/Calls.json`);
    assert.deepEqual(Object.keys(call?.form ?? {}), ['To', 'From', 'Url', 'StatusCallback']);
    const token = /^https:\/\/svc\.example\.com\/twilio\/voice\/(c1\.[A-Za-z0-9_-]+)$/.exec(call?.form.Url ?? '')?.[1] ?? '';
    assert.equal(call?.form.StatusCallback, `https://svc.example.com/twilio/status/${token}`);
    assert.deepEqual(readCallToken(token), { deliveryId: `${PAGE}.1.alice.sms`, pageId: PAGE, severity: 'P1', title: 'Disk full on db-1', note: null });
    assert.match(String(result.detail.sid), /^CA[0-9a-f]{32}$/);
  });

  it('a call about a page message carries what is wrong, to be spoken without links (§24.1)', async () => {
    const story = pageStory('phone', ALICE);
    assert.ok((await channel({ id: 'phone', mode: 'voice' }, { publicUrl: 'https://svc.example.com/twilio' }).send(story.opened, signal)).ok);
    const token = /\/voice\/(c1\.[A-Za-z0-9_-]+)$/.exec(twilio.calls().at(-1)?.form.Url ?? '')?.[1] ?? '';
    assert.equal(readCallToken(token)?.summary, 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge]');
  });

  it('Twilio\'s error JSON: given up with its code; bad credentials make the channel not ready; the token is in no result', async () => {
    const wrong = createTwilioChannel(twilioChannelSchema.parse({ id: 'sms', type: 'twilio', direction: 'outbound', accountSid: twilio.accountSid,
      authToken: '0'.repeat(32), from: '+15005550006', mode: 'sms', apiUrl: twilio.apiUrl }), { clock });
    const denied = await wrong.send(message, signal);
    assert.deepEqual(denied, { ok: false, retryable: false, error: 'twilio Messages: 401 20003: Authenticate' });
    assert.equal(wrong.ready(), false);
    const bad = await channel().send({ ...message, to: '015112345678' }, signal);
    assert.deepEqual(bad, { ok: false, retryable: false, error: 'twilio Messages: 400 21211: Invalid \'To\' Phone Number: 015112345678' });
    twilio.replies.push({ status: 400, body: { code: 20001, message: `echo ${twilio.authToken}`, more_info: 'x', status: 400 } });
    const echoed = await channel().send(message, signal);
    assert.ok(!echoed.ok && !echoed.error.includes(twilio.authToken) && echoed.error.includes('[redacted]'), JSON.stringify(echoed));
  });

  it('429 waits Retry-After, 5xx is retried; the channel is ready again once a message goes through', async () => {
    const ch = channel();
    twilio.replies.push({ status: 429, headers: { 'Retry-After': '3' }, body: { code: 20429, message: 'Too Many Requests', more_info: 'x', status: 429 } });
    assert.deepEqual(await ch.send(message, signal), { ok: false, retryable: true, error: 'twilio Messages: 429 20429: Too Many Requests', retryAfterMs: 3000 });
    twilio.replies.push({ status: 503, body: { code: 20500, message: 'Internal Server Error', more_info: 'x', status: 503 } });
    assert.deepEqual(await ch.send(message, signal), { ok: false, retryable: true, error: 'twilio Messages: 503 20500: Internal Server Error' });
    assert.equal(ch.ready(), false);
    assert.ok((await ch.send(message, signal)).ok);
    assert.equal(ch.ready(), true);
  });

  it('a message for nobody (no contact, no `to`) is given up at once, saying why', async () => {
    const { to: _to, ...toNobody } = message;
    assert.deepEqual(await channel().send(toNobody, signal), { ok: false, retryable: false,
      error: 'twilio channel sms has no `to`: it sends only to people\'s contacts' });
    assert.ok((await channel({ to: '+4930123456' }).send(toNobody, signal)).ok);
    assert.equal(twilio.messages().at(-1)?.form.To, '+4930123456');
  });
});
