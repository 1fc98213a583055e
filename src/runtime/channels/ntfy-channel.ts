/**
 * `ntfy` channel (contract §21.2): a push notification through an ntfy server
 * (https://docs.ntfy.sh/publish/), one POST per message to `<server>/<topic>`:
 *
 *   POST /alice-7f3k2q                     Authorization: Bearer <token>   (when the channel has one)
 *   Title: [P1] HighLatency on api-1       Priority: 5                     Tags: rotating_light,P1
 *   Actions: http, Acknowledge, <ack link>, method=POST, clear=true; http, Resolve, <resolve link>, method=POST, clear=true
 *
 *   <the message text: what is wrong, who is paged (oncall/page-text.ts), without its title line>
 *
 * Priority 5 (max) pops over and vibrates in long bursts until seen; P2 is 4, P3 3; a status update
 * (an acknowledgement, a resolution) is 2, which makes no sound. The `Actions` buttons POST the person's
 * one-time ack links (§18.6) from the phone, and clear the notification when that succeeds.
 *
 * Headers are ASCII on the wire: a title with other characters is sent as an RFC 2047 encoded-word
 * (`=?UTF-8?B?…?=`), which ntfy decodes (server/util.go maybeDecodeHeader). A body over 4,096 bytes
 * would become an attachment, so it is cut before. ntfy has no field for svc's deliveryId.
 *
 * ntfy answers 200 with the message as JSON (`{"id":…,"event":"message",…}`) and errors as
 * `{"code":40301,"http":403,"error":"forbidden","link":…}` (server/errors.go); 429 (`42901` too many
 * requests, `42908` daily quota) and 5xx are retried, any other 4xx is given up with ntfy's code. The
 * token never appears in a result.
 */
import type { NtfyChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, Severity, WireGate } from './channel.js';
import { NOT_SENT, isStatusUpdate, linkActions, messageText } from './channel.js';
import { actionLabel } from '../../oncall/page-text.js';
import { cutChars, cutUtf8, oneLine } from './cut-text.js';
import { parseRetryAfter, safeSnippet } from './http-channel.js';
import type { HttpAttempt } from './http-client.js';
import { httpRequest } from './http-client.js';

/** ntfy's message limit: a longer body is stored as an attachment (docs: Limitations). */
export const NTFY_MAX_BODY_BYTES = 4096;
/** A title longer than this is cut: it is a notification's heading, and a header. */
const MAX_TITLE_CHARS = 200;
const MAX_RESPONSE_BYTES = 16 * 1024;

/** ntfy priorities (docs: Message priority): 5 max, 4 high, 3 default, 2 low (no sound or vibration). */
const PRIORITY: Record<Severity, string> = { P1: '5', P2: '4', P3: '3' };
const STATUS_PRIORITY = '2';
/** Emoji tags (docs: Tags & emojis), shown before the title. */
const SEVERITY_TAG: Record<Severity, string> = { P1: 'rotating_light', P2: 'warning', P3: 'information_source' };

export interface NtfyRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A header value as ntfy reads it: as it is when printable ASCII, else an RFC 2047 encoded-word
 * (base64 of UTF-8), split into words of at most 75 characters at character boundaries (RFC 2047 §2);
 * the spaces between words are not part of the text (§6.2).
 */
export function encodeHeaderText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const words: string[] = [];
  let chunk = '';
  // 75 - "=?UTF-8?B?".length - "?=".length = 63 base64 characters: 45 bytes of UTF-8.
  for (const ch of text) {
    if (Buffer.byteLength(chunk + ch, 'utf8') > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk !== '') words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(' ');
}

/** A value of the `Actions` short format: quoted when it holds the format's separators (docs: Using a header). */
function actionValue(url: string): string {
  const href = new URL(url).href; // ASCII on the wire: punycode host, percent-encoded path
  return /[,;]/.test(href) ? `"${href}"` : href;
}

/** A status update's tag (ntfy shows it as an emoji): acknowledged, an alert joined the acknowledged page; else resolved. */
const STATUS_TAG: Readonly<Record<string, string>> = { acknowledged: 'eyes', 'joined-acked': 'heavy_plus_sign' };

/** The request for a message (pure); null when the message names nobody and the channel has no topic of its own. */
export function ntfyRequest(message: OutboundMessage, config: NtfyChannelConfig, clickUrl: string | null = null): NtfyRequest | null {
  const topic = message.to ?? config.topic;
  if (topic === undefined) return null;
  const status = isStatusUpdate(message);
  const tag = status ? STATUS_TAG[message.pageKind ?? ''] ?? 'white_check_mark' : SEVERITY_TAG[message.severity];
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain; charset=utf-8',
    Title: encodeHeaderText(cutChars(oneLine(`[${message.severity}] ${message.title}`), MAX_TITLE_CHARS)),
    Priority: status ? STATUS_PRIORITY : PRIORITY[message.severity],
    Tags: `${tag},${message.severity}`,
  };
  // The console's page (§21.2) once svc knows where the console is reached from outside.
  if (clickUrl !== null) headers.Click = new URL(clickUrl).href;
  // The person's links are the message's buttons (§24.1): only the actions that still make sense, and no link line below.
  const buttons = linkActions(message);
  if (buttons.length > 0) {
    headers.Actions = buttons.map((b) => `http, ${actionLabel(b.action)}, ${actionValue(b.url)}, method=POST, clear=true`).join('; ');
  }
  if (config.token !== undefined) headers.Authorization = `Bearer ${config.token}`;
  const body = message.page === undefined ? message.text : messageText(message, { buttons: message.links !== undefined, title: true });
  return { url: `${config.server.replace(/\/+$/, '')}/${topic}`, headers, body: cutUtf8(body, NTFY_MAX_BODY_BYTES) };
}

/** The outcome of ntfy's answer. */
export function classifyNtfy(status: number, headers: Headers, body: string, nowMs: number, secrets: readonly string[]): DeliveryResult {
  let data: { id?: unknown; code?: unknown; error?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) data = parsed;
  } catch {
    // Not ntfy's JSON (a proxy's page): the status says enough.
  }
  if (status >= 200 && status < 300) {
    return { ok: true, detail: { httpStatus: String(status), ...(typeof data.id === 'string' ? { ntfyId: safeSnippet(data.id, secrets, 64) } : {}) } };
  }
  const code = typeof data.code === 'number' ? ` (${data.code})` : '';
  const said = typeof data.error === 'string' ? data.error : body || 'no body';
  const error = `ntfy ${status}${code}: ${safeSnippet(said, secrets)}`;
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), nowMs);
    return retryAfterMs === undefined ? { ok: false, retryable: true, error } : { ok: false, retryable: true, error, retryAfterMs };
  }
  return { ok: false, retryable: false, error };
}

export function createNtfyChannel(config: NtfyChannelConfig, deps: { clock: Clock }): Channel {
  const secrets = config.token === undefined ? [] : [config.token];
  let closed = false;
  let healthy = true;

  const toResult = (attempt: HttpAttempt): DeliveryResult => {
    switch (attempt.kind) {
      case 'timeout': return { ok: false, retryable: true, error: `ntfy: timed out after ${config.timeoutMs} ms` };
      case 'aborted': return { ok: false, retryable: true, error: 'aborted' };
      case 'cancelled': return NOT_SENT;
      case 'network': return { ok: false, retryable: true, error: `ntfy: network error: ${safeSnippet(attempt.error, secrets)}` };
      case 'response': return classifyNtfy(attempt.status, attempt.headers, attempt.body, deps.clock.now(), secrets);
    }
  };

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const request = ntfyRequest(message, config);
    if (request === null) {
      return { ok: false, retryable: false, error: `ntfy: the message names no person and channel ${config.id} has no topic of its own` };
    }
    const attempt = await httpRequest(request.url, { method: 'POST', body: request.body },
      { headers: request.headers, timeoutMs: config.timeoutMs, signal, maxBodyBytes: MAX_RESPONSE_BYTES, clock: deps.clock,
        ...(gate === undefined ? {} : { gate }) });
    const result = toResult(attempt);
    // A refused token (401, 403) or an unwell server leaves the channel not ready until a message goes through.
    if (attempt.kind !== 'aborted' && attempt.kind !== 'cancelled') {
      healthy = result.ok || (!result.retryable && !(attempt.kind === 'response' && (attempt.status === 401 || attempt.status === 403)));
    }
    return result;
  }

  return {
    id: config.id,
    type: 'ntfy',
    direction: 'outbound',
    rings: true,
    maxAttempts: config.maxAttempts,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `ntfy: internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
