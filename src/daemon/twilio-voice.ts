/**
 * What a page's phone call says (contract §21.4), as TwiML: the page, then `<Gather numDigits="1">` —
 * 4 acknowledges, 6 resolves, anything else (or silence) says it again, up to MAX_PROMPTS times, then
 * the call ends. A call about something that asks no answer (an acknowledgement, a resolution, a
 * route's `notify:`) says it and hangs up. Pure: the Twilio source reads the page and acts; this
 * decides the words.
 */
import type { CallClaims } from '../oncall/call-token.js';
import type { PageRecord } from '../oncall/page.js';
import type { ReplyAction } from '../oncall/sms-reply.js';
import { gather, hangup, redirect, say, twiml } from './twiml.js';

/** How many times a call asks before it gives up (silence or wrong keys). */
export const MAX_PROMPTS = 3;

const spokenSeverity = (severity: string): string => `priority ${severity.replace(/^P/, '')}`;
/** `This is svc, priority 1: <title>. <summary>.`: what the page is, then what is wrong (§24.1). */
const opening = (claims: CallClaims): string =>
  `This is svc, ${spokenSeverity(claims.severity)}: ${claims.title}.${claims.summary === undefined ? '' : ` ${claims.summary}.`}`;

/** A call that asks nothing: what happened, then goodbye. */
export function tellOnly(claims: CallClaims): string {
  return twiml(say(`${opening(claims)}${claims.note === null ? '' : ` ${claims.note}`} Goodbye.`), hangup());
}

/** The question of a call about `page`, asked for the `n`th time; `voiceUrl` is the call's own URL (its digits come back to it). */
export function prompt(claims: CallClaims, page: Pick<PageRecord, 'state' | 'acknowledgedBy'>, n: number, voiceUrl: string, prefix = ''): string {
  if (page.state === 'resolved') return twiml(say(`${prefix}${opening(claims)} This page is already resolved. Goodbye.`), hangup());
  if (n > MAX_PROMPTS) return twiml(say(`${prefix}Nothing was pressed. The page stays open. Goodbye.`), hangup());
  const question = page.state === 'acknowledged'
    ? `It is acknowledged by ${page.acknowledgedBy ?? 'someone'}. Press 6 to resolve it.`
    : 'Press 4 to acknowledge, 6 to resolve.';
  return twiml(gather(`${voiceUrl}?n=${n}`, say(`${prefix}${opening(claims)} ${question}`)), redirect(`${voiceUrl}?n=${n + 1}`));
}

/** What the call says after a key acted. */
export function acted(action: ReplyAction, outcome: { ok: true; changed: boolean; by: string | null } | { ok: false; reason: string }): string {
  if (!outcome.ok) return twiml(say(`Nothing changed: ${outcome.reason}. Goodbye.`), hangup());
  if (action === 'ack') {
    return twiml(say(outcome.changed ? 'Acknowledged. The escalation has stopped. Goodbye.'
      : `It was already acknowledged${outcome.by === null ? '' : ` by ${outcome.by}`}. Goodbye.`), hangup());
  }
  return twiml(say(outcome.changed ? 'Resolved. Goodbye.' : 'It was already resolved. Goodbye.'), hangup());
}

/** A call the source cannot place in any page: said so, and ended. */
export function unknownCall(): string {
  return twiml(say('This is svc. This call is about nothing svc knows of any more. Goodbye.'), hangup());
}
