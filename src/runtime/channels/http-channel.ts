/**
 * The one send shell of the channels that POST JSON to a vendor (webhook, Teams, PagerDuty; contract
 * §9.5, §18): one POST (http-client.ts, with the last look of a page's message right before the wire)
 * with a per-attempt deadline, the answer classified by the channel, timeouts and network errors
 * retried, every text that leaves redacted of the channel's secrets, the channel's readiness following
 * its last outcome. Also home of the helpers every channel shares (`parseJsonObject`, `safeSnippet`).
 */
import type { ChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage, WireGate } from './channel.js';
import { NOT_SENT } from './channel.js';
import type { HttpAttempt } from './http-client.js';
import { postJson } from './http-client.js';

const ERROR_SNIPPET_CHARS = 200;

// The one reading of Retry-After lives in core; the channels import it from here as before.
export { parseRetryAfter } from '../../core/retry-after.js';

/** A vendor's answer as a JSON object, or undefined when it is not one (an HTML error page, a truncated body). */
export function parseJsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** Collapses whitespace, removes each secret, caps the length: safe for logs and dead letters. */
export function safeSnippet(text: string, secrets: readonly string[], max = ERROR_SNIPPET_CHARS): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** What makes one HTTP channel: where it posts, what, and how it reads the answer. */
export interface HttpChannelSpec {
  id: string;
  type: ChannelConfig['type'];
  url: string;
  timeoutMs: number;
  maxAttempts: number | undefined;
  /** Texts that must never leave in a result (the URL's token, a routing key). */
  secrets: readonly string[];
  /** Put before timeout and network errors (`teams: `); empty for none. */
  errorPrefix: string;
  /** Most of an answer read: enough to say what went wrong, never a whole page. */
  maxResponseBytes: number;
  followsPageState?: boolean;
  /** The JSON body for a message (pure). */
  body(message: OutboundMessage): unknown;
  /** The outcome of the vendor's answer; the body is raw (the classifier redacts what it quotes). */
  classify(status: number, headers: Headers, body: string, nowMs: number): DeliveryResult;
}

/**
 * A channel that POSTs each message as JSON with its deliveryId as `Idempotency-Key`, so a receiver
 * can drop the duplicates at-least-once delivery implies. Not ready after a retryable failure (a
 * network error, a timeout, a 5xx) until a message goes through.
 */
export function createHttpChannel(spec: HttpChannelSpec, deps: { clock: Clock }): Channel {
  let closed = false;
  let healthy = true;

  function toResult(attempt: HttpAttempt): DeliveryResult {
    switch (attempt.kind) {
      case 'timeout':
        return { ok: false, retryable: true, error: `${spec.errorPrefix}timed out after ${spec.timeoutMs} ms` };
      case 'aborted':
        return { ok: false, retryable: true, error: 'aborted' };
      case 'cancelled':
        return NOT_SENT;
      case 'network':
        return { ok: false, retryable: true, error: `${spec.errorPrefix}network error: ${safeSnippet(attempt.error, spec.secrets)}` };
      case 'response':
        return spec.classify(attempt.status, attempt.headers, attempt.body, deps.clock.now());
    }
  }

  async function send(message: OutboundMessage, signal: AbortSignal, gate?: WireGate): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const attempt = await postJson(spec.url, spec.body(message), {
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': message.deliveryId },
      timeoutMs: spec.timeoutMs, signal, maxBodyBytes: spec.maxResponseBytes, clock: deps.clock, ...(gate === undefined ? {} : { gate }),
    });
    const result = toResult(attempt);
    if (attempt.kind !== 'aborted' && attempt.kind !== 'cancelled') healthy = result.ok || !result.retryable;
    return result;
  }

  return {
    id: spec.id,
    type: spec.type,
    direction: 'outbound',
    ...(spec.followsPageState === true ? { followsPageState: true } : {}),
    maxAttempts: spec.maxAttempts,
    send: (message, signal, gate) => send(message, signal, gate).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `internal error: ${safeSnippet(errorText(err), spec.secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
