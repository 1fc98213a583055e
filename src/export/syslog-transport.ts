/**
 * The `syslog` SIEM transport: RFC 5424 messages over one TCP connection with RFC 6587 octet
 * counting, one message per row, one socket write per batch. The connection is opened on the first
 * send and again on the send after it broke; the pump's back-off spaces the attempts.
 *
 * What "acknowledged" means here: TCP syslog has no application-level acknowledgement (that is what
 * RELP adds). A batch counts as delivered once the socket's write callback has fired without error
 * and the connection has not failed by then, i.e. the kernel took every byte. Rows the kernel took
 * but the receiver never read — it crashed, or reset the connection with data still queued — are
 * lost to the receiver without svc noticing. Everything else is at-least-once from the persisted
 * cursor: a batch that fails (error, reset, timeout) is sent again whole on a new connection, so the
 * receiver may see the front of it twice. Use the `http` exporter where every row must be confirmed.
 */
import net from 'node:net';
import type { SyslogExporterConfig } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';
import type { AuditRow } from '../audit/audit-row.js';
import type { SyslogHeader } from './syslog-format.js';
import { syslogBatch } from './syslog-format.js';
import type { AuditTransport, SendResult, TransportDeps } from './transport.js';

interface Connection {
  socket: net.Socket;
  /** Why the connection is unusable, once it is: set by error, end or close. */
  broken: string | null;
}

/** `host:port` or `[v6]:port`, as the config schema admits it. */
export function parseSyslogAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  if (colon <= 0 || host === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(`syslog exporter address ${JSON.stringify(address)} must be host:port with a port 1-65535`);
  }
  return { host, port };
}

export function createSyslogTransport(config: SyslogExporterConfig, deps: TransportDeps): AuditTransport {
  const { host, port } = parseSyslogAddress(config.address);
  const header: SyslogHeader = { hostname: config.hostname ?? deps.hostname, appName: config.appName, procId: String(deps.pid) };
  let current: Connection | null = null;
  let closed = false;

  const connect = (): Connection => {
    const socket = net.createConnection({ host, port });
    socket.setNoDelay(true);
    const conn: Connection = { socket, broken: null };
    const broke = (why: string): void => {
      conn.broken ??= why;
      if (current === conn) current = null;
    };
    socket.on('error', (err: NodeJS.ErrnoException) => broke(`socket error: ${err.code ?? err.message}`));
    // A receiver sends nothing; reading anyway is how its FIN (a restart, an idle timeout) is seen.
    socket.on('data', () => undefined);
    socket.on('end', () => { broke('connection closed by the receiver'); socket.destroy(); });
    socket.on('close', () => broke('connection closed'));
    return conn;
  };

  const drop = (conn: Connection, why: string): void => {
    conn.broken ??= why;
    if (current === conn) current = null;
    conn.socket.destroy();
  };

  const send = (rows: readonly AuditRow[], signal: AbortSignal): Promise<SendResult> => new Promise((resolve) => {
    if (closed) return resolve({ ok: false, error: 'transport closed' });
    if (signal.aborted) return resolve({ ok: false, error: 'aborted' });
    const payload = syslogBatch(rows, header);
    const conn = current ?? connect();
    current = conn;

    let settled = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      deps.clock.clearTimer(timer);
      signal.removeEventListener('abort', onAbort);
      conn.socket.off('close', onClose);
      // Whatever part of the batch went out, the next attempt starts on a clean connection.
      if (!result.ok) drop(conn, result.error);
      resolve(result);
    };
    const onAbort = (): void => finish({ ok: false, error: 'aborted' });
    const onClose = (): void => finish({ ok: false, error: conn.broken ?? 'connection closed' });
    // A receiver that stops reading fills the kernel buffers and the write callback never fires:
    // after timeoutMs that is a failure, and the socket is destroyed.
    const timer = deps.clock.setTimer(() => finish({ ok: false, error: `timed out after ${config.timeoutMs} ms` }), config.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    conn.socket.on('close', onClose);

    // Node can call a write callback without an error after the socket failed (seen with
    // ECONNRESET on Node 20), so the connection's own state is checked as well.
    conn.socket.write(payload, (err) => {
      const failed = err ? `write failed: ${(err as NodeJS.ErrnoException).code ?? err.message}` : conn.broken;
      finish(failed === null ? { ok: true } : { ok: false, error: failed });
    });
  });

  return {
    send,
    close: () => {
      closed = true;
      if (current !== null) drop(current, 'transport closed');
      return Promise.resolve();
    },
  };
}
