/**
 * A stand-in for a daemon's control plane, for fleet unit tests and the fleet bench: `/status`,
 * `/events`, `/dlq` and `/audit` with keyset-like pages, a `/logs` stream, (`limit`, `cursor`, `order`, `nextCursor`),
 * optionally slow, optionally guarded by a bearer token or by tokens it issues itself at `POST /token`
 * (client credentials, client_secret_basic). It counts what it is asked, so tests can assert on it.
 * It can also play a hostile host (`hostile`: a looping cursor, endless large pages, a replay that never
 * catches up, an endless SSE line or flood) or answer an odd `/status` (`status`).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRow { ts: string; [key: string]: unknown }

export interface FakeControlPlaneOptions {
  /** Rows of each view, oldest first (pages are served in either order). */
  events?: FakeRow[];
  dlq?: FakeRow[];
  audit?: FakeRow[];
  /** What `/audit?verify=1` reports (default: an intact chain of the audit rows). */
  verify?: Record<string, unknown>;
  /** Wait this long (ms) before answering each request. */
  delayMs?: number;
  /** Requests must carry `Authorization: Bearer <token>` (else 401 missing-token / bad-signature). */
  token?: string;
  /** Serve `POST /token` for this client and accept only tokens issued there. */
  client?: { id: string; secret: string; expiresInS?: number };
  /** Shared by several fakes: requests in flight now and at most (the fleet's concurrency cap). */
  gauge?: { now: number; peak: number };
  /** The status snapshot's agents (default one agent); `/logs?agent=` of another is a 400. */
  agents?: string[];
  /** Log records `/logs` replays (frame ids 1, 2, …; Last-Event-ID resumes after one), then `caught-up`; the stream stays open. */
  logs?: Array<Record<string, unknown>>;
  /** `/status` answers this body instead of a snapshot of `agents` (an odd or hostile host). */
  status?: unknown;
  /**
   * A hostile host (issue 19), until the client goes or `hostileBytes` are sent:
   * - `loop-cursor`: every page of a view has rows and the same `nextCursor`, so its pages never end;
   * - `big-pages`: every page is one row padded to `padBytes` (default 15 MB), with a fresh cursor;
   * - `never-caught-up`: /logs replays `logs`, then sends only keep-alive comments, never `caught-up`;
   * - `endless-line`: /logs sends `data: ` and then bytes without a line break;
   * - `endless-records`: /logs sends log frames as fast as they are read, never `caught-up`.
   */
  hostile?: 'loop-cursor' | 'big-pages' | 'never-caught-up' | 'endless-line' | 'endless-records';
  padBytes?: number;
  /** What a hostile stream or page walk sends at most (default 600 MB). */
  hostileBytes?: number;
}

export interface FakeControlPlane {
  url: string;
  port: number;
  /** Control-plane requests answered or in progress, by path. */
  requests: Map<string, number>;
  /** Token requests (POST /token) received. */
  tokenRequests(): number;
  /** Bytes of hostile answers written so far (pages, stream). */
  hostileSent(): number;
  close(): Promise<void>;
}

const VIEWS = ['events', 'dlq', 'audit'] as const;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

export function fakeStatus(agents: string[]): Record<string, unknown> {
  return {
    version: 1, pid: 4242, startedAt: '2030-01-01T00:00:00.000Z', uptimeSeconds: 60,
    agents: agents.map((id) => ({ id, state: 'running', provider: 'rules', channels: [], mcpServers: [],
      sources: [{ id: 'alertmanager', type: 'webhook', summary: '', received: 3, processed: 2, dlq: 1, inflight: 0 }] })),
    controlPlane: { bind: '127.0.0.1', port: 0, auth: { enabled: false, provider: null } }, store: { kind: 'sqlite' }, audit: null, checkpoints: null,
  };
}

export async function startFakeControlPlane(opts: FakeControlPlaneOptions = {}): Promise<FakeControlPlane> {
  const requests = new Map<string, number>();
  const issued = new Set<string>();
  let tokenRequests = 0;
  const rows: Record<(typeof VIEWS)[number], FakeRow[]> = { events: opts.events ?? [], dlq: opts.dlq ?? [], audit: opts.audit ?? [] };

  const authorized = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (opts.token === undefined && opts.client === undefined) return true;
    const header = req.headers.authorization;
    if (header === undefined) { send(res, 401, { error: 'missing bearer token', reason: 'missing-token' }); return false; }
    const token = header.replace(/^Bearer /i, '');
    if (token === opts.token || issued.has(token)) return true;
    send(res, 401, { error: 'signature does not verify', reason: 'bad-signature' });
    return false;
  };

  const limitBytes = opts.hostileBytes ?? 600_000_000;
  let hostileSent = 0;
  const pad = opts.hostile === 'big-pages' ? 'x'.repeat(opts.padBytes ?? 15_000_000) : '';

  /** Writes `next()` while the client reads (respecting back-pressure), until it goes or the budget is spent. */
  const pump = (res: ServerResponse, next: () => string): void => {
    const go = (): void => {
      while (!res.destroyed && hostileSent < limitBytes) {
        const chunk = next();
        hostileSent += Buffer.byteLength(chunk);
        if (!res.write(chunk)) { res.once('drain', go); return; }
      }
      if (!res.destroyed) res.end();
    };
    go();
  };

  const hostilePage = (res: ServerResponse, url: URL): void => {
    const n = Number(url.searchParams.get('cursor') ?? '0');
    const row = { ts: '2030-01-01T00:00:00.000Z', id: `hostile-${n}`, agentId: 'agent-1', sourceId: 'am', kind: 'webhook', status: 'processed', payload: { pad } };
    const body = JSON.stringify({ items: [row], nextCursor: opts.hostile === 'loop-cursor' ? 'again' : String(n + 1) });
    hostileSent += Buffer.byteLength(body);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(body);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const view = VIEWS.find((v) => url.pathname === `/${v}`);
    if (url.pathname === '/status') { send(res, 200, opts.status ?? fakeStatus(opts.agents ?? ['agent-1'])); return; }
    if (url.pathname === '/logs') { streamLogs(req, res, url); return; }
    if (view === undefined) { send(res, 404, { error: 'not found' }); return; }
    if (opts.hostile === 'loop-cursor' || opts.hostile === 'big-pages') { hostilePage(res, url); return; }
    const limit = Number(url.searchParams.get('limit') ?? '100');
    if (!(limit >= 1 && limit <= 1000)) { send(res, 400, { error: 'invalid limit: expected an integer from 1 to 1000' }); return; }
    const order = url.searchParams.get('order') ?? (view === 'audit' ? 'asc' : 'desc');
    const list = order === 'asc' ? rows[view] : [...rows[view]].reverse();
    const from = Number(url.searchParams.get('cursor') ?? '0');
    const items = list.slice(from, from + limit);
    const body: Record<string, unknown> = { items, nextCursor: from + limit < list.length ? String(from + limit) : null };
    if (view === 'audit' && url.searchParams.get('verify') === '1') {
      body.verify = opts.verify ?? { ok: true, checked: rows.audit.length, headSeq: rows.audit.length, headHash: null, firstBadSeq: null, problem: null };
    }
    send(res, 200, body);
  };

  const streamLogs = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const agent = url.searchParams.get('agent');
    if (agent !== null && !(opts.agents ?? ['agent-1']).includes(agent)) { send(res, 400, { error: `unknown agent "${agent}"` }); return; }
    const after = Number(req.headers['last-event-id'] ?? '0');
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    (opts.logs ?? []).forEach((record, i) => {
      if (i + 1 > after) res.write(`id: ${i + 1}\nevent: log\ndata: ${JSON.stringify(record)}\n\n`);
    });
    if (opts.hostile === 'never-caught-up') {
      const timer = setInterval(() => { res.write(': keep-alive\n\n'); }, 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (opts.hostile === 'endless-line') {
      res.write('event: log\ndata: ');
      const chunk = 'y'.repeat(64 * 1024);
      pump(res, () => chunk);
      return;
    }
    if (opts.hostile === 'endless-records') {
      let id = (opts.logs ?? []).length;
      const filler = 'z'.repeat(900);
      pump(res, () => {
        id += 1;
        return `id: ${id}\nevent: log\ndata: ${JSON.stringify({ ts: '2030-01-01T00:00:00.000Z', level: 'info', agentId: 'agent-1', event: 'flood', filler })}\n\n`;
      });
      return;
    }
    res.write('event: system\ndata: {"system":"caught-up"}\n\n');
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'POST' && url.pathname === '/token' && opts.client) {
      tokenRequests += 1;
      const expected = `Basic ${Buffer.from(`${opts.client.id}:${opts.client.secret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) { send(res, 401, { error: 'invalid_client' }); return; }
      const token = `tok-${port}-${tokenRequests}`;
      issued.add(token);
      send(res, 200, { access_token: token, token_type: 'Bearer', expires_in: opts.client.expiresInS ?? 300 });
      return;
    }
    requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
    const gauge = opts.gauge;
    if (gauge) { gauge.now += 1; gauge.peak = Math.max(gauge.peak, gauge.now); }
    res.on('close', () => { if (gauge) gauge.now -= 1; });
    const go = (): void => { if (authorized(req, res)) answer(req, res, url); };
    if (opts.delayMs) setTimeout(go, opts.delayMs);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`, port, requests,
    tokenRequests: () => tokenRequests,
    hostileSent: () => hostileSent,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
