/**
 * Every channel of main's issue 34 takes the last look of a page's message right before the wire
 * (channel.ts WireGate, §17.4), through the one HTTP client (http-client.ts): ntfy, Pushover, Twilio
 * SMS and voice, Telegram (its edit and its thread reply each look). A look that says no sends
 * nothing — the vendor's fake records no request — and is no failure of the channel; a look that
 * says yes is left once the request is written. Each against its local vendor fake (test/support).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeNtfy } from '../../../test/support/fake-ntfy.js';
import { startFakeNtfy } from '../../../test/support/fake-ntfy.js';
import type { FakePushover } from '../../../test/support/fake-pushover.js';
import { startFakePushover } from '../../../test/support/fake-pushover.js';
import type { FakeTelegram } from '../../../test/support/fake-telegram.js';
import { startFakeTelegram } from '../../../test/support/fake-telegram.js';
import type { FakeTwilio } from '../../../test/support/fake-twilio.js';
import { startFakeTwilio } from '../../../test/support/fake-twilio.js';
import { ntfyChannelSchema, pushoverChannelSchema, telegramChannelSchema, twilioChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import type { Channel, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { createNtfyChannel } from './ntfy-channel.js';
import { createPushoverChannel } from './pushover-channel.js';
import { createTelegramChannel } from './telegram-channel.js';
import { createTwilioChannel } from './twilio-channel.js';

const PAGE = 'p0a1b2c3d4e5f';
const clock = fakeClock(Date.UTC(2026, 10, 29, 3));
const signal = new AbortController().signal;
const page = (to: string, channel: string): OutboundMessage => ({ eventId: 'e1', agentId: 'ops', severity: 'P1', status: 'firing',
  title: 'Disk full on db-1', text: `[P1] Disk full on db-1\nPage ${PAGE} opened (step 1 of 2).`, triagedBy: 'oncall',
  deliveryId: `${PAGE}.1.alice.${channel}`, attempt: 1, to, pageId: PAGE, pageKind: 'escalation' });

/** A gate answering `go`, counting its looks and leaves, and what the vendor had received at each look. */
function gate(go: boolean, received: () => number): WireGate & { looks: number[]; left: number } {
  const g = {
    looks: [] as number[],
    left: 0,
    enter: () => { g.looks.push(received()); return Promise.resolve(go); },
    leave: () => { g.left += 1; },
  };
  return g;
}

/** Refused, then let through: nothing reaches the vendor on no, one request per look on yes. */
async function refusedThenSent(channel: Channel, message: OutboundMessage, received: () => number, looksWhenSent = 1): Promise<void> {
  const before = received();
  const no = gate(false, received);
  assert.deepEqual(await channel.send(message, signal, no), NOT_SENT);
  assert.deepEqual(no.looks, [before], 'one look, with nothing of the message at the vendor yet');
  assert.equal(received(), before, 'the vendor received no request');
  assert.equal(no.left, 0, 'a look that said no holds nothing to leave');
  assert.equal(channel.ready(), true, 'a page that moved on is no failure of the channel');
  const yes = gate(true, received);
  const sent = await channel.send(message, signal, yes);
  assert.ok(sent.ok, JSON.stringify(sent));
  assert.equal(yes.looks.length, looksWhenSent);
  assert.equal(received(), before + looksWhenSent, 'each look let one request through');
  assert.equal(yes.left, looksWhenSent, 'left once each request was written');
}

describe('the last look before the wire, on the channels of issue 34', () => {
  let ntfy: FakeNtfy;
  let po: FakePushover;
  let twilio: FakeTwilio;
  let tg: FakeTelegram;
  before(async () => {
    [ntfy, po, twilio, tg] = await Promise.all([startFakeNtfy(), startFakePushover({ token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', users: ['uQiRzpo4DXghDmr9QzzfQu27cmVRsG'] }),
      startFakeTwilio(), startFakeTelegram('110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', { knownChats: [123456789] })]);
  });
  after(() => Promise.all([ntfy.close(), po.close(), twilio.close(), tg.close()]));

  it('ntfy: the publish', async () => {
    const channel = createNtfyChannel(ntfyChannelSchema.parse({ id: 'push', type: 'ntfy', direction: 'outbound', server: ntfy.url }), { clock });
    await refusedThenSent(channel, page('alice-7f3k2q', 'push'), () => ntfy.publishes.length);
  });

  it('Pushover: the message (its receipt asks are no page message and take no look)', async () => {
    const channel = createPushoverChannel(pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound',
      token: 'azGDORePK8gMaC0QOYAMyEEuzJnyUi', apiUrl: po.apiUrl }), { clock });
    await refusedThenSent(channel, page('uQiRzpo4DXghDmr9QzzfQu27cmVRsG', 'pushover'), () => po.messages.length);
    await channel.close();
  });

  it('Twilio: the SMS and the call', async () => {
    const twilioChannel = (mode: 'sms' | 'voice'): Channel => createTwilioChannel(twilioChannelSchema.parse({ id: mode, type: 'twilio',
      direction: 'outbound', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+15005550006', mode, apiUrl: twilio.apiUrl }),
    { clock, source: { publicUrl: 'https://svc.example.com/twilio' } });
    await refusedThenSent(twilioChannel('sms'), page('+4915112345678', 'sms'), () => twilio.messages().length);
    await refusedThenSent(twilioChannel('voice'), page('+4915112345678', 'voice'), () => twilio.calls().length);
  });

  it('Telegram: the message, and later its edit and thread reply, each behind a look of its own', async () => {
    const channel = createTelegramChannel(telegramChannelSchema.parse({ id: 'tg', type: 'telegram', direction: 'outbound',
      token: '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', apiUrl: tg.apiUrl }), { clock });
    const shown = (): number => tg.calls.filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText').length;
    const opened = page('123456789', 'tg');
    await refusedThenSent(channel, opened, shown);
    const first = await channel.send(opened, signal);
    assert.ok(first.ok);
    // Step 2 pages her again: the message is edited in place and a reply in its thread notifies her.
    await refusedThenSent(channel, { ...opened, deliveryId: `${PAGE}.2.alice.tg`, pageMessage: first.detail }, shown, 2);
  });
});
