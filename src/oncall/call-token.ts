/**
 * The `<token>` of a Twilio call's URLs (contract §21.4: `<publicUrl>/voice/<token>`,
 * `<publicUrl>/status/<token>`): what the call is about, so the Twilio source can speak it and record
 * how it ended with nothing stored — the message's deliveryId (its page, round and person), the page,
 * its severity and title, what is wrong in words to speak (§24.1), and for a message that asks nothing
 * (a status update) the sentence to say.
 *
 * It carries no MAC of its own and needs none: the source acts only on requests signed by Twilio with
 * the channel's auth token over the whole URL, token included (§21.4), so only a holder of that token
 * can make a request whose token svc did not write. Form: `c1.<base64url JSON>`.
 */
import type { Severity } from './oncall-config.js';
import { PAGE_ID_PATTERN } from './page.js';

export const CALL_TOKEN_VERSION = 'c1';
/** What a call says of its title: enough to know the alert, short enough to listen to. */
export const CALL_TITLE_CHARS = 120;
const MAX_NOTE_CHARS = 200;
/** What a call says of what is wrong: a sentence or two, so the call gets to its question. */
export const CALL_SUMMARY_CHARS = 160;
const MAX_TOKEN_CHARS = 2_048;

export interface CallClaims {
  deliveryId: string;
  /** The page the call is for; null for a message of no page (a route's `notify:`). */
  pageId: string | null;
  severity: Severity;
  title: string;
  /** What to say instead of asking for a digit (an acknowledgement, a resolution); null: the call asks 4 or 6. */
  note: string | null;
  /** What is wrong, as words to speak (the alerts' summaries without links, §24.1); absent when the page says nothing of it. */
  summary?: string;
}

const cut = (text: string, max: number): string => ([...text].length <= max ? text : [...text].slice(0, max).join(''));

export function mintCallToken(claims: CallClaims): string {
  const body = [claims.deliveryId, claims.pageId ?? '', claims.severity, cut(claims.title, CALL_TITLE_CHARS),
    claims.note === null ? null : cut(claims.note, MAX_NOTE_CHARS),
    // A sixth element only when there is a summary: a token minted before summaries were spoken still reads.
    ...(claims.summary === undefined ? [] : [cut(claims.summary, CALL_SUMMARY_CHARS)])];
  return `${CALL_TOKEN_VERSION}.${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
}

/** The claims of a token, or null when it is not one of ours. */
export function readCallToken(token: string): CallClaims | null {
  if (token.length > MAX_TOKEN_CHARS || !token.startsWith(`${CALL_TOKEN_VERSION}.`)) return null;
  const body = token.slice(CALL_TOKEN_VERSION.length + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || (value.length !== 5 && value.length !== 6)) return null;
  const [deliveryId, pageId, severity, title, note, summary] = value as unknown[];
  if (typeof deliveryId !== 'string' || deliveryId === '' || deliveryId.length > 512) return null;
  if (typeof pageId !== 'string' || (pageId !== '' && !PAGE_ID_PATTERN.test(pageId))) return null;
  if (severity !== 'P1' && severity !== 'P2' && severity !== 'P3') return null;
  if (typeof title !== 'string' || (note !== null && typeof note !== 'string')) return null;
  if (value.length === 6 && (typeof summary !== 'string' || summary === '')) return null;
  return { deliveryId, pageId: pageId === '' ? null : pageId, severity, title: cut(title, CALL_TITLE_CHARS),
    note: note === null ? null : cut(note, MAX_NOTE_CHARS), ...(typeof summary === 'string' ? { summary: cut(summary, CALL_SUMMARY_CHARS) } : {}) };
}

/**
 * The person a page's deliveryId names (`<pageId>.<round>.<personId>.<channelId>`, §17.4), given its page
 * and channel: person ids may hold dots, so the id is what lies between the round and the channel.
 * Null when the deliveryId is not that page's on that channel, or names a channel target (`-`).
 */
export function personOfDelivery(deliveryId: string, pageId: string, channelId: string): string | null {
  const head = `${pageId}.`;
  const tail = `.${channelId}`;
  if (!deliveryId.startsWith(head) || !deliveryId.endsWith(tail)) return null;
  const middle = deliveryId.slice(head.length, deliveryId.length - tail.length);
  const m = /^\d+\.(.+)$/.exec(middle);
  const person = m?.[1];
  return person === undefined || person === '-' ? null : person;
}
