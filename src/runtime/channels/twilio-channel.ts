/**
 * `twilio` channel (contract §21.4): an SMS or a phone call through Twilio's REST API, form-encoded,
 * Basic auth `<accountSid>:<authToken>` (https://www.twilio.com/docs/usage/requests-to-twilio):
 *
 *   mode sms:   POST {apiUrl}/2010-04-01/Accounts/{sid}/Messages.json  To, From, Body
 *   mode voice: POST {apiUrl}/2010-04-01/Accounts/{sid}/Calls.json     To, From, Url, StatusCallback
 *
 * A created message or call (201 with its `sid`) is delivered — for a call that means placed: whether
 * it is answered comes later to the Twilio source's status URL, and a call nobody takes is recorded
 * there as a failed try of its step. The SMS text is twilio-text.ts's; a call's `Url` and
 * `StatusCallback` are `<publicUrl>/voice/<token>` and `<publicUrl>/status/<token>` on the source that
 * serves this channel (oncall/call-token.ts).
 *
 * Twilio answers errors with JSON `{"code", "message", "more_info", "status"}`
 * (https://www.twilio.com/docs/usage/twilios-response); a given-up message carries that code
 * (`twilio 400 21211: …`). 429 (Twilio's 20429) and 5xx are retried after `Retry-After` when Twilio
 * sends one; a 401 (20003, bad credentials) marks the channel not ready until a message goes through.
 * Twilio's API has no place for an idempotency key, so a retry after a lost answer may send twice.
 */
import type { TwilioChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import { mintCallToken } from '../../oncall/call-token.js';
import { smsReplyCode } from '../../oncall/sms-reply.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { parseJsonObject, parseRetryAfter, safeSnippet } from './http-channel.js';
import type { HttpAttempt } from './http-client.js';
import { httpRequest } from './http-client.js';
import { asksForAnswer, callClaims, smsText } from './twilio-text.js';

/** Twilio's answers are a resource or an error object; more is not Twilio's. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface TwilioChannelDeps {
  clock: Clock;
  /** The `type: twilio` source serving this channel (its `publicUrl`), when there is one: it takes SMS replies and serves calls. */
  source?: { publicUrl: string };
}

export function createTwilioChannel(config: TwilioChannelConfig, deps: TwilioChannelDeps): Channel {
  const apiUrl = config.apiUrl.replace(/\/+$/, '');
  const base = `${apiUrl}/2010-04-01/Accounts/${config.accountSid}`;
  const credentials = Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64');
  const secrets = [config.authToken, credentials];
  const publicUrl = deps.source?.publicUrl.replace(/\/+$/, '');
  let closed = false;
  let healthy = true;

  function classify(what: string, attempt: HttpAttempt): DeliveryResult {
    const fail = (retryable: boolean, error: string, retryAfterMs?: number): DeliveryResult => {
      const text = `twilio ${what}: ${safeSnippet(error, secrets)}`;
      return retryAfterMs === undefined ? { ok: false, retryable, error: text } : { ok: false, retryable, error: text, retryAfterMs };
    };
    if (attempt.kind === 'timeout') return fail(true, `timed out after ${config.timeoutMs} ms`);
    if (attempt.kind === 'aborted') return fail(true, 'aborted');
    if (attempt.kind === 'cancelled') return NOT_SENT;
    if (attempt.kind === 'network') return fail(true, `network error: ${attempt.error}`);
    const { status } = attempt;
    const data = parseJsonObject(attempt.body);
    if (status >= 200 && status < 300) {
      const sid = data?.sid;
      if (typeof sid === 'string' && /^[A-Za-z0-9]{2,64}$/.test(sid)) return { ok: true, detail: { sid } };
      return fail(true, `HTTP ${status} without a sid: unexpected response`);
    }
    const code = typeof data?.code === 'number' ? ` ${data.code}` : '';
    const said = typeof data?.message === 'string' ? data.message : `HTTP ${status}`;
    const error = `${status}${code}: ${said}`;
    if (status === 429) return fail(true, error, parseRetryAfter(attempt.headers.get('retry-after'), deps.clock.now()));
    if (status === 408 || status >= 500) return fail(true, error);
    return fail(false, error);
  }

  /** The request of one message: where to, and its form. */
  function request(message: OutboundMessage, to: string): { what: string; url: string; form: Record<string, string> } | DeliveryResult {
    if (config.mode === 'sms') {
      const code = publicUrl !== undefined && message.pageId !== undefined && asksForAnswer(message)
        ? smsReplyCode(config.authToken, message.agentId, message.pageId, to) : null;
      return { what: 'Messages', url: `${base}/Messages.json`, form: { To: to, From: config.from, Body: smsText(message, code) } };
    }
    // Configuration refuses a voice channel without its source; this is the last word if one slips through.
    if (publicUrl === undefined) return { ok: false, retryable: false, error: `twilio channel ${config.id}: a call needs a type: twilio source to serve it` };
    const token = mintCallToken(callClaims(message));
    return { what: 'Calls', url: `${base}/Calls.json`,
      form: { To: to, From: config.from, Url: `${publicUrl}/voice/${token}`, StatusCallback: `${publicUrl}/status/${token}` } };
  }

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const to = message.to ?? config.to;
    if (to === undefined) {
      return { ok: false, retryable: false, error: `twilio channel ${config.id} has no \`to\`: it sends only to people's contacts` };
    }
    const req = request(message, to);
    if ('ok' in req) return req;
    const attempt = await httpRequest(req.url, { method: 'POST', body: new URLSearchParams(req.form).toString() }, {
      headers: { 'Authorization': `Basic ${credentials}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Accept': 'application/json' },
      timeoutMs: config.timeoutMs, signal, maxBodyBytes: MAX_RESPONSE_BYTES, clock: deps.clock, ...(gate === undefined ? {} : { gate }),
    });
    const result = classify(req.what, attempt);
    if (attempt.kind !== 'aborted' && attempt.kind !== 'cancelled') {
      const authFailed = attempt.kind === 'response' && (attempt.status === 401 || attempt.status === 403);
      healthy = !authFailed && (result.ok || !result.retryable);
    }
    return result;
  }

  return {
    id: config.id,
    type: 'twilio',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `twilio: internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after bad credentials, a timeout, a network error or a 5xx, until a message goes through. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
