/**
 * A stand-in for a daemon's control plane, for fleet unit tests and the fleet bench: `/status`,
 * `/events`, `/dlq` and `/audit` with keyset-like pages, a `/logs` stream, (`limit`, `cursor`, `order`, `nextCursor`),
 * optionally slow, optionally guarded by a bearer token or by tokens it issues itself at `POST /token`
 * (client credentials, client_secret_basic). It counts what it is asked, so tests can assert on it.
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
}

export interface FakeControlPlane {
  url: string;
  port: number;
  /** Control-plane requests answered or in progress, by path. */
  requests: Map<string, number>;
  /** Token requests (POST /token) received. */
  tokenRequests(): number;
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
    controlPlane: { bind: '127.0.0.1', port: 0, auth: { enabled: false, provider: null } }, store: { kind: 'sqlite' }, audit: null,
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

  const answer = (req: IncomingMessage, res: ServerResponse, url: URL): void => {
    const view = VIEWS.find((v) => url.pathname === `/${v}`);
    if (url.pathname === '/status') { send(res, 200, fakeStatus(opts.agents ?? ['agent-1'])); return; }
    if (url.pathname === '/logs') { streamLogs(req, res, url); return; }
    if (view === undefined) { send(res, 404, { error: 'not found' }); return; }
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
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
