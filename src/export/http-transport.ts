/**
 * The `http` SIEM transport: one POST per batch, acknowledged by a 2xx status. Anything else —
 * 4xx included — is a failure the pump retries with the same rows, because audit rows are never
 * dropped; a 429/503 Retry-After (delta-seconds) tells the pump how long to wait.
 *
 * node:http rather than fetch: the transport owns its keep-alive Agent, so close() destroys its
 * sockets instead of leaving them in undici's process-wide pool, and one timer per attempt is
 * cleared on every outcome.
 */
import http from 'node:http';
import https from 'node:https';
import type { HttpExporterConfig } from '../config/schema.js';
import type { AuditRow } from '../audit/audit-row.js';
import type { AuditTransport, SendResult, TransportDeps } from './transport.js';

/** Status codes whose Retry-After is honoured (RFC 9110 §10.2.3). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);
/** Longest reason phrase kept in an error text: a status line, never the body. */
const MAX_REASON_CHARS = 40;

/** `{"rows":[…]}`: the rows as stored, `hash` included, so the receiver can re-verify the chain. */
export function jsonBody(rows: readonly AuditRow[]): string {
  return JSON.stringify({ rows });
}

/**
 * Splunk HEC batch: the event objects concatenated one per line (HEC accepts several events in one
 * request body). `time` is epoch seconds with the milliseconds as fraction, as HEC expects.
 */
export function splunkHecBody(rows: readonly AuditRow[], hostname: string): string {
  return rows.map((row) => JSON.stringify({
    time: Number((Date.parse(row.ts) / 1000).toFixed(3)),
    host: hostname,
    source: 'svc',
    sourcetype: 'svc:audit',
    event: row,
  })).join('\n');
}

/** Retry-After as delta-seconds in ms; an HTTP-date or garbage is ignored (the back-off applies). */
function retryAfterMs(status: number, header: string | undefined): number | undefined {
  if (!RETRY_AFTER_STATUSES.has(status) || header === undefined || !/^\d{1,9}$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}

export function createHttpTransport(config: HttpExporterConfig, deps: TransportDeps): AuditTransport {
  const url = new URL(config.url);
  const client = url.protocol === 'https:' ? https : http;
  // One socket: batches of one exporter go strictly one after another anyway.
  const agent = new client.Agent({ keepAlive: true, maxSockets: 1 });
  const scheme = config.format === 'splunk-hec' ? 'Splunk' : 'Bearer';
  const authorization = config.token === undefined ? undefined : `${scheme} ${config.token}`;
  /** Last guard: whatever a library put in an error message, the token never leaves this file. */
  const redact = (text: string): string =>
    config.token === undefined ? text : text.split(config.token).join('[redacted]');
  let closed = false;

  const send = (rows: readonly AuditRow[], signal: AbortSignal): Promise<SendResult> => new Promise((resolve) => {
    if (closed) return resolve({ ok: false, error: 'transport closed' });
    if (signal.aborted) return resolve({ ok: false, error: 'aborted' });
    const body = Buffer.from(config.format === 'splunk-hec' ? splunkHecBody(rows, deps.hostname) : jsonBody(rows));
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': body.length,
      'user-agent': 'svc-audit-export',
    };
    if (authorization !== undefined) headers.authorization = authorization;

    let settled = false;
    const req = client.request(url, { method: 'POST', agent, headers });
    const finish = (result: SendResult, destroy: boolean): void => {
      if (settled) return;
      settled = true;
      deps.clock.clearTimer(timer);
      signal.removeEventListener('abort', onAbort);
      if (destroy) req.destroy();
      resolve(result.ok ? result : { ...result, error: redact(result.error) });
    };
    const onAbort = (): void => finish({ ok: false, error: 'aborted' }, true);
    // One budget for the whole exchange, body drain included: a receiver that accepts and never
    // answers (or never finishes) is a failure and its socket is dropped.
    const timer = deps.clock.setTimer(() => finish({ ok: false, error: `timed out after ${config.timeoutMs} ms` }, true),
      config.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: `request failed: ${err.code ?? err.message}` }, true));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      // The body is drained (keep-alive needs it) and never read: it may echo the request or secrets.
      res.resume();
      res.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: `response failed: ${err.code ?? err.message}` }, true));
      res.on('end', () => {
        if (status >= 200 && status < 300) return finish({ ok: true }, false);
        const reason = (res.statusMessage ?? '').replace(/[^\x20-\x7E]/g, '').slice(0, MAX_REASON_CHARS);
        const wait = retryAfterMs(status, res.headers['retry-after']);
        finish({ ok: false, error: `HTTP ${status}${reason === '' ? '' : ` ${reason}`}`,
          ...(wait === undefined ? {} : { retryAfterMs: wait }) }, false);
      });
    });
    req.end(body);
  });

  return {
    send,
    close: () => {
      closed = true;
      agent.destroy();
      return Promise.resolve();
    },
  };
}
