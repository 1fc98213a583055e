/**
 * Client side of the control plane for `svc ps`, `logs`, `events`, `dlq`, `audit`: where the listener
 * is (`--url`, else the running daemon's state file, else 127.0.0.1 and SVC_METRICS_PORT or 9464),
 * which bearer token to send (token-source.ts), and JSON reads that follow every page.
 */
import { readFileSync } from 'node:fs';
import { homePaths, svcHome } from '../config/paths.js';
import { RuntimeError, UsageError, errorText } from '../core/errors.js';
import type { CliContext } from './context.js';
import { createTokenSource } from './token-source.js';
import type { TokenSource } from './token-source.js';

/** A listener and the tokens to show it. */
export interface ControlTarget {
  /** Origin plus path prefix, no trailing slash. */
  base: string;
  tokens: TokenSource;
}

/** `--url` and `--dir` of a control-plane command → where to send requests and with which token. */
export function controlTarget(ctx: CliContext, opts: { url?: string; dir?: string }): ControlTarget {
  return { base: controlPlaneUrl(ctx, opts.url), tokens: createTokenSource(ctx, { dir: opts.dir }) };
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
  const port = ctx.env.SVC_METRICS_PORT && /^\d+$/.test(ctx.env.SVC_METRICS_PORT) ? ctx.env.SVC_METRICS_PORT : '9464';
  if (port === '0') throw new RuntimeError('ENOLISTENER', 'the control plane is disabled (SVC_METRICS_PORT=0)');
  return `http://127.0.0.1:${port}`;
}

/** The 401 `reason` vocabulary is lower-case words and dashes; anything else from the wire is not echoed. */
const REASON = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * GET `pathAndQuery` with `Authorization: Bearer <token>` when the target has a token. A 401 with
 * reason `expired` is retried once with a fresh token when one can be had; any other 401 (or a second
 * one) throws `svc: control plane refused the request: <reason>` (exit 1). Other answers are returned
 * as they are. `signal` (default: a 120 s timeout) is passed to fetch; aborts surface as fetch's errors.
 */
export async function authorizedGet(target: ControlTarget, pathAndQuery: string, headers: Record<string, string>,
  signal?: AbortSignal): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const token = await target.tokens.token();
    let res: Response;
    try {
      res = await fetch(`${target.base}${pathAndQuery}`, {
        headers: { ...headers, ...(token !== null ? { authorization: `Bearer ${token}` } : {}) },
        signal: signal ?? AbortSignal.timeout(120_000),
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${target.base} (is \`svc up\` running?): ${causeOf(err)}`);
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
  return new RuntimeError('EUNAUTHORIZED', `svc: control plane refused the request: ${reason ?? 'HTTP 401 without a reason'}${hint}`);
}

async function reasonOf(res: Response): Promise<string | null> {
  try {
    const reason = (JSON.parse(await res.text()) as { reason?: unknown }).reason;
    return typeof reason === 'string' && REASON.test(reason) ? reason : null;
  } catch {
    return null;
  }
}

export async function getJson(target: ControlTarget, path: string, params: URLSearchParams = new URLSearchParams()): Promise<unknown> {
  const query = params.toString();
  const res = await authorizedGet(target, `${path}${query ? `?${query}` : ''}`, { accept: 'application/json' });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RuntimeError('EBADRESPONSE', `${path}: HTTP ${res.status}, not JSON`);
  }
  if (!res.ok) {
    const error = (body as { error?: unknown }).error;
    throw new RuntimeError('EHTTP', `${path}: HTTP ${res.status}: ${typeof error === 'string' ? error : text.slice(0, 200)}`);
  }
  return body;
}

export interface PageEnvelope<T> {
  items: T[];
  nextCursor: string | null;
  verify?: unknown;
}

/** Follows `nextCursor` until the last page; returns every item, in order, and the first page's extras. */
export async function getAllPages<T>(target: ControlTarget, path: string, params: URLSearchParams): Promise<PageEnvelope<T>> {
  const first = (await getJson(target, path, params)) as PageEnvelope<T>;
  const items = [...first.items];
  let cursor = first.nextCursor;
  while (cursor) {
    const next = new URLSearchParams(params);
    next.delete('verify');
    next.set('cursor', cursor);
    const page = (await getJson(target, path, next)) as PageEnvelope<T>;
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { items, nextCursor: null, verify: first.verify };
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? errorText(err);
}
