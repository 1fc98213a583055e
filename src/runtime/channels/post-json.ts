/**
 * One JSON POST to a channel's vendor (webhook, Teams, PagerDuty, Slack; contract §9.5, §18), with the
 * last look of a page's message right before the wire (channel.ts WireGate, §17.4).
 *
 * "Committed to the wire", for HTTP: the request's bytes — head and body, sent together — handed to
 * the kernel on a connection already open. Until then the receiver holds no request it could act on
 * (a connection opened and closed, at most). So the request is built first, the connection made (the
 * slow part: DNS, TCP, TLS — a black-holed host spends the whole deadline here), then the gate is
 * entered, the request written, and the gate left as soon as Node reports the last byte handed to the
 * socket (`finish`). A gate that says no closes the connection before a byte of the request is sent.
 * node:http rather than fetch: fetch offers no moment between "connected" and "request written".
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
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
function written(req: ClientRequest, payload: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    req.once('error', reject);
    req.end(payload, () => resolve());
  });
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Statuses whose answers have no body (a Response refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * One POST of `body` as JSON. Never throws. The deadline (`timeoutMs`) covers connecting, the last
 * look, the response head and reading at most `maxBodyBytes` of the body; `signal` cancels it all.
 * Redirects are not followed: a 3xx comes back as a response (a redirected POST would lose its body
 * or carry a bearer token to another host).
 */
export async function postJson(url: string, body: unknown, options: {
  headers: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  maxBodyBytes: number;
  clock: Clock;
  gate?: WireGate;
}): Promise<HttpAttempt> {
  if (options.signal.aborted) return { kind: 'aborted' };
  const deadline = startDeadline(options.timeoutMs, options.clock, options.signal);
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  const target = new URL(url);
  const tls = target.protocol === 'https:';
  let req: ClientRequest | null = null;
  try {
    req = (tls ? httpsRequest : httpRequest)(target, { method: 'POST', signal: deadline.signal,
      headers: { ...options.headers, 'Content-Length': String(payload.length) } });
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
    const headers = toHeaders(res.headers);
    const stream = NULL_BODY.has(status) ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>;
    const text = await readBodyPrefix(new Response(stream, { status, headers }), options.maxBodyBytes);
    req = null;
    return { kind: 'response', status, headers, body: text };
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

/** A socket error as text: the code (ECONNREFUSED, ENOTFOUND, …) and the message. */
function networkErrorText(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const source = cause instanceof Error ? cause : err;
  if (source instanceof Error) {
    const code = (source as NodeJS.ErrnoException).code;
    return code && !source.message.includes(code) ? `${code}: ${source.message}` : source.message;
  }
  return String(source);
}
