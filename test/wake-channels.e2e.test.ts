/**
 * Twilio and Telegram against the built daemon (contract §21.4, §21.5): local servers speak Twilio's
 * REST API and calls back as Twilio does (signed), and the Telegram Bot API with its long poll. alice's
 * contacts are an SMS number, a phone and a Telegram chat; every page reaches all three. A Telegram
 * press acknowledges one page (`via: telegram`) and its message is edited in place; a stranger's press
 * is refused and audited. An SMS `4<code>` acknowledges another (`via: sms`). A forged signature is 403
 * and changes nothing; on a third page's call, the key 6 resolves it (`via: voice`). No secret reaches
 * a log.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { FakeTelegram, SentMessage } from './support/fake-telegram.js';
import { startFakeTelegram } from './support/fake-telegram.js';
import type { FakeTwilio } from './support/fake-twilio.js';
import { startFakeTwilio } from './support/fake-twilio.js';
import { freePort, postWebhook, sign } from './support/http.js';
import { aliceOnlyYaml, alertInGroup } from './support/oncall-yaml.js';
import { auditRows, queryStore } from './support/store.js';
import { runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const PHONE = '+4915112345678';
const CHAT = 123456789;
const TWILIO_NUMBER = '+15005550006';

describe('waking a person e2e: Twilio SMS and voice, Telegram', () => {
  const t = tempEnv();
  let twilio: FakeTwilio | null = null;
  let tg: FakeTelegram | null = null;
  const stops: string[] = [];
  after(async () => {
    for (const dir of stops) await runSvc(['down'], { env: t.env, cwd: dir });
    await twilio?.close();
    await tg?.close();
    t.cleanup();
  });

  it('a Telegram press acks (message edited), a stranger is refused; SMS 4<code> acks; a forged call is 403; the call\'s 6 resolves', async () => {
    const tw = await startFakeTwilio();
    twilio = tw;
    const bot = await startFakeTelegram(TG_TOKEN, { knownChats: [CHAT] });
    tg = bot;
    const a = await scaffoldAgent(t, 'wake');
    writeFileSync(join(a.dir, 'oncall.yaml'), aliceOnlyYaml(`sms: "${PHONE}", phone: "${PHONE}", tg: "${CHAT}"`));
    const twilioChannel = (id: string, mode: string): string[] => [`  - id: ${id}`, '    type: twilio', '    direction: outbound',
      `    accountSid: ${tw.accountSid}`, '    authToken: ${env:TWILIO_AUTH_TOKEN}', `    from: "${TWILIO_NUMBER}"`, `    mode: ${mode}`, `    apiUrl: ${tw.apiUrl}`];
    appendFileSync(join(a.dir, 'channels.yaml'), [...twilioChannel('sms', 'sms'), ...twilioChannel('phone', 'voice'),
      '  - id: tg', '    type: telegram', '    direction: outbound', '    token: ${env:TELEGRAM_BOT_TOKEN}', `    apiUrl: ${bot.apiUrl}`, ''].join('\n'));
    const [smsPort, phonePort] = [await freePort(), await freePort()];
    const smsBase = `http://127.0.0.1:${smsPort}`;
    appendFileSync(join(a.dir, 'event-sources.yaml'), [`  - { id: twilio-sms, type: twilio, port: ${smsPort}, publicUrl: "${smsBase}", channel: sms }`,
      `  - { id: twilio-phone, type: twilio, port: ${phonePort}, publicUrl: "http://127.0.0.1:${phonePort}", channel: phone }`, ''].join('\n'));
    const env = { ...t.env, TWILIO_AUTH_TOKEN: tw.authToken, TELEGRAM_BOT_TOKEN: TG_TOKEN };
    const check = await runSvc(['check'], { env, cwd: a.dir });
    assert.equal(check.code, 0, check.stderr);
    const up = await runSvc(['up', '-d'], { env, cwd: a.dir });
    assert.equal(up.code, 0, up.stderr);
    stops.push(a.dir);

    const pageState = (id: string): { state: string } | undefined => queryStore<{ state: string }>(t.home, 'SELECT state FROM pages WHERE id = ?', id)[0];
    const rowsOf = (kind: string, pageId: string) => auditRows(t.home).filter((r) => r.kind === kind && r.data.pageId === pageId);
    const alert = async (group: string): Promise<void> => {
      const body = alertInGroup(a.fixture, group);
      assert.equal((await postWebhook(a.url, body, { 'X-Signature': sign(a.secret, body), 'X-Alert-Fingerprint': group })).status, 202);
    };
    /** The page's Telegram message: posted with its three buttons; the page id is in their callback_data. */
    const telegramMessage = (n: number): Promise<SentMessage> => waitFor(`telegram message ${n}`, () => [...bot.messages.values()]
      .filter((m) => m.replyTo === null)[n - 1]);
    const pageOf = (m: SentMessage): string => /^svc:ack:(p[a-z0-9]+)$/.exec(String((m.replyMarkup as { inline_keyboard: Array<Array<{ callback_data: string }>> })
      .inline_keyboard[0]?.[0]?.callback_data))?.[1] ?? '';

    // 1. Telegram: alice's press acknowledges; the message is edited in place (Resolve, Escalate); a stranger's press changes nothing.
    await alert('wake-telegram');
    const first = await telegramMessage(1);
    const page1 = pageOf(first);
    assert.match(page1, /^p[a-z0-9]{12}$/);
    assert.equal(first.chatId, CHAT);
    const stranger = bot.press({ userId: 555, chatId: CHAT, messageId: first.messageId, data: `svc:ack:${page1}` });
    await waitFor('the stranger answered', () => bot.calls.find((c) => c.method === 'answerCallbackQuery' && c.body.callback_query_id === stranger));
    assert.deepEqual(rowsOf('page.ack-refused', page1).map((r) => [r.actor, r.data]), [['telegram:555',
      { pageId: page1, via: 'telegram', user: '555', action: 'ack', reason: 'unknown-user' }]]);
    assert.equal(pageState(page1)?.state, 'triggered');
    const press = bot.press({ userId: CHAT, chatId: CHAT, messageId: first.messageId, data: `svc:ack:${page1}` });
    await waitFor('alice acknowledged', () => pageState(page1)?.state === 'acknowledged');
    assert.deepEqual(rowsOf('page.acknowledged', page1).map((r) => [r.actor, r.data.by, r.data.via]), [[`telegram:${CHAT}`, 'alice', 'telegram']]);
    const told = await waitFor('the press answered', () => bot.calls.find((c) => c.method === 'answerCallbackQuery' && c.body.callback_query_id === press));
    assert.deepEqual(told.body, { callback_query_id: press, text: 'Acknowledged.' });
    await waitFor('the message edited in place', () => first.edits > 0);
    assert.ok(first.text.startsWith('[P1] ') && first.text.endsWith(`\nPage ${page1} acknowledged by alice.`), first.text);
    assert.deepEqual((first.replyMarkup as { inline_keyboard: Array<Array<{ text: string }>> }).inline_keyboard.flat().map((b) => b.text), ['Resolve']);

    // 2. SMS: the page's text carries its code; alice's reply 4<code> acknowledges it.
    await alert('wake-sms');
    const page2 = pageOf(await telegramMessage(2));
    // Page 1's ack was told on her SMS too (§24.1: a text does not ring): the second page's SMS is the second that asks for a reply.
    const sms2 = await waitFor('the second page\'s SMS', () => tw.messages().filter((m) => / - reply 4\d{6} ack/.test(m.form.Body ?? ''))[1]);
    assert.ok(tw.messages().some((m) => m.form.Body?.startsWith('svc P1: ') === true && m.form.Body.includes(`Page ${page1} acknowledged by alice.`)),
      'the ack of page 1 told on her SMS');
    assert.equal(sms2.form.To, PHONE);
    const code = /^svc P1: .+ - reply 4(\d{6}) ack, 6\1 resolve$/.exec(sms2.form.Body ?? '')?.[1];
    assert.ok(code !== undefined, sms2.form.Body);
    const replied = await tw.sms(`${smsBase}/sms`, PHONE, TWILIO_NUMBER, `4${code}`);
    assert.equal(replied.status, 200);
    assert.match(replied.body, new RegExp(`<Message>svc: page ${page2} acknowledged by alice: `));
    assert.equal(pageState(page2)?.state, 'acknowledged', 'committed before the answer');
    assert.deepEqual(rowsOf('page.acknowledged', page2).map((r) => [r.actor, r.data.via]), [[`sms:${PHONE}`, 'sms']]);

    // 3. Voice: a forged signature is 403 and changes nothing; the call's key 6 resolves the page.
    await alert('wake-voice');
    const page3 = pageOf(await telegramMessage(3));
    const call = await waitFor('the third page\'s call', () => tw.calls()[2]);
    assert.equal(call.form.To, PHONE);
    const forged = await tw.post(call.form.Url ?? '', { CallSid: String(call.reply.body.sid), To: PHONE, From: TWILIO_NUMBER, Digits: '6' },
      'AAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    assert.equal(forged.status, 403);
    const smsForged = await tw.post(`${smsBase}/sms`, { From: PHONE, To: TWILIO_NUMBER, Body: '6000000' }, 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    assert.equal(smsForged.status, 403);
    assert.equal(pageState(page3)?.state, 'triggered');
    const asked = await tw.answer(call);
    assert.match(asked.body, /<Gather input="dtmf" numDigits="1"[^>]*><Say>This is svc, priority 1: .+ Press 4 to acknowledge, 6 to resolve\.<\/Say><\/Gather>/);
    const done = await tw.press(call, asked.body, '6');
    assert.match(done.body, /<Say>Resolved\. Goodbye\.<\/Say><Hangup\/>/);
    assert.equal(pageState(page3)?.state, 'resolved');
    assert.deepEqual(rowsOf('page.resolved', page3).map((r) => [r.actor, r.data.by, r.data.via]), [[`voice:${PHONE}`, 'alice', 'voice']]);
    assert.equal(rowsOf('page.acknowledged', page3).length + rowsOf('page.ack-refused', page3).length, 0, 'the forgeries did nothing');

    const log = readFileSync(join(t.home, 'logs', 'oncall-escalator.log'), 'utf8');
    assert.equal((log.match(/"event":"twilio\.rejected"/g) ?? []).length, 2);
    for (const secret of [tw.authToken, TG_TOKEN, TG_TOKEN.split(':')[1] ?? '']) {
      assert.ok(!log.includes(secret) && !JSON.stringify(auditRows(t.home)).includes(secret), 'no secret in a log line or an audit row');
    }
  });
});
