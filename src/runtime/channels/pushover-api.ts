/**
 * Pushover's wire format (https://pushover.net/api, https://pushover.net/api/receipts), pure: the form
 * of a message, and what Pushover's answers to a message, a receipt poll and a cancel mean.
 *
 *   POST <apiUrl>/messages.json           token, user, title, message, priority[, retry, expire][, url, url_title]
 *   GET  <apiUrl>/receipts/<r>.json?token=…
 *   POST <apiUrl>/receipts/<r>/cancel.json   token
 *
 * Every answer is JSON with `status` (1 ok) and `request` (an id for Pushover's support); a refusal is
 * a 4xx with `status: 0`, an `errors` array and the offending field named (`{"token":"invalid",…}`,
 * `{"receipt":"not found",…}`) — "do not retry it, it will not succeed". Over the monthly quota Pushover
 * answers 429; 5xx and network errors are worth another try.
 *
 * Priorities (https://pushover.net/api#priority): 2 emergency (repeated every `retry` seconds until
 * acknowledged or `expire` passes; the answer carries a `receipt`), 1 high (bypasses quiet hours),
 * 0 normal, -1 quiet (no sound or vibration). A P1 page to a person rings at 2; a P1 message that is no
 * page's, or is addressed to no person, or a join notice of a page already ringing, at 1 — only a page
 * has someone whose acknowledgement svc can take from a receipt, and one emergency per page and person
 * is enough. P2 is 1, P3 0, a status update (§21.1) -1.
 */
import type { PushoverChannelConfig } from '../../config/schema.js';
import type { DeliveryResult, OutboundMessage, ReceiptCancel, ReceiptStatus, Severity } from './channel.js';
import { isStatusUpdate, linkActions, messageText } from './channel.js';
import { cutChars, oneLine } from './cut-text.js';
import { actionLabel } from '../../oncall/page-text.js';
import { parseRetryAfter, safeSnippet } from './http-channel.js';

/** Pushover's limits (https://pushover.net/api#limits): characters of a message, a title, a URL and its title. */
export const PUSHOVER_LIMITS = { message: 1024, title: 250, url: 512, urlTitle: 100 } as const;
/** Receipts as Pushover issues them (30 letters and digits); anything else is not put into a URL. */
const RECEIPT = /^[A-Za-z0-9]{1,64}$/;

const PRIORITY: Record<Severity, number> = { P1: 2, P2: 1, P3: 0 };
const QUIET = -1;

/** The priority a message goes out at (see the file's head). */
export function pushoverPriority(message: OutboundMessage): number {
  if (isStatusUpdate(message)) return QUIET;
  const priority = PRIORITY[message.severity];
  const answerable = message.pageId !== undefined && message.to !== undefined && message.pageKind !== 'join';
  return priority === 2 && !answerable ? 1 : priority;
}

/** The form fields of a message (pure); null when it names nobody and the channel has no user of its own. */
export function pushoverForm(message: OutboundMessage, config: PushoverChannelConfig): Record<string, string> | null {
  const user = message.to ?? config.user;
  if (user === undefined) return null;
  const priority = pushoverPriority(message);
  // The first link that still makes sense (Acknowledge, else Resolve) as the notification's supplementary URL, the
  // other (and a link too long for the URL) on one line below the text: the message's one way to act (§24.1).
  const acts = linkActions(message);
  const [first] = acts;
  const asUrl = first !== undefined && first.url.length <= PUSHOVER_LIMITS.url ? first : undefined;
  const below = acts.filter((a) => a !== asUrl).map((a) => `${actionLabel(a.action)}: ${a.url}`);
  const oldRow = message.page === undefined;
  const tail = below.length === 0 ? '' : oldRow ? `\n\n${below.join('\n')}` : `\n${below.join(' | ')}`;
  // Without links, the page message's own line to act by (`svc ack <page>`) stays in its text.
  const body = oldRow ? message.text : messageText(message, { buttons: message.links !== undefined, title: true });
  const text = `${cutChars(body, PUSHOVER_LIMITS.message - [...tail].length)}${tail}`;
  return {
    token: config.token,
    user,
    title: cutChars(oneLine(`[${message.severity}] ${message.title}`), PUSHOVER_LIMITS.title),
    message: text,
    priority: String(priority),
    ...(priority === 2 ? { retry: String(config.retry), expire: String(config.expire) } : {}),
    ...(asUrl === undefined ? {} : { url: asUrl.url, url_title: actionLabel(asUrl.action) }),
  };
}

interface PushoverAnswer {
  status?: unknown;
  request?: unknown;
  receipt?: unknown;
  errors?: unknown;
  token?: unknown;
  acknowledged?: unknown;
  acknowledged_at?: unknown;
  acknowledged_by_device?: unknown;
  expired?: unknown;
}

function parse(body: string): PushoverAnswer {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // not Pushover's JSON (a proxy's page): the status says enough
  }
}

/** `pushover 400: application token is invalid` — Pushover's own words, the secrets taken out. */
function refusal(what: string, status: number, data: PushoverAnswer, body: string, secrets: readonly string[]): string {
  const errors = Array.isArray(data.errors) ? data.errors.filter((e): e is string => typeof e === 'string') : [];
  return `pushover${what} ${status}: ${safeSnippet(errors.length > 0 ? errors.join('; ') : body || 'no body', secrets, 400)}`;
}

const worthRetrying = (status: number): boolean => status === 429 || status === 408 || status >= 500;

/** The outcome of Pushover's answer to a message sent at `nowMs` (expire counted from then). */
export function classifyMessage(status: number, headers: Headers, body: string, nowMs: number, config: PushoverChannelConfig,
  secrets: readonly string[]): DeliveryResult {
  const data = parse(body);
  if (status >= 200 && status < 300 && data.status === 1) {
    const request: Record<string, string> = typeof data.request === 'string' ? { request: safeSnippet(data.request, secrets, 64) } : {};
    const receipt = typeof data.receipt === 'string' && RECEIPT.test(data.receipt) ? data.receipt : null;
    if (receipt === null) return { ok: true, detail: request };
    return { ok: true, detail: { ...request, receipt }, receipt: { id: receipt, expiresAtMs: nowMs + config.expire * 1000 } };
  }
  const error = refusal('', status, data, body, secrets);
  if (worthRetrying(status) || (status >= 200 && status < 300)) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), nowMs);
    return retryAfterMs === undefined ? { ok: false, retryable: true, error } : { ok: false, retryable: true, error, retryAfterMs };
  }
  return { ok: false, retryable: false, error };
}

/** Whether a 4xx says the receipt itself is unknown (expired more than a week ago, or never issued). */
const receiptUnknown = (data: PushoverAnswer, status: number): boolean => status >= 400 && status < 500 && 'receipt' in data && data.token === undefined;

/** What a receipt poll's answer says. */
export function classifyReceipt(status: number, headers: Headers, body: string, nowMs: number, secrets: readonly string[]): ReceiptStatus {
  const data = parse(body);
  if (status >= 200 && status < 300 && data.status === 1) {
    if (data.acknowledged === 1) {
      const at = typeof data.acknowledged_at === 'number' && data.acknowledged_at > 0 ? data.acknowledged_at * 1000 : nowMs;
      const device = typeof data.acknowledged_by_device === 'string' ? safeSnippet(data.acknowledged_by_device, secrets, 64) : '';
      return { kind: 'acknowledged', device, atMs: at };
    }
    return data.expired === 1 ? { kind: 'expired' } : { kind: 'pending' };
  }
  const error = refusal(' receipt', status, data, body, secrets);
  if (receiptUnknown(data, status)) return { kind: 'gone', error };
  const retryAfterMs = worthRetrying(status) ? parseRetryAfter(headers.get('retry-after'), nowMs) : undefined;
  return retryAfterMs === undefined ? { kind: 'failed', error } : { kind: 'failed', error, retryAfterMs };
}

/** What a cancel's answer says. */
export function classifyCancel(status: number, headers: Headers, body: string, nowMs: number, secrets: readonly string[]): ReceiptCancel {
  const data = parse(body);
  if (status >= 200 && status < 300 && data.status === 1) return { kind: 'cancelled' };
  const error = refusal(' cancel', status, data, body, secrets);
  if (receiptUnknown(data, status)) return { kind: 'gone', error };
  const retryAfterMs = worthRetrying(status) ? parseRetryAfter(headers.get('retry-after'), nowMs) : undefined;
  return retryAfterMs === undefined ? { kind: 'failed', error } : { kind: 'failed', error, retryAfterMs };
}

/** Whether a receipt id can go into a URL path. */
export const isReceiptId = (id: string): boolean => RECEIPT.test(id);
