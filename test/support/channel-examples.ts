/**
 * What each channel sends for one page (contract §24.1), rendered from the one fixture page of
 * page-messages.ts through the channel's own code — to the local stand-ins of the vendors' APIs where
 * the channel assembles its request itself — for docs/channels.md's examples (test/channels-doc.test.ts
 * checks that every marked example equals its rendering). Secrets are shown as `<key>`, `<token>`.
 */
import { emailChannelSchema, ntfyChannelSchema, slackChannelSchema, telegramChannelSchema, twilioChannelSchema } from '../../src/config/schema.js';
import { fakeClock } from '../../src/core/clock.js';
import { prompt } from '../../src/daemon/twilio-voice.js';
import { readCallToken } from '../../src/oncall/call-token.js';
import type { PageAlerts } from '../../src/oncall/page-alert.js';
import type { AckLinks, OutboundMessage } from '../../src/runtime/channels/channel.js';
import { messageText } from '../../src/runtime/channels/channel.js';
import { createEmailChannel } from '../../src/runtime/channels/email-channel.js';
import { ntfyRequest } from '../../src/runtime/channels/ntfy-channel.js';
import { pagerdutyEvent } from '../../src/runtime/channels/pagerduty-channel.js';
import { createSlackChannel } from '../../src/runtime/channels/slack-channel.js';
import { teamsCard } from '../../src/runtime/channels/teams-channel.js';
import { createTelegramChannel } from '../../src/runtime/channels/telegram-channel.js';
import { createTwilioChannel } from '../../src/runtime/channels/twilio-channel.js';
import { startFakeSlack } from './fake-slack.js';
import { startFakeTelegram } from './fake-telegram.js';
import { startFakeTwilio } from './fake-twilio.js';
import type { PageStory } from './page-messages.js';
import { STORY_ALERTS, pageStory } from './page-messages.js';
import { mailHeaders, mailText, startSmtpServer } from './smtp.js';

/** The docs' page: the story's alert with a summary as a team writes it (the story's own is hostile, for the escaping tests). */
const DOC_ALERTS: PageAlerts = { ...STORY_ALERTS, alerts: STORY_ALERTS.alerts.map((a) => ({ ...a, summary: 'Checkout 5xx ratio 12% (threshold 5%)' })) };
const story = (channel: string, to: string, links: boolean): PageStory =>
  pageStory(channel, to, { alerts: DOC_ALERTS, ...(links ? { links: DOC_LINKS } : {}) });

/** The person's one-time links as the docs show them: stand-ins for the tokens. */
export const DOC_LINKS: AckLinks = { ack: 'https://svc.example.com/ack/v2.ACK-TOKEN', resolve: 'https://svc.example.com/ack/v2.RESOLVE-TOKEN' };
const TOKEN = 'xoxb-doc-token';
const BOT = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const ALICE_CHAT = 123456789;
const ALICE_PHONE = '+4915112345678';
const TWILIO_NUMBER = '+15005550006';
const PUBLIC_URL = 'https://svc.example.com/twilio';
const signal = new AbortController().signal;
const clock = fakeClock(Date.UTC(2026, 10, 29, 2, 5));

const json = (value: unknown): string => JSON.stringify(value);

function sent<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`nothing was sent: ${what}`);
  return value;
}

/** A mailbox's view of the opening mail: the header lines the doc names (`names`), then the body decoded. */
async function email(names: readonly string[]): Promise<string> {
  const server = await startSmtpServer({ starttls: false });
  try {
    const c = createEmailChannel(emailChannelSchema.parse({ id: 'mail', type: 'email', direction: 'outbound', from: 'svc@ops.example.com', to: 'oncall@example.com',
      smtp: { host: '127.0.0.1', port: server.port, tls: 'none' } }), { clock });
    const result = await c.send(story('mail', 'alice@example.com', true).opened, signal);
    await c.close();
    if (!result.ok) throw new Error(result.error);
    const raw = sent(server.mails[0]?.raw, 'mail');
    const headers = mailHeaders(raw);
    // The mail's last line break is not shown: a fenced block cannot end with one.
    return `${names.map((n) => `${n}: ${headers.get(n.toLowerCase()) ?? '(absent)'}`).join('\n')}\n\n${mailText(raw).replace(/\n$/, '')}`;
  } finally {
    await server.close();
  }
}

/** ntfy's request as an HTTP request's head and body. */
function ntfy(): string {
  const config = ntfyChannelSchema.parse({ id: 'push', type: 'ntfy', direction: 'outbound', server: 'https://ntfy.example.com', token: 'tk_doc' });
  const req = sent(ntfyRequest(story('push', 'alice-7f3k2q', true).opened, config) ?? undefined, 'ntfy');
  const head = Object.entries(req.headers).map(([k, v]) => `${k}: ${k === 'Authorization' ? 'Bearer <token>' : v}`);
  return [`POST ${new URL(req.url).pathname} HTTP/1.1`, ...head, '', req.body].join('\n');
}

/** Slack's chat.update when alice acknowledges (DM), and the first post into a shared conversation. */
async function slack(): Promise<{ update: string; room: string }> {
  const fake = await startFakeSlack(TOKEN, { dmChannel: 'D0ALICE' });
  try {
    const dm = createSlackChannel(slackChannelSchema.parse({ id: 'oncall-dm', type: 'slack', direction: 'outbound', token: TOKEN,
      apiUrl: fake.apiUrl, user: 'U0ALICE' }), { clock });
    const told = story('oncall-dm', 'U0ALICE', true);
    const first = await dm.send(told.opened, signal);
    if (!first.ok) throw new Error(first.error);
    await dm.send({ ...told.acknowledged, pageMessage: first.detail }, signal);
    const room = createSlackChannel(slackChannelSchema.parse({ id: 'oncall-room', type: 'slack', direction: 'outbound', token: TOKEN,
      apiUrl: fake.apiUrl, conversation: 'C0123ABCDEF' }), { clock });
    // A page told to the room (`channel:oncall-room`): no person, no links.
    const toRoom: OutboundMessage = { ...told.opened, deliveryId: told.opened.deliveryId.replace('.alice.', '.-.') };
    delete toRoom.to;
    delete toRoom.links;
    await room.send(toRoom, signal);
    return { update: sent(fake.calls.find((c) => c.method === 'chat.update')?.raw, 'chat.update'), room: sent(fake.calls.at(-1)?.raw, 'room post') };
  } finally {
    await fake.close();
  }
}

async function telegram(): Promise<string> {
  const fake = await startFakeTelegram(BOT, { knownChats: [ALICE_CHAT] });
  try {
    const c = createTelegramChannel(telegramChannelSchema.parse({ id: 'tg', type: 'telegram', direction: 'outbound', token: BOT, apiUrl: fake.apiUrl }),
      { clock });
    await c.send(story('tg', String(ALICE_CHAT), true).opened, signal);
    return json(sent(fake.calls.find((x) => x.method === 'sendMessage')?.body, 'sendMessage'));
  } finally {
    await fake.close();
  }
}

/** Twilio: the SMS's form, the call's form, and the TwiML the call's URL answers with when the person picks up. */
async function twilio(): Promise<{ sms: string; call: string; twiml: string }> {
  const fake = await startFakeTwilio();
  try {
    const channel = (id: string, mode: string) => createTwilioChannel(twilioChannelSchema.parse({ id, type: 'twilio', direction: 'outbound',
      accountSid: fake.accountSid, authToken: fake.authToken, from: TWILIO_NUMBER, mode, apiUrl: fake.apiUrl }), { clock, source: { publicUrl: PUBLIC_URL } });
    await channel('sms', 'sms').send(story('sms', ALICE_PHONE, true).opened, signal);
    await channel('phone', 'voice').send(story('phone', ALICE_PHONE, false).opened, signal);
    const call = sent(fake.calls().at(-1), 'call');
    const voiceUrl = call.form.Url ?? '';
    const claims = readCallToken(voiceUrl.slice(voiceUrl.lastIndexOf('/') + 1));
    if (claims === null) throw new Error('the call token does not read');
    return { sms: sent(fake.messages().at(-1)?.raw, 'sms'), call: call.raw, twiml: prompt(claims, { state: 'triggered', acknowledgedBy: null }, 1, voiceUrl) };
  } finally {
    await fake.close();
  }
}

/** Every example, by the name docs/channels.md marks it with (`<!-- rendered: NAME -->` above its fence). */
export async function channelExamples(emailHeaders: readonly string[]): Promise<Map<string, string>> {
  const slackBodies = await slack();
  const phone = await twilio();
  return new Map([
    ['email', await email(emailHeaders)],
    ['pagerduty', json(pagerdutyEvent(story('pd', 'alice', false).opened, '<key>'))],
    ['teams', json(teamsCard(story('room', 'alice', true).opened))],
    ['ntfy', ntfy()],
    ['text-with-links', messageText(story('mail', 'alice@example.com', true).opened)],
    ['slack-update', slackBodies.update],
    ['slack-room', slackBodies.room],
    ['sms', phone.sms],
    ['call', phone.call],
    ['twiml', phone.twiml],
    ['telegram', await telegram()],
  ]);
}
