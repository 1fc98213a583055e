/**
 * `webhook` channel (contract §9.5): POSTs each message as JSON to `config.url` — the same object
 * the file channel writes as a line — through the shared HTTP send shell (http-channel.ts).
 */
import type { WebhookChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { Channel, DeliveryResult } from './channel.js';
import { textWithLinks } from './channel.js';
import { outboundRecord } from './file-channel.js';
import { createHttpChannel, parseRetryAfter, safeSnippet } from './http-channel.js';

/** Enough of an error response to say what went wrong, never a whole page. */
const ERROR_BODY_BYTES = 2048;

/** Outcome of an HTTP status for a plain JSON receiver. */
export function classifyWebhookStatus(status: number, headers: Headers, body: string, nowMs: number): DeliveryResult {
  if (status >= 200 && status < 300) return { ok: true, detail: { httpStatus: String(status) } };
  const snippet = body ? `: ${body}` : '';
  if (status === 408 || status === 425 || status === 429 || status >= 500) {
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(headers.get('retry-after'), nowMs) : undefined;
    return retryAfterMs === undefined
      ? { ok: false, retryable: true, error: `HTTP ${status}${snippet}` }
      : { ok: false, retryable: true, error: `HTTP ${status}${snippet}`, retryAfterMs };
  }
  if (status >= 300 && status < 400) {
    return { ok: false, retryable: false, error: `HTTP ${status}: redirect not followed; configure the final URL` };
  }
  return { ok: false, retryable: false, error: `HTTP ${status}${snippet}` };
}

/**
 * The webhook URL is treated as a secret (incoming-webhook URLs usually carry a token in the path):
 * it never appears in a result.
 */
export function createWebhookChannel(config: WebhookChannelConfig, deps: { clock: Clock }): Channel {
  const secrets = [config.url];
  return createHttpChannel({
    id: config.id, type: 'webhook', url: config.url, timeoutMs: config.timeoutMs, maxAttempts: config.maxAttempts, secrets,
    errorPrefix: '', maxResponseBytes: ERROR_BODY_BYTES,
    body: (message) => ({ ...outboundRecord(config.id, config.to, message, deps.clock), text: textWithLinks(message) }),
    classify: (status, headers, body, nowMs) => classifyWebhookStatus(status, headers, safeSnippet(body, secrets), nowMs),
  }, deps);
}
