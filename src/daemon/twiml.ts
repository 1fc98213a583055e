/**
 * TwiML, the XML Twilio runs on a call and answers an SMS with (https://www.twilio.com/docs/voice/twiml,
 * https://www.twilio.com/docs/messaging/twiml): the few verbs the Twilio source speaks. Every text and
 * URL is escaped, and characters XML 1.0 cannot carry at all (most control characters, lone
 * surrogates) are dropped: an alert title is someone else's text and must stay text.
 */

export const TWIML_HEADERS = { 'Content-Type': 'text/xml; charset=utf-8', 'Cache-Control': 'no-store' } as const;

/** Characters outside XML 1.0's Char production (§2.2): they cannot appear in a document, escaped or not. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed here
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text for an element or an attribute value (both quote characters escaped, so either may delimit it). */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** A whole TwiML document of these verbs. */
export const twiml = (...verbs: string[]): string => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs.join('')}</Response>`;
export const say = (text: string): string => `<Say>${escapeXml(text)}</Say>`;
export const message = (text: string): string => `<Message>${escapeXml(text)}</Message>`;
export const hangup = (): string => '<Hangup/>';
export const redirect = (url: string): string => `<Redirect method="POST">${escapeXml(url)}</Redirect>`;
/** One key press, posted to `action` as `Digits`; `timeout` seconds of silence end it without a press. */
export const gather = (action: string, inner: string, timeoutS = 8): string =>
  `<Gather input="dtmf" numDigits="1" timeout="${timeoutS}" action="${escapeXml(action)}" method="POST">${inner}</Gather>`;
