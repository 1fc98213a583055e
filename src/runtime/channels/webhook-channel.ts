/**
 * `webhook` channel (contract §9.5): POSTs each message as JSON to `config.url` — the same object
 * the file channel writes as a line. Also home of the small HTTP attempt helpers the Slack channel
 * shares (one POST with a per-attempt deadline, Retry-After parsing).
 */
import type { WebhookChannelConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { startDeadline } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import type { Channel, DeliveryResult, OutboundMessage } from './channel.js';
import { textWithLinks } from './channel.js';
import { outboundRecord } from './file-channel.js';

/** Enough of an error response to say what went wrong, never a whole page. */
const ERROR_BODY_BYTES = 2048;
const ERROR_SNIPPET_CHARS = 200;
/** A Retry-After beyond a day is a misconfigured server; the dispatcher caps lower anyway. */
const MAX_RETRY_AFTER_MS = 86_400_000;

export type HttpAttempt =
  | { kind: 'response'; status: number; headers: Headers; body: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'network'; error: string };

/**
 * One POST of `body` as JSON. Never throws. The deadline (`timeoutMs`) covers connecting, the
 * response head and reading at most `maxBodyBytes` of the body; `signal` cancels it all.
 * Redirects are not followed: a 3xx comes back as a response (a redirected POST would lose its
 * body or carry a bearer token to another host).
 */
export async function postJson(url: string, body: unknown, options: {
  headers: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  maxBodyBytes: number;
  clock: Clock;
}): Promise<HttpAttempt> {
  if (options.signal.aborted) return { kind: 'aborted' };
  const deadline = startDeadline(options.timeoutMs, options.clock, options.signal);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: options.headers,
      body: JSON.stringify(body),
      signal: deadline.signal,
      redirect: 'manual',
    });
    const text = await readCapped(res, options.maxBodyBytes);
    return { kind: 'response', status: res.status, headers: res.headers, body: text };
  } catch (err) {
    if (deadline.why() === 'timeout') return { kind: 'timeout' };
    if (options.signal.aborted) return { kind: 'aborted' };
    return { kind: 'network', error: networkErrorText(err) };
  } finally {
    deadline.dispose();
  }
}

/** Reads at most `maxBytes` of the body as UTF-8, then releases the connection. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  // undici's body is a byte stream; @types/node types its chunks as `any`.
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size >= maxBytes) break;
    }
  } finally {
    // Cancelling a finished stream is a no-op; cancelling an unfinished one frees the socket.
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, maxBytes));
}

/** undici reports "fetch failed" and hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, …). */
function networkErrorText(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const source = cause instanceof Error ? cause : err;
  if (source instanceof Error) {
    const code = (source as NodeJS.ErrnoException).code;
    return code && !source.message.includes(code) ? `${code}: ${source.message}` : source.message;
  }
  return String(source);
}

/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `nowMs`.
 * Undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP-date always names a weekday and GMT; Date.parse alone would also take "5" or "2 days".
  if (!/GMT$/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

/** Collapses whitespace, removes each secret, caps the length: safe for logs and dead letters. */
export function safeSnippet(text: string, secrets: readonly string[], max = ERROR_SNIPPET_CHARS): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

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
 * it never appears in a result. The message's deliveryId goes out as `Idempotency-Key` so a receiver can
 * drop the duplicates that at-least-once delivery implies.
 */
export function createWebhookChannel(config: WebhookChannelConfig, deps: { clock: Clock }): Channel {
  let closed = false;
  let healthy = true;
  const secrets = [config.url];

  async function send(message: OutboundMessage, signal: AbortSignal): Promise<DeliveryResult> {
    if (closed) return { ok: false, retryable: true, error: 'channel closed' };
    const record = { ...outboundRecord(config.id, config.to, message, deps.clock), text: textWithLinks(message) };
    const attempt = await postJson(config.url, record, {
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': message.deliveryId },
      timeoutMs: config.timeoutMs,
      signal,
      maxBodyBytes: ERROR_BODY_BYTES,
      clock: deps.clock,
    });
    const result = toResult(attempt);
    if (attempt.kind !== 'aborted') healthy = result.ok || !result.retryable;
    return result;
  }

  function toResult(attempt: HttpAttempt): DeliveryResult {
    switch (attempt.kind) {
      case 'timeout':
        return { ok: false, retryable: true, error: `timed out after ${config.timeoutMs} ms` };
      case 'aborted':
        return { ok: false, retryable: true, error: 'aborted' };
      case 'network':
        return { ok: false, retryable: true, error: `network error: ${safeSnippet(attempt.error, secrets)}` };
      case 'response':
        return classifyWebhookStatus(attempt.status, attempt.headers, safeSnippet(attempt.body, secrets), deps.clock.now());
    }
  }

  return {
    id: config.id,
    type: 'webhook',
    direction: 'outbound',
    maxAttempts: config.maxAttempts,
    send: (message, signal) => send(message, signal).catch((err: unknown) => ({
      ok: false as const, retryable: true, error: `internal error: ${safeSnippet(errorText(err), secrets)}` })),
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    /** False after a network error, timeout or 5xx, until a delivery succeeds again. */
    ready: () => !closed && healthy,
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
}
