/**
 * Answering a page by SMS and on the phone (contract §21.4): `4` acknowledges, `6` resolves — the
 * digits of a phone call's keypad and the first character of an SMS reply. An SMS reply then names
 * its page with a six-digit code, `4<code>` or `6<code>`, which the message carried.
 *
 * The code is an HMAC-SHA256 of (agent, page, phone number) under the Twilio auth token, read as six
 * decimal digits: typeable on any keypad, the same for every message of a page to that number (so any
 * of them can be answered), different for every page and number, and nothing to store — the Twilio
 * source recomputes it for the open pages that notified the replying number, so it holds across
 * restarts and replicas on either store. It is not a password: a reply counts only when it comes
 * through Twilio (signed with the same auth token) from a number that is that person's contact; the
 * code picks the page, and a stranger who could fake both the sender and Twilio's signature would
 * still have one chance in a million a guess. Rotating the auth token changes every code.
 * Pure: the caller passes the key.
 */
import { createHmac } from 'node:crypto';

export type ReplyAction = 'ack' | 'resolve';

/** The keypad digit of each action: the same on a call and in an SMS reply. */
export const REPLY_DIGITS: Readonly<Record<string, ReplyAction>> = { 4: 'ack', 6: 'resolve' };
/** The digit that does `action`. */
export const digitOf = (action: ReplyAction): string => (action === 'ack' ? '4' : '6');

export const SMS_CODE_DIGITS = 6;

/** The code of one page for one phone number. */
export function smsReplyCode(key: string, agentId: string, pageId: string, number: string): string {
  const mac = createHmac('sha256', key).update(`svc sms reply v1\n${agentId}\n${pageId}\n${number}`).digest();
  // 48 bits modulo 10^6: the bias (10^6 / 2^48) is nothing anyone could use.
  return String(mac.readUIntBE(0, 6) % 10 ** SMS_CODE_DIGITS).padStart(SMS_CODE_DIGITS, '0');
}

export interface SmsReply {
  action: ReplyAction;
  code: string;
}

/** An SMS reply's action and code (`4123456`, `6 123456`, spaces around ignored), or null when the text is not one. */
export function parseSmsReply(body: string): SmsReply | null {
  if (body.length > 64) return null;
  const m = /^\s*([46])\s*(\d{6})\s*$/.exec(body);
  if (m === null) return null;
  const action = REPLY_DIGITS[m[1] ?? ''];
  return action === undefined ? null : { action, code: m[2] ?? '' };
}
