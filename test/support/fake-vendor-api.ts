/**
 * A vendor's REST API on loopback, serving a saved export (test/fixtures/import/<vendor>/) the way the
 * vendor does: its authentication header checked (401 otherwise), GET only, lists re-paged with the
 * server's own page size in the vendor's paging (Opsgenie `offset`/`limit` and `paging.next`,
 * PagerDuty `offset`/`limit` and `more`, Grafana OnCall `?page=N` with absolute `next` links), a 429
 * with the vendor's rate-limit headers where a test asks for one, 404 for anything not saved.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ImportVendor } from '../../src/import/import-result.js';
import { readSavedDir } from '../../src/import/read-saved-dir.js';
import { VENDOR_SPECS } from '../../src/import/vendors.js';

export interface FakeVendorApi {
  url: string;
  requests: Array<{ method: string; path: string; query: URLSearchParams; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export interface FakeVendorOptions {
  token: string;
  /** Items per page the server answers with, whatever the client asks. */
  pageSize?: number;
  /** The first request to this path is answered 429 with these headers. */
  throttle?: { path: string; headers: Record<string, string> };
  /** Grafana OnCall: the `next` link of the first list page points at this origin instead. */
  nextOrigin?: string;
}

const LIST_KEY: Readonly<Record<ImportVendor, (path: string) => string>> = {
  'opsgenie': () => 'data',
  'pagerduty': (path) => path.split('/').pop() ?? path,
  'grafana-oncall': () => 'results',
};

export async function startFakeVendorApi(vendor: ImportVendor, dir: string, opts: FakeVendorOptions): Promise<FakeVendorApi> {
  const answers = readSavedDir(dir);
  const pageSize = opts.pageSize ?? 2;
  const expected = VENDOR_SPECS[vendor].authHeaders(opts.token).Authorization;
  const requests: FakeVendorApi['requests'] = [];
  let throttled = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/+|\/+$/g, '');
    requests.push({ method: req.method ?? '', path, query: url.searchParams, headers: req.headers });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { message: 'read-only fake' });
    if (req.headers.authorization !== expected) return send(401, { message: 'Could not authenticate', took: 0.001 });
    // PagerDuty versions its REST API by this header, required on every request.
    if (vendor === 'pagerduty' && req.headers.accept !== 'application/vnd.pagerduty+json;version=2') {
      return send(406, { error: { message: 'Not Acceptable', code: 2000 } });
    }
    if (opts.throttle?.path === path && !throttled) {
      throttled = true;
      return send(429, { message: 'Request throttled' }, opts.throttle.headers);
    }
    const pages = answers.pages(path);
    if (pages === null) return send(404, { message: 'Not found' });
    const key = LIST_KEY[vendor](path);
    const first = pages[0]?.body as Record<string, unknown>;
    const all = pages.flatMap((p) => ((p.body as Record<string, unknown>)[key] as unknown[] | undefined) ?? []);
    const listed = Array.isArray(first[key]) && (vendor === 'grafana-oncall' || url.searchParams.has('limit'));
    if (!listed) return send(200, first);
    const base = `http://${req.headers.host ?? 'fake'}`;
    if (vendor === 'grafana-oncall') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const items = all.slice((page - 1) * pageSize, page * pageSize);
      const more = page * pageSize < all.length;
      const origin = opts.nextOrigin ?? base;
      return send(200, { count: all.length, next: more ? `${origin}/${path}/?page=${page + 1}` : null, previous: page > 1 ? `${base}/${path}/?page=${page - 1}` : null,
        results: items, current_page_number: page, page_size: pageSize, total_pages: Math.ceil(all.length / pageSize) });
    }
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const limit = Math.min(Number(url.searchParams.get('limit') ?? pageSize), pageSize);
    const items = all.slice(offset, offset + limit);
    const more = offset + limit < all.length;
    if (vendor === 'pagerduty') return send(200, { ...first, [key]: items, limit, offset, more, total: null });
    return send(200, { ...first, data: items, totalCount: all.length, paging: {
      ...(more ? { next: `${base}/${path}?limit=${limit}&offset=${offset + limit}` } : {}), first: `${base}/${path}?limit=${limit}&offset=0`,
    } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
