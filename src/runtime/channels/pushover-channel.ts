/**
 * `pushover` channel (contract §21.3): one form POST to Pushover's Message API per message
 * (pushover-api.ts has the wire format and what its answers mean). A P1 page's message to a person
 * goes out at emergency priority and its answer carries a receipt: the channel hands it back with the
 * delivery (`DeliveryResult.receipt`), the store keeps it with the page, and the leader's receipt duty
 * (runtime/oncall/receipt-duty.ts) asks about it — and cancels it — through this channel's `receipts`,
 * so the application token never leaves this file. Those asks go over two kept-alive connections
 * (keep-alive-client.ts: Pushover wants no more than two at once, and at 1,000 receipts they are 33 a
 * second). Pushover has no field for svc's deliveryId; the token never appears in a result.
 */
import type { PushoverChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, ReceiptApi, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import { safeSnippet } from './http-channel.js';
import type { HttpAttempt } from './http-client.js';
import { httpRequest } from './http-client.js';
import { createKeepAliveClient } from './keep-alive-client.js';
import { classifyCancel, classifyMessage, classifyReceipt, isReceiptId, pushoverForm } from './pushover-api.js';

/** Pushover's answers are a few hundred bytes. */
const MAX_RESPONSE_BYTES = 16 * 1024;
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
/** Pushover: "Do not create more than 2 concurrent HTTP requests (TCP connections) to our API". */
const MAX_CONNECTIONS = 2;

export function createPushoverChannel(config: PushoverChannelConfig, deps: { clock: Clock }): Channel {
  const apiUrl = config.apiUrl.replace(/\/+$/, '');
  const secrets = [config.token];
  let closed = false;
  let healthy = true;
  const asks = createKeepAliveClient({ maxSockets: MAX_CONNECTIONS, timeoutMs: config.timeoutMs, maxBodyBytes: MAX_RESPONSE_BYTES, clock: deps.clock });

  /** A timeout, an abort or a network error, said without the URL (the receipt poll's carries the token). */
  const unanswered = (attempt: Exclude<HttpAttempt, { kind: 'response' | 'cancelled' }>): string => {
    if (attempt.kind === 'timeout') return `pushover: timed out after ${config.timeoutMs} ms`;
    if (attempt.kind === 'aborted') return 'aborted';
    return `pushover: network error: ${safeSnippet(attempt.error, secrets)}`;
  };

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const form = pushoverForm(message, config);
    if (form === null) {
      return { ok: false, retryable: false, error: `pushover: the message names no person and channel ${config.id} has no user of its own` };
    }
    const sentAtMs = deps.clock.now();
    const attempt = await httpRequest(`${apiUrl}/messages.json`, { method: 'POST', body: new URLSearchParams(form).toString() },
      { headers: FORM, timeoutMs: config.timeoutMs, signal, maxBodyBytes: MAX_RESPONSE_BYTES, clock: deps.clock, ...(gate === undefined ? {} : { gate }) });
    if (attempt.kind === 'cancelled') return NOT_SENT;
    if (attempt.kind !== 'response') {
      if (attempt.kind !== 'aborted') healthy = false;
      return { ok: false, retryable: true, error: unanswered(attempt) };
    }
    const result = classifyMessage(attempt.status, attempt.headers, attempt.body, sentAtMs, config, secrets);
    // A refused token is the channel's own fault: not ready until a message goes through.
    const tokenRefused = attempt.status >= 400 && attempt.status < 500 && /"token"\s*:/.test(attempt.body);
    healthy = result.ok || (!result.retryable && !tokenRefused);
    return result;
  }

  const receipts: ReceiptApi = {
    async poll(receipt, signal) {
      if (!isReceiptId(receipt)) return { kind: 'gone', error: 'pushover receipt: not a receipt id' };
      const attempt = await asks.request(`${apiUrl}/receipts/${receipt}.json?${new URLSearchParams({ token: config.token }).toString()}`,
        { method: 'GET' }, signal);
      if (attempt.kind === 'cancelled') return { kind: 'failed', error: 'pushover receipt: not sent' };
      if (attempt.kind !== 'response') return { kind: 'failed', error: unanswered(attempt) };
      return classifyReceipt(attempt.status, attempt.headers, attempt.body, deps.clock.now(), secrets);
    },
    async cancel(receipt, signal) {
      if (!isReceiptId(receipt)) return { kind: 'gone', error: 'pushover cancel: not a receipt id' };
      const attempt = await asks.request(`${apiUrl}/receipts/${receipt}/cancel.json`,
        { method: 'POST', headers: FORM, body: new URLSearchParams({ token: config.token }).toString() }, signal);
      if (attempt.kind === 'cancelled') return { kind: 'failed', error: 'pushover cancel: not sent' };
      if (attempt.kind !== 'response') return { kind: 'failed', error: unanswered(attempt) };
      return classifyCancel(attempt.status, attempt.headers, attempt.body, deps.clock.now(), secrets);
    },
  };

  const guarded = <T>(what: string, run: () => Promise<T>, fail: (error: string) => T): Promise<T> =>
    run().catch((err: unknown) => fail(`pushover${what}: internal error: ${safeSnippet(errorText(err), secrets)}`));

  return {
    id: config.id,
    type: 'pushover',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    receipts: {
      poll: (receipt, signal) => guarded(' receipt', () => receipts.poll(receipt, signal), (error) => ({ kind: 'failed', error })),
      cancel: (receipt, signal) => guarded(' cancel', () => receipts.cancel(receipt, signal), (error) => ({ kind: 'failed', error })),
    },
    send: (message, signal, gate) => guarded('', () => send(message, signal, gate), (error) => ({ ok: false, retryable: true, error })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      asks.close();
      return Promise.resolve();
    },
  };
}
