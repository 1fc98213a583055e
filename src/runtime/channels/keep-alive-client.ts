/**
 * Requests over a few kept-alive connections, for a channel that asks one vendor the same small
 * question many times a second (Pushover's receipts, §21.3: 1,000 receipts are 33 asks a second).
 * `node:http`'s Agent costs well under half of what `fetch` does per request here (docs/performance.md,
 * 2026-11-29), and its `maxSockets` holds the vendor's connection limit (Pushover: no more than two).
 * The answer is the same `HttpAttempt` the fetch-based helpers give (http-channel.ts): one deadline
 * over connecting, the head and at most `maxBodyBytes` of the body; redirects are not followed;
 * never throws.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.js';
import { startDeadline } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import { readBodyPrefix } from '../../core/read-body.js';
import type { HttpAttempt } from './http-channel.js';

export interface KeepAliveClient {
  request(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, signal: AbortSignal): Promise<HttpAttempt>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createKeepAliveClient(opts: { maxSockets: number; timeoutMs: number; maxBodyBytes: number; clock: Clock }): KeepAliveClient {
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: opts.maxSockets }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: opts.maxSockets }) };

  function request(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }, signal: AbortSignal): Promise<HttpAttempt> {
    if (signal.aborted) return Promise.resolve({ kind: 'aborted' });
    const deadline = startDeadline(opts.timeoutMs, opts.clock, signal);
    const secure = url.startsWith('https:');
    return new Promise<HttpAttempt>((resolve) => {
      let settled = false;
      const settle = (attempt: HttpAttempt): void => {
        if (settled) return;
        settled = true;
        deadline.dispose();
        resolve(attempt);
      };
      const failed = (err: unknown): void => {
        const why = deadline.why();
        settle(why === 'timeout' ? { kind: 'timeout' } : why === 'aborted' ? { kind: 'aborted' } : { kind: 'network', error: networkErrorText(err) });
      };
      const body = init.body === undefined ? undefined : Buffer.from(init.body, 'utf8');
      const headers = { ...init.headers, ...(body === undefined ? {} : { 'Content-Length': String(body.length) }) };
      const onResponse = (res: IncomingMessage): void => {
        const status = res.statusCode ?? 0;
        // The one reader of HTTP bodies (read-body.ts), over the node stream: at most maxBodyBytes kept.
        const stream = NULL_BODY.has(status) ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>;
        readBodyPrefix(new Response(stream, { status }), opts.maxBodyBytes)
          .then((body) => settle({ kind: 'response', status, headers: toHeaders(res), body }), failed);
      };
      const req = secure
        ? httpsRequest(url, { method: init.method, headers, agent: agents.https, signal: deadline.signal }, onResponse)
        : httpRequest(url, { method: init.method, headers, agent: agents.http, signal: deadline.signal }, onResponse);
      req.on('error', failed);
      req.end(body);
    });
  }

  return {
    request: (url, init, signal) => request(url, init, signal).catch((err: unknown) => ({ kind: 'network' as const, error: errorText(err) })),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Statuses whose answers have no body (a Response refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The answer's headers the channels read (`Retry-After`, `Content-Type`): a Headers of every header costs more than the rest of an ask. */
const KEPT_HEADERS = ['retry-after', 'content-type'] as const;

function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of KEPT_HEADERS) {
    const value = res.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/** The system's reason (ECONNREFUSED, ENOTFOUND, …) without the URL, which may carry a token in its query. */
function networkErrorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
