/**
 * One HTTP request to a model over plain `fetch`, and what its response means (contract §14.3): the
 * status classified into an outcome, `Retry-After` read, the body read up to a bound. No wire format
 * here, no retries (llm-call.ts), and no key in anything it returns.
 */
import { checkJsonShape, MAX_DEPTH } from '../../core/json-shape.js';
import { BodyTooLargeError, readBodyText } from '../../core/read-body.js';
import type { LlmOutcome } from '../../metrics/metric-names.js';
import { providerError } from './wire-common.js';

/**
 * Most bytes of one answer read, counted as it streams: a runaway or hostile server cannot fill the
 * daemon's memory. 2 MiB is several times the largest real answer (`maxTokens` is at most 64,000
 * tokens); past it the answer is `malformed`, retried, and in the end the triage's failure.
 */
export const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export type HttpFailureOutcome = Exclude<LlmOutcome, 'ok' | 'cut-off' | 'refused'>;

export type HttpResult =
  | { ok: true; status: number; body: unknown }
  | {
    ok: false;
    outcome: HttpFailureOutcome;
    status: number | null;
    /** From `retry-after-ms` or `retry-after` (seconds or an HTTP date). */
    retryAfterMs: number | null;
    /** The provider's error type (a short token), for svc's own error texts. */
    errorType: string | null;
    /** The provider's free text or the transport's, for the agent log only; the key is already removed. */
    detail: string;
  };

/** What a non-2xx status means, and whether another attempt can help. */
export function outcomeOfStatus(status: number): HttpFailureOutcome {
  if (status === 429) return 'rate-limited';
  // 529: Anthropic's overloaded_error; 503: "the engine is currently overloaded" on OpenAI-compatible servers.
  if (status === 529 || status === 503) return 'overloaded';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server-error';
  return 'client-error';
}

export const RETRYABLE_OUTCOMES: ReadonlySet<LlmOutcome> = new Set<LlmOutcome>(['rate-limited', 'overloaded', 'server-error',
  'timeout', 'network-error', 'malformed']);

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(headers: Headers, nowMs: number): number | null {
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // An HTTP date starts with the day's name ("Sun, 06 Nov 1994 08:49:37 GMT"); anything else is ignored.
  if (!/^[A-Za-z]{3},? /.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * Removes the key from a text that came from outside (an error message may echo it), and anything
 * shaped like a vendor key, then clips it.
 */
export function redactor(apiKey: string): (text: string, max?: number) => string {
  return (text, max = 300) => {
    let out = apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
    // `sk-…` is both vendors' key shape (`sk-ant-…`, `sk-proj-…`), masked or not.
    out = out.replace(/\bsk-[A-Za-z0-9_*.-]{6,}/g, '[redacted]').replace(/\s+/g, ' ').trim();
    return out.length > max ? `${out.slice(0, max - 1)}…` : out;
  };
}

/** POSTs `body` as JSON. Never throws; an abort through `signal` comes back as outcome `aborted`. */
export async function postJson(opts: {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  nowMs: () => number;
  redact: (text: string) => string;
}): Promise<HttpResult> {
  const fail = (outcome: HttpFailureOutcome, status: number | null, detail: string,
    extra?: { retryAfterMs?: number | null; errorType?: string | null }): HttpResult =>
    ({ ok: false, outcome, status, retryAfterMs: extra?.retryAfterMs ?? null, errorType: extra?.errorType ?? null, detail: opts.redact(detail) });
  let res: Response;
  try {
    res = await fetch(opts.url, { method: 'POST', headers: opts.headers, body: JSON.stringify(opts.body), signal: opts.signal, redirect: 'error' });
  } catch (err) {
    if (opts.signal.aborted) return fail('aborted', null, 'request aborted');
    return fail('network-error', null, transportText(err));
  }
  let text: string;
  try {
    text = await readBodyText(res, MAX_ANSWER_BYTES);
  } catch (err) {
    if (opts.signal.aborted) return fail('aborted', res.status, 'aborted while reading the answer');
    return fail(err instanceof BodyTooLargeError ? 'malformed' : 'network-error', res.status, transportText(err));
  }
  // The bounded shape check of webhook bodies, before anything is built: an answer nested thousands
  // of levels deep would overflow the stack of every recursive reader after JSON.parse (stringify,
  // schema validation) — outside any error handling.
  const shape = checkJsonShape(text);
  let body: unknown;
  let json = shape.ok;
  if (json) {
    try {
      body = JSON.parse(text);
    } catch {
      json = false;
    }
  }
  if (res.status >= 200 && res.status < 300) {
    if (!shape.ok && shape.reason === 'too-deep') return fail('malformed', res.status, `the answer nests deeper than ${MAX_DEPTH} levels`);
    return json ? { ok: true, status: res.status, body } : fail('malformed', res.status, 'the answer is not a JSON object');
  }
  const { type, message } = json ? providerError(body) : { type: null, message: null };
  return fail(outcomeOfStatus(res.status), res.status, message ?? `HTTP ${res.status}`,
    { retryAfterMs: retryAfterMs(res.headers, opts.nowMs()), errorType: type });
}

/** fetch's `TypeError: fetch failed` hides the reason in `cause` (ECONNREFUSED, …). */
function transportText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string' ? cause.code : '';
  return code ? `${err.message} (${code})` : err.message;
}
