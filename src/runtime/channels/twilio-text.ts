/**
 * What a Twilio message says (contract §21.4). An SMS is one part: at most 160 GSM-7 characters,
 * made GSM-7 first (gsm7.ts), never split — a page that costs three SMS and arrives in pieces is worse
 * than a shorter one. A page asking for an answer reads
 *
 *   svc P1: <title> - reply 4<code> ack, 6<code> resolve
 *
 * where a page message's title is its first alert's summary, then the title (`Checkout 5xx ratio 12% -
 * CheckoutErrors on api-1`): what is wrong is what a person reads first.
 *
 * with the person's ack link after it when there is one and it fits; the title is what gets cut, never
 * the code. Without a Twilio source (nobody could take the reply) the codes are left out and the ack link
 * takes their place; without that either, the page id to type (`svc ack <page>`). Any other message
 * (an acknowledgement, a resolution, a handoff) is `svc P1: <title> - <what happened>`.
 */
import type { CallClaims } from '../../oncall/call-token.js';
import { CALL_SUMMARY_CHARS } from '../../oncall/call-token.js';
import { digitOf } from '../../oncall/sms-reply.js';
import type { OutboundMessage } from './channel.js';
import { SMS_SEPTETS, cutGsm7, septetCount, toGsm7 } from './gsm7.js';

/** An ack link is added after the reply codes only when the title keeps at least this many characters. */
const MIN_TITLE_WITH_LINK = 20;

/** Whether the message asks its person to act on a page (and so carries codes, a link, or a call's question). */
export function asksForAnswer(message: OutboundMessage): boolean {
  return message.pageId !== undefined && message.status === 'firing'
    && (message.pageKind === 'escalation' || message.pageKind === 'join' || message.pageKind === 'unacknowledged');
}

/** Flattened to one line of GSM text. */
const line = (text: string): string => toGsm7(text.replace(/\s+/g, ' ').trim());

/** What the message says beyond its title: a page message's happening, else its text without the `[P1] title` line, on one line. */
export function whatHappened(message: Pick<OutboundMessage, 'text' | 'title' | 'page'>): string {
  if (message.page !== undefined) return message.page.said;
  const lines = message.text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const rest = lines[0]?.includes(message.title) === true ? lines.slice(1) : lines;
  return rest.join(' ');
}

/** `head + title + tail` in at most 160 septets: the title cut first, then the tail. */
function fit(head: string, title: string, tail: string): string {
  const room = SMS_SEPTETS - septetCount(head) - septetCount(tail);
  const cut = room >= 0 ? cutGsm7(title, room) : '';
  if (room >= 0) return cut === '' ? `${head.trimEnd()}${tail}` : `${head}${cut}${tail}`;
  return cutGsm7(`${head}${tail.replace(/^ - /, '')}`, SMS_SEPTETS);
}

/** The SMS of a message; `code` is the page's reply code for this number when a Twilio source takes replies. */
export function smsText(message: OutboundMessage, code: string | null): string {
  const head = message.pageKind === 'handoff' ? 'svc: ' : `svc ${message.severity}: `;
  // What is wrong first (§24.1): the alert's summary leads, the title after it; the end is what gets cut.
  const summary = message.page?.alerts[0]?.summary;
  const title = line(summary === undefined ? message.title : `${summary} - ${message.title}`);
  if (!asksForAnswer(message)) {
    const happened = line(whatHappened(message));
    return fit(head, title, happened === '' ? '' : ` - ${happened}`);
  }
  const link = message.links === undefined ? null : line(message.links.ack);
  if (code !== null) {
    const tail = ` - reply ${digitOf('ack')}${code} ack, ${digitOf('resolve')}${code} resolve`;
    const withLink = link === null ? null : `${tail} ${link}`;
    const keep = Math.min(septetCount(title), MIN_TITLE_WITH_LINK);
    if (withLink !== null && SMS_SEPTETS - septetCount(head) - septetCount(withLink) >= keep) return fit(head, title, withLink);
    return fit(head, title, tail);
  }
  if (link !== null && septetCount(head) + 1 + septetCount(link) <= SMS_SEPTETS) return fit(head, title, ` ${link}`);
  return fit(head, title, ` - svc ack ${message.pageId ?? ''}`);
}

/**
 * What is wrong, to be spoken (§24.1): each alert's summary once, in the model's order, links left out
 * and the brackets they leave empty (a voice reading a URL helps nobody), cut at a word to CALL_SUMMARY_CHARS. Null when the page says
 * nothing of it.
 */
export function spokenSummary(message: Pick<OutboundMessage, 'page'>): string | null {
  const said = [...new Set((message.page?.alerts ?? []).map((a) => a.summary).filter((s): s is string => s !== undefined)
    .map((s) => s.replace(/\b(?:https?|ftp):\/\/[^\s)\]>]*/gi, ' ').replace(/\(\s*\)|\[\s*\]|<\s*>/g, ' ').replace(/\s+/g, ' ')
      .replace(/[\s.]+$/, '').trim()).filter((s) => s !== ''))].join('. ');
  if (said === '') return null;
  if ([...said].length <= CALL_SUMMARY_CHARS) return said;
  const cut = [...said].slice(0, CALL_SUMMARY_CHARS).join('');
  const space = cut.lastIndexOf(' ');
  return (space > CALL_SUMMARY_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '');
}

/** What a call for this message says and whether it asks for a key (see oncall/call-token.ts); a call that asks says what is wrong too. */
export function callClaims(message: OutboundMessage): CallClaims {
  const asks = asksForAnswer(message);
  const summary = asks ? spokenSummary(message) : null;
  return { deliveryId: message.deliveryId, pageId: message.pageId ?? null, severity: message.severity,
    title: message.title.replace(/\s+/g, ' ').trim(), note: asks || message.pageId === undefined ? null : whatHappened(message),
    ...(summary === null ? {} : { summary }) };
}
