/**
 * Client side of the control plane for `svc ps`, `logs`, `events`, `dlq`, `audit`: where the listener
 * is (`--url`, else the running daemon's state file, else 127.0.0.1 and SVC_METRICS_PORT or 9464), and
 * JSON reads that follow every page.
 */
import { readFileSync } from 'node:fs';
import { homePaths, svcHome } from '../config/paths.js';
import { RuntimeError, UsageError, errorText } from '../core/errors.js';
import type { CliContext } from './context.js';

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

export async function getJson(base: string, path: string, params: URLSearchParams = new URLSearchParams()): Promise<unknown> {
  const query = params.toString();
  const url = `${base}${path}${query ? `?${query}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    throw new RuntimeError('EUNREACHABLE', `cannot reach the control plane at ${base} (is \`svc up\` running?): ${causeOf(err)}`);
  }
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
export async function getAllPages<T>(base: string, path: string, params: URLSearchParams): Promise<PageEnvelope<T>> {
  const first = (await getJson(base, path, params)) as PageEnvelope<T>;
  const items = [...first.items];
  let cursor = first.nextCursor;
  while (cursor) {
    const next = new URLSearchParams(params);
    next.delete('verify');
    next.set('cursor', cursor);
    const page = (await getJson(base, path, next)) as PageEnvelope<T>;
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { items, nextCursor: null, verify: first.verify };
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? errorText(err);
}
