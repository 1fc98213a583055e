/**
 * The telegram channel against a local server that speaks the Bot API (test/support/fake-telegram.ts):
 * the exact sendMessage of a page, its edits in place as the page changes, joins and escalations as
 * replies, a message Telegram lost posted anew, `ok: false` given up with Telegram's code and
 * description, 429 waiting `retry_after`, the token in no result.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeTelegram } from '../../../test/support/fake-telegram.js';
import { failure, startFakeTelegram, tooMany } from '../../../test/support/fake-telegram.js';
import { telegramChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { Channel, OutboundMessage } from './channel.js';
import { createTelegramChannel } from './telegram-channel.js';
import { STORY_PAGE, pageStory } from '../../../test/support/page-messages.js';

const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const PAGE = 'p0a1b2c3d4e5f';
const ALICE = 123456789;
const opened: OutboundMessage = { eventId: 'e1', agentId: 'ops', severity: 'P1', status: 'firing', title: 'Disk *full* <b>db-1</b>', triagedBy: 'oncall',
  text: `[P1] Disk *full* <b>db-1</b> _x_ [y](z)\nPage ${PAGE} opened (step 1 of 2).\nAcknowledge: svc ack ${PAGE}`,
  deliveryId: `${PAGE}.1.alice.tg`, attempt: 1, to: String(ALICE), pageId: PAGE, pageKind: 'escalation' };
const signal = new AbortController().signal;
const buttons = (markup: unknown): string[] => ((markup as { inline_keyboard?: Array<Array<{ callback_data: string }>> } | undefined)?.inline_keyboard ?? [])
  .flat().map((b) => b.callback_data);

describe('telegram channel (§21.5)', () => {
  let tg: FakeTelegram;
  let channel: Channel;
  const clock = fakeClock(Date.UTC(2026, 10, 21, 3));
  before(async () => {
    tg = await startFakeTelegram(TOKEN, { knownChats: [ALICE] });
    channel = createTelegramChannel(telegramChannelSchema.parse({ id: 'tg', type: 'telegram', direction: 'outbound', token: TOKEN, apiUrl: tg.apiUrl }), { clock });
  });
  after(() => tg.close());

  it('a page: sendMessage as plain text (labels are not markup), with its three buttons; the message is remembered by chat and id', async () => {
    const result = await channel.send(opened, signal);
    assert.ok(result.ok, JSON.stringify(result));
    const call = tg.calls.at(-1);
    assert.equal(call?.method, 'sendMessage');
    assert.equal(call?.contentType, 'application/json');
    assert.deepEqual(call?.body, { chat_id: ALICE, text: opened.text, link_preview_options: { is_disabled: true },
      reply_markup: { inline_keyboard: [[{ text: 'Acknowledge', callback_data: `svc:ack:${PAGE}` }, { text: 'Resolve', callback_data: `svc:resolve:${PAGE}` },
        { text: 'Escalate', callback_data: `svc:escalate:${PAGE}` }]] } });
    assert.equal('parse_mode' in (call?.body ?? {}), false);
    const id = Number(result.detail.message_id);
    assert.deepEqual(result.detail, { chat_id: String(ALICE), message_id: String(id) });
    assert.equal(tg.messages.get(id)?.text, opened.text, 'Telegram shows every character as written');
  });

  it('a page opened, acknowledged and resolved: plain text as written, the buttons its one way to act, exact calls (§24.1)', async () => {
    const story = pageStory('tg', String(ALICE), { links: true });
    const from = tg.calls.length;
    const first = await channel.send(story.opened, signal);
    assert.ok(first.ok);
    for (const m of [story.acknowledged, story.resolved]) assert.ok((await channel.send({ ...m, pageMessage: first.detail }, signal)).ok);
    const what = 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge](https://evil.example/)\nInstance: api-1\n'
      + 'Runbook: https://runbooks.example.com/checkout\nSource: http://prometheus.example.com:9090/graph?g0.expr=checkout_5xx&g0.tab=1\n';
    const id = Number(first.detail.message_id);
    const noPreview = { is_disabled: true };
    const key = (a: string, label: string): { text: string; callback_data: string } => ({ text: label, callback_data: `svc:${a}:${STORY_PAGE}` });
    assert.deepEqual(tg.calls.slice(from).map((c) => [c.method, c.body]), [
      ['sendMessage', { chat_id: ALICE, link_preview_options: noPreview,
        text: `[P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a opened.\nPaged: step 1 of 2: alice; next: bob at 03:10 CET (in 5m)`,
        reply_markup: { inline_keyboard: [[key('ack', 'Acknowledge'), key('resolve', 'Resolve'), key('escalate', 'Escalate')]] } }],
      ['editMessageText', { chat_id: ALICE, message_id: id, link_preview_options: noPreview,
        text: `[P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a acknowledged by alice.`, reply_markup: { inline_keyboard: [[key('resolve', 'Resolve')]] } }],
      ['editMessageText', { chat_id: ALICE, message_id: id, link_preview_options: noPreview,
        text: `RESOLVED [P1] CheckoutErrors on api-1\n${what}Page p7xq2m4k9a resolved by source.`, reply_markup: { inline_keyboard: [] } }],
    ]);
  });

  it('the page changes: acknowledged edits the message in place (only Resolve, §24.1); a join replies to it; resolved leaves no buttons', async () => {
    const first = await channel.send(opened, signal);
    assert.ok(first.ok);
    const pageMessage = first.detail;
    const id = Number(pageMessage.message_id);
    const acked = await channel.send({ ...opened, pageKind: 'acknowledged', text: `[P1] Disk full\nPage ${PAGE} was acknowledged by alice.`, pageMessage }, signal);
    assert.deepEqual(acked, { ok: true, detail: pageMessage });
    assert.equal(tg.calls.at(-1)?.method, 'editMessageText');
    assert.deepEqual(buttons(tg.messages.get(id)?.replyMarkup), [`svc:resolve:${PAGE}`]);
    assert.equal(tg.messages.get(id)?.text, `[P1] Disk full\nPage ${PAGE} was acknowledged by alice.`);

    const joined = await channel.send({ ...opened, pageKind: 'join', text: `[P1] Disk full\n2 alerts now on page ${PAGE}.`, pageMessage }, signal);
    assert.ok(joined.ok);
    const reply = tg.messages.get(Number(joined.detail.reply_message_id));
    assert.deepEqual([reply?.replyTo, joined.detail.message_id], [id, String(id)], 'a reply; the page message stays the first');

    const resolved = await channel.send({ ...opened, status: 'resolved', pageKind: 'resolved', text: `RESOLVED [P1] Disk full\nPage ${PAGE} was resolved by bob.`,
      pageMessage }, signal);
    assert.ok(resolved.ok);
    assert.deepEqual(buttons(tg.messages.get(id)?.replyMarkup), []);
    assert.equal(tg.messages.get(id)?.edits, 2);
  });

  it('an escalation edits and replies (an edit notifies nobody); a message Telegram lost is posted anew; an edit into the same text is no failure', async () => {
    const first = await channel.send(opened, signal);
    assert.ok(first.ok);
    const escalated = await channel.send({ ...opened, text: `${opened.text}\nescalated`, pageMessage: first.detail }, signal);
    assert.ok(escalated.ok && escalated.detail.reply_message_id !== undefined);
    assert.deepEqual(tg.calls.slice(-2).map((c) => c.method), ['editMessageText', 'sendMessage']);
    const same = await channel.send({ ...opened, pageKind: 'acknowledged', text: `${opened.text}\nescalated`, pageMessage: first.detail }, signal);
    assert.ok(same.ok, 'twice the same acknowledged edit');
    const again = await channel.send({ ...opened, pageKind: 'acknowledged', text: `${opened.text}\nescalated`, pageMessage: first.detail }, signal);
    assert.ok(again.ok, JSON.stringify(again));
    assert.match(String(tg.calls.at(-1)?.reply.body.description), /message is not modified/);
    const lost = await channel.send({ ...opened, pageKind: 'acknowledged', pageMessage: { chat_id: String(ALICE), message_id: '99999' } }, signal);
    assert.ok(lost.ok);
    assert.notEqual(lost.detail.message_id, '99999');
    assert.deepEqual(tg.calls.slice(-2).map((c) => [c.method, c.reply.status]), [['editMessageText', 400], ['sendMessage', 200]]);
  });

  it('ok: false is given up with Telegram\'s code and description; 429 waits retry_after; 5xx is retried', async () => {
    assert.deepEqual(await channel.send({ ...opened, to: '987654321' }, signal), { ok: false, retryable: false,
      error: 'telegram sendMessage: 400: Bad Request: chat not found' });
    tg.script('sendMessage', failure(403, 'Forbidden: bot was blocked by the user'));
    assert.deepEqual(await channel.send(opened, signal), { ok: false, retryable: false, error: 'telegram sendMessage: 403: Forbidden: bot was blocked by the user' });
    tg.script('sendMessage', tooMany(7));
    assert.deepEqual(await channel.send(opened, signal), { ok: false, retryable: true, error: 'telegram sendMessage: 429: Too Many Requests: retry after 7',
      retryAfterMs: 7000 });
    tg.script('sendMessage', failure(502, 'Bad Gateway'));
    assert.deepEqual(await channel.send(opened, signal), { ok: false, retryable: true, error: 'telegram sendMessage: 502: Bad Gateway' });
    assert.equal(channel.ready(), false);
    assert.ok((await channel.send(opened, signal)).ok);
    assert.equal(channel.ready(), true);
  });

  it('another token is 401: not ready, and the token is in no result; a text over 4096 characters is cut', async () => {
    const wrong = createTelegramChannel(telegramChannelSchema.parse({ id: 'tg', type: 'telegram', direction: 'outbound',
      token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsXX', apiUrl: tg.apiUrl }), { clock });
    const denied = await wrong.send(opened, signal);
    assert.deepEqual(denied, { ok: false, retryable: false, error: 'telegram sendMessage: 401: Unauthorized' });
    assert.equal(wrong.ready(), false);
    const long = await channel.send({ ...opened, text: `${'x'.repeat(5000)}` }, signal);
    assert.ok(long.ok, JSON.stringify(long));
    assert.equal(tg.messages.get(Number(long.detail.message_id))?.text.length, 4096);
  });

  it('a message for nobody (no contact, no `chat`) is given up at once, saying why', async () => {
    const { to: _to, ...toNobody } = opened;
    assert.deepEqual(await channel.send(toNobody, signal), { ok: false, retryable: false,
      error: 'telegram channel tg has no `chat`: it sends only to people\'s contacts' });
  });
});
