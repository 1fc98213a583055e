import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutboundMessage } from './channel.js';
import { isGsm7, septetCount } from './gsm7.js';
import { callClaims, smsText, spokenSummary } from './twilio-text.js';
import { STORY_PAGE, pageStory } from '../../../test/support/page-messages.js';

const PAGE = 'p0a1b2c3d4e5f';
const page = (over: Partial<OutboundMessage> = {}): OutboundMessage => ({
  eventId: 'e1', agentId: 'ops', severity: 'P1', status: 'firing', title: 'Disk full on db-1', triagedBy: 'oncall',
  text: `[P1] Disk full on db-1\nPage ${PAGE} opened (step 1 of 2).\nAcknowledge: svc ack ${PAGE}`,
  deliveryId: `${PAGE}.1.alice.sms`, attempt: 1, to: '+4915112345678', pageId: PAGE, pageKind: 'escalation', ...over,
});
/** A link as long as the ack source mints them (~150 characters). */
const LONG_LINK = `https://svc.example.com/ack/v1.${'W'.repeat(74)}.${'Q'.repeat(43)}`;

describe('smsText: one SMS part of at most 160 GSM-7 characters (§21.4)', () => {
  it('a page asking for an answer: the reply codes, exactly', () => {
    assert.equal(smsText(page(), '123456'), 'svc P1: Disk full on db-1 - reply 4123456 ack, 6123456 resolve');
  });

  it('a long, non-GSM title is made GSM-7 and cut; the codes are never cut', () => {
    const title = `“Latency” – p99 above 2 s on ${'api-gateway-eu-west-1 '.repeat(8)}…`;
    const text = smsText(page({ title, text: `[P1] ${title}\nPage ${PAGE} opened.` }), '004711');
    assert.equal(isGsm7(text), true);
    assert.equal(septetCount(text), 160);
    assert.match(text, /^svc P1: "Latency" - p99 above 2 s on api-gateway-eu-west-1 .*\.\.\. - reply 4004711 ack, 6004711 resolve$/);
  });

  it('extension characters count twice: a title of braces is cut to the budget, not past it', () => {
    const text = smsText(page({ title: `{${'[x]'.repeat(60)}}` }), '123456');
    assert.equal(septetCount(text), 160);
    assert.ok(text.length < 160, `${text.length} characters, ${septetCount(text)} septets`);
    assert.ok(text.endsWith(' - reply 4123456 ack, 6123456 resolve'));
  });

  it('the ack link follows the codes when the title keeps 20 characters; a long link is left out', () => {
    const short = 'https://s.example/ack/abc';
    assert.equal(smsText(page({ links: { ack: short, resolve: `${short}r` } }), '123456'),
      `svc P1: Disk full on db-1 - reply 4123456 ack, 6123456 resolve ${short}`);
    assert.equal(smsText(page({ links: { ack: LONG_LINK, resolve: LONG_LINK } }), '123456'),
      'svc P1: Disk full on db-1 - reply 4123456 ack, 6123456 resolve');
  });

  it('without a Twilio source: no codes; the ack link in their place, whole, the title cut around it', () => {
    const text = smsText(page({ links: { ack: LONG_LINK, resolve: LONG_LINK } }), null);
    assert.equal(septetCount(text) <= 160, true);
    assert.ok(text.endsWith(` ${LONG_LINK}`), text);
    assert.ok(text.startsWith('svc P1: '), text);
    assert.doesNotMatch(text, /reply/);
  });

  it('without a source or a link: what to type', () => {
    assert.equal(smsText(page(), null), `svc P1: Disk full on db-1 - svc ack ${PAGE}`);
  });

  it('a message that asks nothing says what happened, and carries no code', () => {
    const acked = page({ pageKind: 'acknowledged', text: `[P1] Disk full on db-1\nPage ${PAGE} was acknowledged by alice.` });
    assert.equal(smsText(acked, '123456'), `svc P1: Disk full on db-1 - Page ${PAGE} was acknowledged by alice.`);
    const resolved = page({ status: 'resolved', pageKind: 'resolved', text: `RESOLVED [P1] Disk full on db-1\nPage ${PAGE} was resolved by bob.` });
    assert.equal(smsText(resolved, '123456'), `svc P1: Disk full on db-1 - Page ${PAGE} was resolved by bob.`);
    const handoff: OutboundMessage = { ...page(), pageId: undefined, pageKind: 'handoff', title: 'On call: primary',
      text: 'You are on call for primary until 2026-11-27 09:00 Europe/Berlin.' };
    assert.equal(smsText(handoff, null), 'svc: On call: primary - You are on call for primary until 2026-11-27 09:00 Europe/Berlin.');
  });
});

describe('callClaims: what a call says', () => {
  it('a page asking for an answer asks for a key; a status update says what happened; a route\'s notify: only its title', () => {
    assert.deepEqual(callClaims(page()), { deliveryId: `${PAGE}.1.alice.sms`, pageId: PAGE, severity: 'P1', title: 'Disk full on db-1', note: null });
    assert.equal(callClaims(page({ pageKind: 'resolved', status: 'resolved', text: `RESOLVED [P1] Disk full on db-1\nPage ${PAGE} was resolved by bob.` })).note,
      `Page ${PAGE} was resolved by bob.`);
    assert.equal(callClaims({ ...page(), pageId: undefined, pageKind: 'notify' }).note, null);
  });

  it('a call that asks says the alerts\' summaries, short and speakable: no links, cut at a word (§24.1)', () => {
    const story = pageStory('phone', '+4915112345678');
    assert.deepEqual(callClaims(story.opened), { deliveryId: `${STORY_PAGE}.1.alice.phone`, pageId: STORY_PAGE, severity: 'P1',
      title: 'CheckoutErrors on api-1', note: null, summary: 'Checkout 5xx ratio 12% > 5% & rising <!here> *now* [Acknowledge]' });
    assert.equal(callClaims(story.acknowledged).summary, undefined, 'a status update says what happened, not what is wrong');
    const alerts = (summaries: string[]): OutboundMessage => ({ ...story.opened, page: story.opened.page === undefined ? undefined
      : { ...story.opened.page, alerts: summaries.map((summary, i) => ({ name: `A${i}`, summary })) } });
    assert.equal(spokenSummary(alerts(['Disk full. See http://x.example/a', 'Disk full. See http://x.example/a', 'Load 9 (https://g.example/q).'])),
      'Disk full. See. Load 9', 'each summary once, links and the brackets they leave gone');
    const long = spokenSummary(alerts([`${'word '.repeat(40)}end`])) ?? '';
    assert.equal(long, 'word '.repeat(32).trim(), 'cut at a word to 160 characters');
    assert.equal(spokenSummary(alerts(['https://only.example/link'])), null);
  });
});
