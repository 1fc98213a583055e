/**
 * Client side of the control plane for `svc ps`, `logs`, `events`, `dlq`, `audit`: where the listener
 * is (`--url`, else the running daemon's state file, else 127.0.0.1 and SVC_METRICS_PORT or 9464),
 * which bearer token to send (token-source.ts), and JSON reads that follow every page.
 */
import { readFileSync } from 'node:fs';
import { metricsPortFromEnv } from '../config/control-plane.js';
import { homePaths, svcHome } from '../config/paths.js';
import { DEFAULT_CONTROL_PLANE } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { withDeadline } from '../core/deadline.js';
import { HttpError, RuntimeError, UsageError, errorText } from '../core/errors.js';
import { networkFailure } from '../core/net-errors.js';
import { BodyTooLargeError, readBodyText } from '../core/read-body.js';
import type { CliContext } from './context.js';
import { createTokenSource } from './token-source.js';
import type { TokenSource } from './token-source.js';

/** A listener, the tokens to show it, and how long to wait for it. */
export interface ControlTarget {
  /** Origin plus path prefix, no trailing slash. */
  base: string;
  tokens: TokenSource;
  clock: Clock;
  /**
   * Longest wait for one exchange (ms): the token, then the headers and body of one JSON answer (one
   * page), or the headers of a stream. A view of many pages may take longer in all.
   */
  timeoutMs: number;
}

/** The single-host commands wait this long for one answer (a page of `audit --verify` may take a while). */
export const DEFAULT_EXCHANGE_TIMEOUT_MS = 120_000;

/** `--url` and `--dir` of a control-plane command → where to send requests and with which token. */
export function controlTarget(ctx: CliContext, opts: { url?: string; dir?: string }): ControlTarget {
  return {
    base: controlPlaneUrl(ctx, opts.url),
    tokens: createTokenSource(ctx, { dir: opts.dir }),
    clock: ctx.clock,
    timeoutMs: DEFAULT_EXCHANGE_TIMEOUT_MS,
  };
}

export function controlPlaneUrl(ctx: CliContext, explicit: string | undefined): string {
  if (explicit) {
    let url: URL;
    try {
      url = new URL(explicit);
    } catch {
      throw new UsageError(`--url: not a URL: ${explicit}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url: must be http(s)');
    return url.origin + url.pathname.replace(/\/$/, '');
  }
  try {
    const state = JSON.parse(readFileSync(homePaths(svcHome(ctx.env)).stateFile, 'utf8')) as { state?: string; controlPlane?: unknown };
    if (state.state === 'running' && typeof state.controlPlane === 'string') return state.controlPlane;
  } catch {
    // no state file: fall back to the default address
  }
  // The same reading of SVC_METRICS_PORT as the daemon's (config/control-plane.ts).
  const fromEnv = metricsPortFromEnv(ctx.env);
  if (!fromEnv.ok) throw new UsageError(fromEnv.error);
  const port = fromEnv.port ?? DEFAULT_CONTROL_PLANE.port;
  if (port === 0) throw new RuntimeError('ENOLISTENER', 'the control plane is disabled (SVC_METRICS_PORT=0)');
  return `http://${DEFAULT_CONTROL_PLANE.bind}:${port}`;
}

/** The 401 `reason` vocabulary is lower-case words and dashes; anything else from the wire is not echoed. */
const REASON = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * GET `pathAndQuery` with `Authorization: Bearer <token>` when the target has a token. A 401 with
 * reason `expired` is retried once with a fresh token when one can be had; any other 401 (or a second
 * one) throws `svc: control plane refused the request: <reason>` (exit 1). Other answers are returned
 * as they are. `signal` goes to fetch (it also ends the body); when it has aborted, fetch's own error
 * is rethrown so the caller can tell its timeout from its stop. No deadline of its own: see getJson.
 * Every RuntimeError thrown here has a `brief` (`connection refused`, `HTTP 401 (bad-signature)`).
 */
export async function authorizedGet(target: ControlTarget, pathAndQuery: string, headers: Record<string, string>,
  signal: AbortSignal): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const token = await target.tokens.token();
    let res: Response;
    try {
      res = await fetch(`${target.base}${pathAndQuery}`, {
        headers: { ...headers, ...(token !== null ? { authorization: `Bearer ${token}` } : {}) },
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${target.base} (is \`svc up\` running?): ${causeOf(err)}`,
        networkFailure(err));
    }
    if (res.status !== 401) return res;
    const reason = await reasonOf(res);
    if (reason === 'expired' && attempt === 0 && target.tokens.refresh()) continue;
    throw refused(reason, token !== null);
  }
}

/** The error a 401 becomes (exit 1); a hint when the answer is that no token came and none was sent. */
function refused(reason: string | null, sentToken: boolean): RuntimeError {
  const hint = reason === 'missing-token' && !sentToken
    ? '\nsvc: no token was sent: set SVC_TOKEN, or run from (or pass --dir) an agent directory whose controlPlane.auth uses provider oauth2-client'
    : '';
  return new RuntimeError('EUNAUTHORIZED', `svc: control plane refused the request: ${reason ?? 'HTTP 401 without a reason'}${hint}`,
    `HTTP 401 (${reason ?? 'no reason'})`);
}

/** An error answer (a 401's reason, a stream's refusal) is a short JSON object; more than this is not read. */
export const MAX_ERROR_BYTES = 64 * 1024;

async function reasonOf(res: Response): Promise<string | null> {
  try {
    const reason = (JSON.parse(await readBodyText(res, MAX_ERROR_BYTES)) as { reason?: unknown }).reason;
    return typeof reason === 'string' && REASON.test(reason) ? reason : null;
  } catch {
    return null;
  }
}

/** The `error` text of a JSON error answer, as a listener sent it (at most 200 characters), or null. */
export function errorOf(text: string): string | null {
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    return typeof error === 'string' ? error.slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** `HTTP 400 (invalid limit: …)`: the status and, when the listener said one, its short error. */
export function httpBrief(status: number, error: string | null): string {
  const shown = error === null ? '' : error.replace(/[^\x20-\x7E]/g, '?');
  return shown === '' ? `HTTP ${status}` : `HTTP ${status} (${shown.length > 80 ? `${shown.slice(0, 80)}…` : shown})`;
}

/**
 * One answer's status and text, headers and body within `target.timeoutMs` (then a RuntimeError
 * `timeout`). When `signal` aborts first, its reason is thrown.
 */
async function getAnswer(target: ControlTarget, path: string, params: URLSearchParams, accept: string,
  signal?: AbortSignal, maxBytes: number = MAX_ANSWER_BYTES): Promise<{ status: number; ok: boolean; text: string }> {
  const query = params.toString();
  const got = await withDeadline(target.timeoutMs, target.clock, signal, async (s) => {
    const res = await authorizedGet(target, `${path}${query ? `?${query}` : ''}`, { accept }, s);
    return { status: res.status, ok: res.ok, text: await readCapped(res, path, maxBytes) };
  });
  if (!got.ok) {
    if (got.why === 'timeout') {
      throw new RuntimeError('ETIMEOUT', `${path}: no answer from ${target.base} within ${target.timeoutMs} ms`, 'timeout');
    }
    if (got.why === 'aborted' || got.error instanceof RuntimeError) throw got.error;
    // The headers came and the body did not: the connection dropped mid-answer.
    throw new RuntimeError('EUNREACHABLE', `${path}: the answer from ${target.base} was cut short: ${causeOf(got.error)}`,
      `answer cut short (${networkFailure(got.error)})`);
  }
  return got.value;
}

/** The error an answer with an error status becomes: `<path>: HTTP <status>: <error>`, its status typed. */
export function httpError(path: string, status: number, text: string): HttpError {
  const error = errorOf(text);
  return new HttpError(status, error, `${path}: HTTP ${status}: ${error ?? text.slice(0, 200)}`, httpBrief(status, error));
}

/**
 * One JSON answer, headers and body within `target.timeoutMs` (then a RuntimeError `timeout`).
 * When `signal` aborts first, its reason is thrown.
 */
export async function getJson(target: ControlTarget, path: string, params: URLSearchParams = new URLSearchParams(),
  signal?: AbortSignal): Promise<unknown> {
  return (await getJsonSized(target, path, params, signal, MAX_ANSWER_BYTES)).body;
}

/** getJson with its own cap on the answer (at most MAX_ANSWER_BYTES); also says how many bytes it read. */
async function getJsonSized(target: ControlTarget, path: string, params: URLSearchParams, signal: AbortSignal | undefined,
  maxBytes: number): Promise<{ body: unknown; bytes: number }> {
  const { status, ok, text } = await getAnswer(target, path, params, 'application/json', signal, maxBytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RuntimeError('EBADRESPONSE', `${path}: HTTP ${status}, not JSON`, `HTTP ${status}, not JSON`);
  }
  if (!ok) throw httpError(path, status, text);
  return { body, bytes: Buffer.byteLength(text) };
}

/** One answer that is not JSON (`/oncall/<schedule>.ics`) as text; an error answer (JSON) throws as getJson's do. */
export async function getText(target: ControlTarget, path: string, params: URLSearchParams, accept: string): Promise<string> {
  const { status, ok, text } = await getAnswer(target, path, params, accept);
  if (!ok) throw httpError(path, status, text);
  return text;
}

/** A page holds at most 4 MiB of JSON (contract §11.4); an answer far past that is not one to hold in memory. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The answer's text within `maxBytes` (the cap holds while it streams: core/read-body.ts). */
async function readCapped(res: Response, path: string, maxBytes: number): Promise<string> {
  try {
    return await readBodyText(res, maxBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      throw new RuntimeError('ETOOLARGE', `${path}: the answer is larger than ${maxBytes} bytes`, 'answer too large');
    }
    throw err;
  }
}

export interface PageEnvelope<T> {
  items: T[];
  nextCursor: string | null;
  verify?: unknown;
}

export interface PageWalkOptions {
  /** Stops the walk (its reason is thrown). */
  signal?: AbortSignal;
  /** Stop following pages once this many items are in hand (the walk may return a few more). */
  maxItems?: number;
  /** Runs each page request (svc fleet: a limiter shared by every host, at most 16 requests at once). */
  gate?: <R>(request: () => Promise<R>) => Promise<R>;
  /** At most this many pages (svc fleet: per host); more is a RuntimeError `too many pages`. */
  maxPages?: number;
  /** At most this many bytes of answers in all (svc fleet: per host); more is refused as it streams. */
  maxBytes?: number;
}

/**
 * Follows `nextCursor` until the last page (or `maxItems`); returns every item, in order, and the
 * first page's extras. Each page has its own `target.timeoutMs`. A cursor the listener already sent
 * is refused (`cursor repeats`): following it would walk the same pages for ever.
 */
export async function getAllPages<T>(target: ControlTarget, path: string, params: URLSearchParams,
  opts: PageWalkOptions = {}): Promise<PageEnvelope<T>> {
  const maxPages = opts.maxPages ?? Infinity;
  const maxBytes = opts.maxBytes ?? Infinity;
  let bytes = 0;
  let pages = 0;
  const get = async (query: URLSearchParams): Promise<PageEnvelope<T>> => {
    if (pages >= maxPages) {
      throw new RuntimeError('ETOOLARGE', `${path}: ${target.base} has more than ${maxPages} pages; narrow it with --since or --limit`,
        `over ${maxPages} pages`);
    }
    pages += 1;
    const cap = Math.min(MAX_ANSWER_BYTES, maxBytes - bytes);
    const request = (): Promise<{ body: unknown; bytes: number }> => getJsonSized(target, path, query, opts.signal, cap);
    try {
      const got = await (opts.gate ? opts.gate(request) : request());
      bytes += got.bytes;
      return asPage<T>(got.body, path);
    } catch (err) {
      if (err instanceof RuntimeError && err.code === 'ETOOLARGE' && cap < MAX_ANSWER_BYTES) {
        throw new RuntimeError('ETOOLARGE', `${path}: the answers of ${target.base} passed ${maxBytes} bytes in all; narrow it with --since or --limit`,
          `answers over ${mebibytes(maxBytes)} in all`);
      }
      throw err;
    }
  };
  const first = await get(params);
  const items = [...first.items];
  const seen = new Set<string>();
  let cursor = first.nextCursor;
  while (cursor && items.length < (opts.maxItems ?? Infinity)) {
    if (seen.has(cursor)) {
      throw new RuntimeError('EBADRESPONSE', `${path}: ${target.base} sent a cursor it had sent before; its pages would never end`, 'cursor repeats');
    }
    seen.add(cursor);
    const next = new URLSearchParams(params);
    next.delete('verify');
    next.set('cursor', cursor);
    const page = await get(next);
    for (const item of page.items) items.push(item);
    cursor = page.nextCursor;
  }
  return { items, nextCursor: null, verify: first.verify };
}

function mebibytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

/** A listener that is not svc's (or a proxy's error page) must not pass for an empty view. */
function asPage<T>(body: unknown, path: string): PageEnvelope<T> {
  const page = body as Partial<PageEnvelope<T>> | null;
  if (page === null || typeof page !== 'object' || !Array.isArray(page.items)
    || (page.nextCursor !== null && typeof page.nextCursor !== 'string')) {
    throw new RuntimeError('EBADRESPONSE', `${path}: the answer is not a page ({"items": [...], "nextCursor": ...})`, 'not a page of a view');
  }
  return page as PageEnvelope<T>;
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? errorText(err);
}
