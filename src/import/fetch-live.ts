/**
 * `svc import … --api URL --token-env VAR` (contract §22.1): the export fetched from the vendor's REST
 * API instead of read from a directory — GET requests only, every page of every list (each vendor's
 * own paging: vendor-spec.ts), the vendor's rate limits honoured (a 429 waits `Retry-After`, else the
 * vendor's reset header, else a growing back-off; a PagerDuty answer with no requests left waits for the
 * reset before the next request), each answer bounded, and each saved under DIR in the layout of a
 * saved export (answers.ts) so the same import and `--verify` can be run again from it later. The token
 * goes into the request's header and nowhere else: no error, log or file carries it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../core/clock.js';
import { withDeadline } from '../core/deadline.js';
import { RuntimeError, errorText } from '../core/errors.js';
import { readBodyText } from '../core/read-body.js';
import { parseRetryAfter } from '../core/retry-after.js';
import { Answers, answerFile } from './answers.js';
import { MAX_FILE_BYTES, parseAnswer } from './read-saved-dir.js';
import type { ApiRequest, VendorSpec } from './vendor-spec.js';

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_ATTEMPTS = 8;
const MAX_WAIT_MS = 120_000;
const MAX_REQUESTS = 200_000;
const MAX_PAGES = 10_000;

export interface LiveFetch {
  spec: VendorSpec;
  /** The API's base URL (`https://api.opsgenie.com`, `https://api.pagerduty.com`, OnCall's API URL). */
  apiUrl: string;
  token: string;
  /** Where each answer is saved (created; the caller checked it holds nothing yet). */
  dir: string;
  nowMs: number;
  clock: Clock;
  /** Progress lines for people (stderr). */
  progress: (line: string) => void;
  fetchImpl?: typeof fetch;
}

function queryString(query: ApiRequest['query']): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const v of typeof value === 'string' ? [value] : value) params.append(key, v);
  }
  return params;
}

/** How long the vendor asks to wait before the next request, from a 429's headers. */
function waitFor(headers: Headers, nowMs: number, attempt: number): number {
  const retryAfter = parseRetryAfter(headers.get('retry-after'), nowMs);
  if (retryAfter !== undefined) return Math.min(retryAfter, MAX_WAIT_MS);
  // PagerDuty: seconds until the window resets; Opsgenie: the length of its rate-limit period.
  for (const name of ['ratelimit-reset', 'x-ratelimit-period-in-sec']) {
    const v = headers.get(name);
    if (v !== null && /^\d{1,6}$/.test(v.trim())) return Math.min(Number(v.trim()) * 1000, MAX_WAIT_MS);
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_WAIT_MS);
}

class LiveFetcher {
  private readonly base: URL;
  private requests = 0;
  private pauseUntil = 0;

  constructor(private readonly f: LiveFetch) {
    this.base = new URL(f.apiUrl.endsWith('/') ? f.apiUrl : `${f.apiUrl}/`);
  }

  private url(path: string, params: URLSearchParams): URL {
    const url = new URL(`${path}${this.f.spec.paging === 'grafana-oncall' ? '/' : ''}`, this.base);
    url.search = params.toString();
    return url;
  }

  /** One GET with its retries; null on 404 (the object is gone: the answer is left out). */
  private async get(url: URL, what: string): Promise<{ text: string; headers: Headers } | null> {
    if (++this.requests > MAX_REQUESTS) throw new RuntimeError('ETOOLARGE', `svc import: more than ${MAX_REQUESTS} requests: is the API paging without end?`);
    for (let attempt = 1; ; attempt++) {
      const pause = this.pauseUntil - this.f.clock.now();
      if (pause > 0) await this.f.clock.sleep(Math.min(pause, MAX_WAIT_MS));
      const answer = await withDeadline(REQUEST_TIMEOUT_MS, this.f.clock, undefined, async (signal) => {
        const res = await (this.f.fetchImpl ?? fetch)(url, { method: 'GET', headers: { Accept: 'application/json', ...this.f.spec.authHeaders(this.f.token) }, signal, redirect: 'error' });
        const text = res.status === 200 ? await readBodyText(res, MAX_FILE_BYTES) : '';
        if (res.status !== 200) await res.body?.cancel().catch(() => undefined);
        return { status: res.status, headers: res.headers, text };
      });
      if (!answer.ok) {
        if (attempt >= MAX_ATTEMPTS) throw new RuntimeError('EUNREACHABLE', `svc import: GET ${what} failed ${attempt} times: ${answer.why === 'timeout' ? 'no answer in 30 s' : errorText(answer.error)}`);
        await this.f.clock.sleep(waitFor(new Headers(), this.f.clock.now(), attempt));
        continue;
      }
      const { status, headers, text } = answer.value;
      if (headers.get('ratelimit-remaining')?.trim() === '0') this.pauseUntil = this.f.clock.now() + waitFor(headers, this.f.clock.now(), 1);
      if (status === 200) return { text, headers };
      if (status === 404) return null;
      if ((status === 429 || status >= 500) && attempt < MAX_ATTEMPTS) {
        const wait = waitFor(headers, this.f.clock.now(), attempt);
        if (status === 429) this.f.progress(`${this.f.spec.label} asks to slow down (429): waiting ${Math.ceil(wait / 1000)} s`);
        await this.f.clock.sleep(wait);
        continue;
      }
      const why = status === 401 || status === 403 ? ': the vendor refused the token (check its permissions: read access is enough)' : '';
      throw new RuntimeError('EHTTP', `svc import: GET ${what} answered HTTP ${status}${why}`);
    }
  }

  /** Every page of a request, saved as it arrives. */
  async fetch(request: ApiRequest, answers: Answers): Promise<void> {
    const params = queryString(request.query);
    const { paging, pageSize } = this.f.spec;
    if (request.paged && paging !== 'grafana-oncall') {
      params.set('limit', String(pageSize));
      params.set('offset', '0');
    }
    let url: URL | null = this.url(request.path, params);
    for (let page = 1; url !== null; page++) {
      if (page > MAX_PAGES) throw new RuntimeError('ETOOLARGE', `svc import: ${request.path} has more than ${MAX_PAGES} pages`);
      const got = await this.get(url, `${request.path} (page ${page})`);
      if (got === null) return;
      const file = answerFile(request.path, page);
      const body = parseAnswer(file, got.text) as Record<string, unknown>;
      answers.add(request.path, page, body, file);
      mkdirSync(dirname(join(this.f.dir, file)), { recursive: true });
      writeFileSync(join(this.f.dir, file), got.text);
      url = request.paged ? this.nextPage(url, body, request.path) : null;
    }
  }

  private nextPage(url: URL, body: Record<string, unknown>, path: string): URL | null {
    const next = new URL(url);
    const offset = Number(url.searchParams.get('offset') ?? '0');
    switch (this.f.spec.paging) {
      case 'opsgenie': {
        const data = Array.isArray(body.data) ? body.data.length : 0;
        const paging = body.paging as { next?: unknown } | undefined;
        if (data === 0 || typeof paging?.next !== 'string') return null;
        next.searchParams.set('offset', String(offset + data));
        return next;
      }
      case 'pagerduty': {
        if (body.more !== true) return null;
        const key = path.split('/').pop() ?? path;
        const items = Array.isArray(body[key]) ? (body[key] as unknown[]).length : 0;
        if (items === 0) return null;
        next.searchParams.set('offset', String(offset + items));
        return next;
      }
      case 'grafana-oncall': {
        if (typeof body.next !== 'string') return null;
        const link = new URL(body.next, url);
        // The token goes only where the operator pointed it.
        if (link.origin !== this.base.origin) throw new RuntimeError('EBADRESPONSE', `svc import: ${path} points its next page at another host (${link.origin}); not followed`);
        return link;
      }
    }
  }
}

/** Fetches the whole export, request after request, as the answers so far make more known. */
export async function fetchLive(f: LiveFetch): Promise<Answers> {
  const answers = new Answers();
  const fetcher = new LiveFetcher(f);
  const done = new Set<string>();
  for (;;) {
    const pending = f.spec.requests(answers, f.nowMs).filter((r) => !done.has(r.path));
    if (pending.length === 0) return answers;
    for (const request of pending) {
      done.add(request.path);
      await fetcher.fetch(request, answers);
      if (done.size % 200 === 0) f.progress(`${done.size} requests answered`);
    }
  }
}
