/**
 * Twilio's request signature (https://www.twilio.com/docs/usage/webhooks/webhooks-security):
 * `X-Twilio-Signature` is the Base64 HMAC-SHA1, keyed with the account's auth token, of the full URL
 * Twilio requested (scheme, host, path, query) followed by every POST parameter sorted by name (byte
 * order), each name followed by its value with nothing between — a name sent several times adds each
 * of its values, sorted. Twilio's own helper libraries also accept the URL with the scheme's default
 * port written out or left off, since what Twilio signs depends on how the URL was configured; so does
 * this check. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature Twilio sends for a POST of `params` to `url`. */
export function twilioSignature(authToken: string, url: string, params: ReadonlyArray<readonly [string, string]>): string {
  const byName = new Map<string, string[]>();
  for (const [name, value] of params) byName.set(name, [...(byName.get(name) ?? []), value]);
  let data = url;
  for (const name of [...byName.keys()].sort()) for (const value of (byName.get(name) ?? []).sort()) data += name + value;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** The URL as written, and with the scheme's default port added or removed. */
function urlSpellings(url: string): string[] {
  const m = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(url);
  if (m === null) return [url];
  const [, scheme = '', authority = '', rest = ''] = m;
  const port = scheme.toLowerCase() === 'https' ? '443' : '80';
  const withoutPort = authority.endsWith(`:${port}`) ? authority.slice(0, -(port.length + 1)) : null;
  const other = withoutPort ?? (/:\d+$/.test(authority) ? null : `${authority}:${port}`);
  return other === null ? [url] : [url, `${scheme}://${other}${rest}`];
}

/** True when `signature` is Twilio's for a POST of `params` to `url`. */
export function verifyTwilioSignature(authToken: string, signature: string | undefined, url: string,
  params: ReadonlyArray<readonly [string, string]>): boolean {
  if (signature === undefined || signature.length === 0 || signature.length > 64) return false;
  const given = Buffer.from(signature);
  return urlSpellings(url).some((spelling) => {
    const expected = Buffer.from(twilioSignature(authToken, spelling, params));
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
