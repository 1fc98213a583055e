/** HTTP on loopback in tests: free ports, signed webhook posts, Prometheus text. */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { createServer } from 'node:net';
import type { Clock } from '../../src/core/clock.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function sign(secret: string, body: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

export async function postWebhook(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<{ status: number; json: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(url, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body });
  const text = await res.text();
  let json: Record<string, unknown> | null;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { status: res.status, json, headers: res.headers };
}

/**
 * POSTs a large body with node:http and returns the status even when the server answers early and
 * closes the connection before the whole body was sent (as it should for 413).
 */
export async function postLarge(url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    let status: number | null = null;
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on('end', () => resolve(status as number));
    });
    req.on('error', (err) => (status === null ? reject(err) : resolve(status)));
    req.end(body);
  });
}

/** The template's mock alert made unique by `fingerprint` (its alert fingerprint too), signed and posted. */
export function postAlert(url: string, secret: string, fixture: string, fingerprint: string): ReturnType<typeof postWebhook> {
  const body = fixture.replace('c3a1f0e29b7d4e55', fingerprint);
  return postWebhook(url, body, { 'x-signature': sign(secret, body), 'x-alert-fingerprint': fingerprint });
}

/** The value of one sample in a Prometheus text exposition (labels matched exactly), or undefined. */
export function metricValue(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',');
  for (const line of exposition.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")/g)].map((x) => x[1]).sort().join(',');
    if (have === want) return Number(m[3]);
  }
  return undefined;
}

/**
 * `fetch` that also notes, on `clock`, when each request's signal aborted: with a fake clock, the
 * exact instant a deadline cut a request off (the abort listener runs inside the timer that fired).
 */
export function abortRecordingFetch(clock: Pick<Clock, 'monotonic'>): { fetch: typeof fetch; abortedAt: number[] } {
  const abortedAt: number[] = [];
  return {
    abortedAt,
    fetch: (input, init) => {
      init?.signal?.addEventListener('abort', () => { abortedAt.push(clock.monotonic()); }, { once: true });
      return fetch(input, init);
    },
  };
}

/** A raw GET (fetch cannot send a foreign or a second Host header): its status and headers. */
export function rawGet(port: number, path: string, headers: Array<[string, string]>):
  Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', setHost: false, headers: headers.flat() as unknown as Record<string, string> }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * GET over a connection of its own, closed after the answer (`agent: false`): no kept-alive socket is
 * reused. A reused one can be closed by the server's idle timeout (Node's 5 s, counted from when it
 * wrote the answer) while a loaded client is still reading a big answer, and fetch then fails with
 * "other side closed" though the server dropped nothing it had been asked. A test about answers under
 * load asks this way, so a failure is the server's.
 */
export function getFresh(url: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
