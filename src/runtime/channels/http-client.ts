/**
 * The one HTTP client of the channels (contract §9.5, §18, §21): every request a channel makes to its
 * vendor — a page's message, a receipt's poll, a Telegram poll — goes through `httpRequest`, over
 * `node:http`, with one deadline, no redirects, the answer read by core/read-body.ts, never throwing.
 * Two options make the difference between callers:
 *
 * - `gate`, the last look of a page's message right before the wire (channel.ts WireGate, §17.4).
 *   "Committed to the wire", for HTTP: the request's bytes — head and body, sent together — handed
 *   to the kernel on a connection already open. Until then the receiver holds no request it could
 *   act on (a connection opened and closed, at most). So the request is built first, the connection
 *   made (the slow part: DNS, TCP, TLS — a black-holed host spends the whole deadline here), then the
 *   gate is entered, the request written, and the gate left as soon as Node reports the last byte
 *   handed to the socket (`finish`). A gate that says no closes the connection before a byte of the
 *   request is sent. node:http rather than fetch: fetch offers no moment between "connected" and
 *   "request written".
 * - `agents`, a few kept-alive connections (keptAliveAgents) for a caller that asks one vendor the
 *   same small question many times a second (Pushover's receipts, §21.3); without, each request has a
 *   connection of its own.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpAgent, request as httpPlainRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.js';
import { startDeadline } from '../../core/deadline.js';
import { readBodyPrefix } from '../../core/read-body.js';
import type { WireGate } from './channel.js';
import { throughGate } from './channel.js';

export type HttpAttempt =
  | { kind: 'response'; status: number; headers: Headers; body: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  /** The gate said no: nothing of the request was sent. */
  | { kind: 'cancelled' }
  | { kind: 'network'; error: string };

/** Kept-alive connections for one caller, one pool per scheme; `maxSockets` holds the vendor's connection limit. */
export interface KeptAliveAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

export function keptAliveAgents(maxSockets: number): KeptAliveAgents {
  return { http: new HttpAgent({ keepAlive: true, maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets }) };
}

export interface HttpOptions {
  headers: Record<string, string>;
  /** Covers connecting, the last look, the response head and reading at most `maxBodyBytes` of the body. */
  timeoutMs: number;
  /** Cancels it all. */
  signal: AbortSignal;
  maxBodyBytes: number;
  clock: Clock;
  /** A page's message: the last look right before the request's bytes (§17.4). */
  gate?: WireGate;
  /** Kept-alive connections to use; without, a connection of the request's own. */
  agents?: KeptAliveAgents;
}

/** One POST of `body` as JSON (httpRequest). */
export function postJson(url: string, body: unknown, options: HttpOptions): Promise<HttpAttempt> {
  return httpRequest(url, { method: 'POST', body: JSON.stringify(body) }, options);
}

/**
 * One request with a text body (or none). Never throws. Redirects are not followed: a 3xx comes back
 * as a response (a redirected POST would lose its body or carry a bearer token to another host).
 */
export async function httpRequest(url: string, request: { method: 'GET' | 'POST'; body?: string }, options: HttpOptions): Promise<HttpAttempt> {
  if (options.signal.aborted) return { kind: 'aborted' };
  const deadline = startDeadline(options.timeoutMs, options.clock, options.signal);
  const payload = request.body === undefined ? null : Buffer.from(request.body, 'utf8');
  let req: ClientRequest | null = null;
  try {
    const target = new URL(url);
    const tls = target.protocol === 'https:';
    const headers = { ...options.headers, ...(payload === null ? {} : { 'Content-Length': String(payload.length) }) };
    const common = { method: request.method, signal: deadline.signal, headers };
    req = tls
      ? httpsRequest(target, { ...common, ...(options.agents === undefined ? {} : { agent: options.agents.https }) })
      : httpPlainRequest(target, { ...common, ...(options.agents === undefined ? {} : { agent: options.agents.http }) });
    const sending = req;
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      sending.once('response', resolve);
      sending.once('error', reject);
    });
    answered.catch(() => undefined); // awaited below, or given up with the request
    await connected(sending, tls);
    if (!await throughGate(options.gate, () => written(sending, payload))) {
      sending.destroy();
      return { kind: 'cancelled' };
    }
    const res = await answered;
    const status = res.statusCode ?? 0;
    // The one reader of HTTP bodies (core/read-body.ts), over the node stream: at most maxBodyBytes kept.
    const stream = NULL_BODY.has(status) ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>;
    const text = await readBodyPrefix(new Response(stream, { status }), options.maxBodyBytes);
    req = null;
    return { kind: 'response', status, headers: keptHeaders(res), body: text };
  } catch (err) {
    // Whatever failed (the look included), the connection goes: no half-made request is left on it.
    req?.destroy();
    if (deadline.why() === 'timeout') return { kind: 'timeout' };
    if (options.signal.aborted) return { kind: 'aborted' };
    return { kind: 'network', error: networkErrorText(err) };
  } finally {
    deadline.dispose();
  }
}

/** Resolves once the request's socket is connected (and, for TLS, secured); rejects with the request's error. */
function connected(req: ClientRequest, tls: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    req.once('error', reject);
    req.once('socket', (socket: Socket) => {
      // A kept-alive socket is connected already; a new one says when it is.
      if (!socket.connecting) resolve();
      else socket.once(tls ? 'secureConnect' : 'connect', () => resolve());
    });
  });
}

/** Writes the whole request; resolves once its last byte is handed to the socket (`finish`). */
function written(req: ClientRequest, payload: Buffer | null): Promise<void> {
  return new Promise((resolve, reject) => {
    req.once('error', reject);
    if (payload === null) req.end(() => resolve());
    else req.end(payload, () => resolve());
  });
}

/** Statuses whose answers have no body (a Response refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The answer's headers the channels read (`Retry-After`, `Content-Type`); a channel that reads
 * another adds it here. A Headers of every header costs more than the rest of a receipt's ask
 * (docs/performance.md, 2026-11-29).
 */
const KEPT_HEADERS = ['retry-after', 'content-type'] as const;

function keptHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of KEPT_HEADERS) {
    const value = res.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/** The system's reason (ECONNREFUSED, ENOTFOUND, …) without the URL, which may carry a token in its query. */
function networkErrorText(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const source = cause instanceof Error ? cause : err;
  if (source instanceof Error) {
    const code = (source as NodeJS.ErrnoException).code;
    return code && !source.message.includes(code) ? `${code}: ${source.message}` : source.message;
  }
  return String(source);
}
