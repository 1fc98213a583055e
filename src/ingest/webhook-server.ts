/**
 * Webhook ingest (contract §9, §12): `POST /webhooks/<source id>`, one `node:http` (or, with `tls`,
 * `node:https`) server per distinct (bind, port). Pipeline, in this order: route (404) → method (405)
 * → size (413) → authentication: HMAC, bearer or basic (source-auth.ts; 401, nothing recorded) →
 * JSON (400) → fingerprint: header (400 when malformed or in the derived key space) or derived (fingerprint.ts) → store
 * (202 accepted / 200 duplicate / 503). `node:http` rather than a framework: the HMAC needs the raw
 * body bytes, and the path is small enough that a framework would cost more than it saves.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { WebhookSourceConfig } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { raceDeadline } from '../core/deadline.js';
import { RuntimeError, errorText } from '../core/errors.js';
import type { LogLevel } from '../core/log.js';
import type { AgentLog, LogEntry } from '../logs/agent-log.js';
import { writeEntries } from '../logs/agent-log.js';
import type { WebhookRejectReason } from '../metrics/metric-names.js';
import type { SourceStats } from '../metrics/source-stats.js';
import type { EventRecord, IngestResult, Store } from '../store/store.js';
import { capConnections, HEADERS_TIMEOUT_MS, listenerOptions } from '../core/listener-limits.js';
import { checkJsonShape, MAX_DEPTH } from '../core/json-shape.js';
import { createRejectLog } from './reject-log.js';
import { DERIVED_PREFIX, eventFingerprint, isHeaderFingerprintAllowed } from './fingerprint.js';
import { authChallenge, authMethods, checkSourceAuth } from './source-auth.js';

/** Largest accepted body, bytes (contract §9.1). */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Longest a webhook waits for the store (contract §9.3): well under common sender timeouts
 * (Alertmanager's default is 10 s), so a store that hangs — a paused database, a lost connection
 * before its TCP timeout — gets the sender a 503 and a retry, not a timeout of its own.
 */
export const STORE_WRITE_DEADLINE_MS = 5_000;
/** How long close() lets in-flight requests finish before it cuts the remaining connections. */
const CLOSE_GRACE_MS = 5_000;
const PATH_PREFIX = '/webhooks/';
/** The `source` label of requests for a source that does not exist (contract §10.4). */
export const UNKNOWN_SOURCE = '_unknown';
/** 1..200 printable ASCII characters (space included; Node trims the ends). */
const FINGERPRINT = /^[\x20-\x7e]{1,200}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface WebhookRoute {
  agentId: string;
  source: WebhookSourceConfig;
  log: AgentLog;
}

export interface WebhookIngestDeps {
  store: Store;
  clock: Clock;
  routes: WebhookRoute[];
  stats: SourceStats;
  /** Longest wait for the store per request, ms; default STORE_WRITE_DEADLINE_MS. */
  storeDeadlineMs?: number;
  /** Longest wait for a request's headers (and a TLS handshake), ms; default HEADERS_TIMEOUT_MS (contract §11.2). */
  headersTimeoutMs?: number;
  /** Called once per accepted event, after its 202 has been written. */
  onAccepted(event: EventRecord): void;
  /** Every stored or duplicate delivery, after its answer (heartbeats are refreshed by duplicates too, §17.7). */
  onDelivery?(agentId: string, sourceId: string, payloadText: string): void;
  /** Counts a request refused before anything was stored (svc_webhook_rejected_total). */
  rejected(sourceId: string, reason: WebhookRejectReason): void;
  /** Problems that have no HTTP answer of their own (audit append, server errors, callback throws). */
  onError?(err: unknown): void;
}

export interface WebhookIngest {
  start(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish (bounded), then closes every connection. Idempotent. */
  close(): Promise<void>;
  /** Actual bound ports, one per server, in order of first appearance in `routes`. */
  ports(): number[];
}

interface Listener {
  bind: string;
  port: number;
  routes: Map<string, WebhookRoute>;
  server: Server | null;
  boundPort: number | null;
  /** PEM certificate and key when the port serves HTTPS (contract §12); sources sharing a port agree. */
  tls: { cert: string; key: string } | null;
}

type Json = Record<string, unknown>;

/** An accepted event waiting for its 202, answered with the others of its turn (`answerAccepted`). */
interface Accepted {
  route: WebhookRoute;
  res: ServerResponse;
  event: EventRecord;
  fingerprint: string | null;
  payloadText: string;
}

/**
 * How a message names a listener: by its port only. The bind address may come from a `${file:}` or
 * `${env:}` reference, and no message quotes a resolved value (contract §11.7).
 */
function listenerName(port: number): string {
  return `port ${port}`;
}

/**
 * The single value of a header: undefined when absent, null when sent more than once. Read from the
 * raw pairs: `headersDistinct` builds an array for every header of the request on first use, on
 * every webhook (a profile's find, docs/performance.md).
 */
function oneHeader(req: IncomingMessage, name: string): string | undefined | null {
  const lower = name.toLowerCase();
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== lower.length || key.toLowerCase() !== lower) continue;
    if (value !== undefined) return null;
    value = raw[i + 1];
  }
  return value;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function reply(res: ServerResponse, status: number, body: Json, headers?: Record<string, string>): void {
  if (res.headersSent || res.writableEnded) return;
  const text = JSON.stringify(body);
  const length = String(Buffer.byteLength(text));
  // The common answer (no extra headers) as one literal: no object spread per webhook, as on /status.
  res.writeHead(status, headers === undefined
    ? { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Length': length }
    : { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Content-Length': length,
      ...headers });
  res.end(text);
}

type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * Reads the body, counting bytes as they stream; past `limit` it stops reading at once. The listeners
 * stay on the request once it has settled (the first outcome wins): taking four of them off again on
 * every webhook showed in the profile, and a finished request emits nothing more that matters. A body
 * that came in one chunk is used as it is, without a copy.
 */
function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        req.pause();
        chunks.length = 0;
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish({ ok: true, body: chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, size) }));
    const aborted = (): void => finish({ ok: false, reason: 'aborted' });
    req.on('close', aborted);
    req.on('error', aborted);
  });
}

export function createWebhookIngest(deps: WebhookIngestDeps): WebhookIngest {
  const { store, clock, stats } = deps;
  const storeDeadlineMs = deps.storeDeadlineMs ?? STORE_WRITE_DEADLINE_MS;
  const report = (err: unknown): void => {
    try {
      deps.onError?.(err);
    } catch {
      // a failing error reporter has nowhere left to report to
    }
  };

  const rejectLog = createRejectLog(clock);
  const listeners: Listener[] = [];
  for (const route of deps.routes) {
    const { source } = route;
    // Defence in depth: config validation already requires at least one method with a resolved secret.
    if (authMethods(source).length === 0) {
      throw new RuntimeError('ECONFIG', `webhook source ${source.id} (agent ${route.agentId}) has no authentication method; refusing to start it open`);
    }
    let listener = listeners.find((l) => l.bind === source.bind && l.port === source.port);
    if (!listener) {
      listener = { bind: source.bind, port: source.port, routes: new Map(), server: null, boundPort: null, tls: source.tls ?? null };
      listeners.push(listener);
    }
    const taken = listener.routes.get(source.id);
    if (taken) {
      throw new RuntimeError('ECONFIG', `webhook source id ${source.id} is used by agents ${taken.agentId} and ${route.agentId} on ${listenerName(source.port)}; /webhooks/${source.id} would be ambiguous`);
    }
    listener.routes.set(source.id, route);
  }

  const inflight = new Set<Promise<void>>();
  let closing = false;
  let starting: Promise<void> | null = null;
  let closed: Promise<void> | null = null;

  /** While closing, answered connections are not kept alive. */
  const send = (res: ServerResponse, status: number, body: Json, headers?: Record<string, string>): void =>
    reply(res, status, body, closing ? { ...headers, Connection: 'close' } : headers);

  function rejectRequest(route: WebhookRoute, level: LogLevel, status: number, reason: string, req: IncomingMessage,
    counted: WebhookRejectReason): void {
    deps.rejected(route.source.id, counted);
    const sample = rejectLog.admit(route.source.id, reason);
    if (!sample.log) return;
    route.log.write(level, 'webhook.rejected', { sourceId: route.source.id, status, reason, remote: req.socket.remoteAddress,
      ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}) });
  }

  /** One answer for every method and reason (contract §12.1); the reason goes to the log only. */
  function unauthorized(route: WebhookRoute, res: ServerResponse, req: IncomingMessage, reason: string): void {
    rejectRequest(route, 'warn', 401, reason, req, 'unauthorized');
    const challenge = authChallenge(route.source);
    send(res, 401, { error: 'EUNAUTHORIZED', message: 'missing or invalid credentials' },
      challenge.length > 0 ? { 'WWW-Authenticate': challenge.join(', ') } : {});
  }

  // The store answers a whole commit in one message (store-worker.ts), so its accepted requests resume
  // in one microtask drain: they are answered together at its end — their log lines in one write per
  // agent log, then their 202s, in order. Each line is still in the file before its 202 is written.
  let accepted: Accepted[] = [];
  let answered: Promise<void> | null = null;

  function answerAll(): void {
    const batch = accepted;
    accepted = [];
    answered = null;
    const lines = new Map<AgentLog, LogEntry[]>();
    for (const a of batch) {
      let entries = lines.get(a.route.log);
      if (entries === undefined) lines.set(a.route.log, entries = []);
      entries.push({ level: 'info', event: 'webhook.accepted', fields: { eventId: a.event.id, fingerprint: a.fingerprint, sourceId: a.route.source.id } });
    }
    for (const [log, entries] of lines) writeEntries(log, entries);
    for (const { route, res, event, payloadText } of batch) {
      try {
        send(res, 202, { status: 'accepted', eventId: event.id });
      } catch (err) {
        report(err);
      }
      // The event is durable whatever happened to the sender, so dispatch does not wait for the socket.
      try {
        deps.onAccepted(event);
        deps.onDelivery?.(route.agentId, route.source.id, payloadText);
      } catch (err) {
        report(err);
      }
    }
  }

  /** Resolves once the event's 202 is written (at the end of this microtask drain). */
  function answerAccepted(a: Accepted): Promise<void> {
    accepted.push(a);
    answered ??= new Promise((resolve) => {
      queueMicrotask(() => {
        try {
          answerAll();
        } finally {
          resolve();
        }
      });
    });
    return answered;
  }

  async function handle(listener: Listener, req: IncomingMessage, res: ServerResponse, expectContinue: boolean): Promise<void> {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const route = path.startsWith(PATH_PREFIX) ? listener.routes.get(path.slice(PATH_PREFIX.length)) : undefined;
    // An unread body on an early rejection is not drained: the connection is closed instead.
    const closeIfBody = (): Record<string, string> => (hasBody(req) ? { Connection: 'close' } : {});
    if (!route) {
      deps.rejected(UNKNOWN_SOURCE, 'unknown-source');
      send(res, 404, { error: 'ENOTFOUND', message: 'unknown webhook source' }, closeIfBody());
      return;
    }
    const { source, agentId, log } = route;
    if (req.method !== 'POST') {
      rejectRequest(route, 'debug', 405, 'method-not-allowed', req, 'method');
      send(res, 405, { error: 'EMETHOD', message: 'method not allowed, use POST' }, { Allow: 'POST', ...closeIfBody() });
      return;
    }
    if (closing) {
      deps.rejected(source.id, 'unavailable');
      send(res, 503, { error: 'EUNAVAILABLE', message: 'webhook ingest is shutting down, retry' }, { Connection: 'close' });
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      rejectRequest(route, 'warn', 413, 'body-too-large', req, 'too-large');
      send(res, 413, { error: 'ETOOLARGE', message: `body exceeds ${MAX_BODY_BYTES} bytes` }, { Connection: 'close' });
      return;
    }
    if (expectContinue) res.writeContinue();
    const read = await readBody(req, MAX_BODY_BYTES);
    if (!read.ok) {
      if (read.reason === 'aborted') return; // the sender is gone; nobody to answer
      rejectRequest(route, 'warn', 413, 'body-too-large', req, 'too-large');
      send(res, 413, { error: 'ETOOLARGE', message: `body exceeds ${MAX_BODY_BYTES} bytes` }, { Connection: 'close' });
      return;
    }
    const body = read.body;

    // Authentication (source-auth.ts): nothing is recorded in the store before this passes.
    const auth = checkSourceAuth(source, { header: (name) => oneHeader(req, name), body, nowMs: clock.now() });
    if (!auth.ok) return unauthorized(route, res, req, auth.reason);

    // One bounded check (contract §11.1) before anything is stored: UTF-8, JSON, an object, at most
    // MAX_DEPTH levels. The text itself is what the store keeps.
    let payloadText: string;
    try {
      payloadText = utf8.decode(body);
    } catch {
      rejectRequest(route, 'warn', 400, 'not-utf8', req, 'bad-request');
      send(res, 400, { error: 'EBADREQUEST', message: 'body is not UTF-8' });
      return;
    }
    const shape = checkJsonShape(payloadText);
    if (!shape.ok) {
      rejectRequest(route, 'warn', 400, shape.reason, req, 'bad-request');
      send(res, 400, { error: 'EBADREQUEST', message: shape.reason === 'too-deep'
        ? `body nests deeper than ${MAX_DEPTH} levels` : 'body is not a JSON object' });
      return;
    }
    const fingerprintHeader = oneHeader(req, source.fingerprintHeader);
    if (fingerprintHeader === null || (fingerprintHeader !== undefined && !FINGERPRINT.test(fingerprintHeader))) {
      rejectRequest(route, 'warn', 400, 'invalid-fingerprint', req, 'bad-request');
      send(res, 400, { error: 'EBADREQUEST', message: `${source.fingerprintHeader} must be one value of 1 to 200 printable ASCII characters` });
      return;
    }
    // A header in the derived key space could suppress a real notification (fingerprint.ts).
    if (fingerprintHeader !== undefined && !isHeaderFingerprintAllowed(fingerprintHeader)) {
      rejectRequest(route, 'warn', 400, 'reserved-fingerprint', req, 'bad-request');
      send(res, 400, { error: 'EBADREQUEST', message: `${source.fingerprintHeader} must not start with "${DERIVED_PREFIX}" (derived keys only)` });
      return;
    }
    // The sender's header, else the key derived from an Alertmanager notification (fingerprint.ts).
    const fingerprint = eventFingerprint(fingerprintHeader, payloadText);

    // The write is bounded: past the deadline the answer is 503 and the sender retries. Nothing was
    // acknowledged; should the write still commit later, the event is delivered once stored and the
    // retry is a duplicate of it (with a fingerprint) — the at-least-once side of the bargain.
    const write = await raceDeadline(storeDeadlineMs, clock,
      store.ingestEvent({ agentId, sourceId: source.id, kind: 'alert', fingerprint, payloadText }, clock.now()));
    if (!write.ok) {
      const error = write.why === 'timeout' ? `no answer from the store within ${storeDeadlineMs} ms` : errorText(write.error);
      log.write('error', 'webhook.store-failed', { sourceId: source.id, fingerprint, error });
      deps.rejected(source.id, 'unavailable');
      if (write.why !== 'timeout') report(write.error);
      send(res, 503, { error: 'EUNAVAILABLE', message: 'event store unavailable, retry' });
      return;
    }
    const result: IngestResult = write.value;

    const counters = stats.get(agentId, source.id);
    if (result.outcome === 'accepted') {
      counters.received += 1;
      await answerAccepted({ route, res, event: result.event, fingerprint, payloadText });
      return;
    }
    counters.received += 1;
    log.write('info', 'webhook.duplicate', { eventId: result.eventId, fingerprint, sourceId: source.id });
    // The duplicate's audit row waits no longer than the write did; the 200 does not depend on it.
    const audited = await raceDeadline(storeDeadlineMs, clock, store.appendAudit({ kind: 'event.duplicate',
      actor: `source:${source.id}`, agentId, data: { eventId: result.eventId, sourceId: source.id, fingerprint } }, clock.now()));
    if (!audited.ok) report(audited.error);
    send(res, 200, { status: 'duplicate', eventId: result.eventId });
    try {
      deps.onDelivery?.(agentId, source.id, payloadText);
    } catch (err) {
      report(err);
    }
  }

  function track(listener: Listener, req: IncomingMessage, res: ServerResponse, expectContinue: boolean): void {
    const done = handle(listener, req, res, expectContinue).catch((err: unknown) => {
      report(err);
      send(res, 500, { error: 'EINTERNAL', message: 'internal error' }, { Connection: 'close' });
    });
    inflight.add(done);
    void done.finally(() => inflight.delete(done));
  }

  function listen(listener: Listener): Promise<void> {
    // HTTPS when the source has `tls` (contract §12); a bad certificate or key fails the start here.
    let server: Server;
    try {
      const headersTimeoutMs = deps.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
      server = listener.tls
        ? createTlsServer({ ...listenerOptions(headersTimeoutMs), handshakeTimeout: headersTimeoutMs, cert: listener.tls.cert, key: listener.tls.key })
        : createServer(listenerOptions(headersTimeoutMs));
    } catch (err) {
      return Promise.reject(new RuntimeError('ETLS', `webhook ingest on ${listenerName(listener.port)}: unusable TLS certificate or key (${errorText(err)})`));
    }
    // Sources sharing a port share a listener: it holds the largest of their caps.
    capConnections(server, Math.max(...[...listener.routes.values()].map((r) => r.source.maxConnections)));
    server.on('request', (req, res) => track(listener, req, res, false));
    // Answer `Expect: 100-continue` ourselves so an oversized or unknown request is refused unread.
    server.on('checkContinue', (req, res) => track(listener, req, res, true));
    return new Promise((resolve, reject) => {
      const onListenError = (err: NodeJS.ErrnoException): void => {
        const sources = [...listener.routes.values()].map((r) => `${r.source.id} (agent ${r.agentId})`).join(', ');
        reject(new RuntimeError('ELISTEN', `webhook ingest cannot listen on ${listenerName(listener.port)} for source ${sources}: ${err.code ?? err.message}`));
      };
      server.once('error', onListenError);
      server.listen({ host: listener.bind, port: listener.port }, () => {
        server.off('error', onListenError);
        server.on('error', report);
        listener.server = server;
        listener.boundPort = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  async function shutdown(): Promise<void> {
    closing = true;
    await starting?.catch(() => undefined);
    const servers = listeners.flatMap((l) => (l.server ? [l.server] : []));
    for (const l of listeners) {
      l.server = null;
      l.boundPort = null;
    }
    // server.close() stops accepting and drops idle keep-alive connections; it resolves once every
    // connection is gone. Responses written from now on carry `Connection: close`.
    const allClosed = Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    const graceOver = new AbortController();
    const grace = clock.sleep(CLOSE_GRACE_MS, graceOver.signal).catch(() => undefined);
    try {
      await Promise.race([Promise.allSettled([...inflight]), grace]);
      for (const s of servers) s.closeIdleConnections();
      await Promise.race([allClosed, grace]);
      for (const s of servers) s.closeAllConnections();
      await allClosed;
    } finally {
      graceOver.abort();
    }
  }

  return {
    start() {
      if (closing) return Promise.reject(new RuntimeError('ECLOSED', 'webhook ingest is closed'));
      starting ??= (async () => {
        try {
          for (const listener of listeners) await listen(listener);
        } catch (err) {
          await Promise.all(listeners.map((l) => new Promise<void>((resolve) => {
            if (!l.server) return resolve();
            l.server.close(() => resolve());
            l.server.closeAllConnections();
            l.server = null;
            l.boundPort = null;
          })));
          throw err;
        }
      })();
      return starting;
    },
    close() {
      closed ??= shutdown();
      return closed;
    },
    ports() {
      return listeners.flatMap((l) => (l.boundPort === null ? [] : [l.boundPort]));
    },
  };
}
