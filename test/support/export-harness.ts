/**
 * Shared pieces of the SIEM export tests (src/audit/export/*.test.ts): a real SQLite store in a temp
 * directory, the real metrics registry, loopback receivers (node:http, and a node:net syslog
 * listener that parses RFC 6587 octet-counted frames) and a deadline poll. Not used by svc itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditConfig } from '../../src/config/schema.js';
import { auditSchema } from '../../src/config/schema.js';
import type { Clock } from '../../src/core/clock.js';
import { systemClock } from '../../src/core/clock.js';
import type { LogFields, LogLevel } from '../../src/core/log.js';
import type { Metrics } from '../../src/metrics/registry.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { createSourceStats } from '../../src/metrics/source-stats.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { AuditRow } from '../../src/audit/audit-row.js';
import { parseStoredAuditRow } from '../../src/audit/audit-row.js';
import type { Store } from '../../src/store/store.js';

export interface LogRecord { level: LogLevel; event: string; fields: LogFields }

/** A temp directory; `remove()` deletes it with everything in it. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const clocks = new WeakMap<Store, Clock>();

/** A real SQLite store whose rows `appendRows` stamps with `clock`. */
export async function openStore(path: string, clock: Clock): Promise<Store> {
  const store = await openSqliteStore({ path });
  clocks.set(store, clock);
  return store;
}

/** The first `limit` rows after `afterSeq`, data parsed, as the exporters ship them. */
export async function auditRows(store: Store, afterSeq: number, limit: number): Promise<AuditRow[]> {
  return (await store.readAudit(afterSeq, limit)).map(parseStoredAuditRow);
}

export function exportMetrics(exporters: readonly string[] = ['siem']): Metrics {
  return createMetrics({ stats: createSourceStats(), agents: [], exporters });
}

/** A log sink that keeps the records. */
export function recordingLog(): { records: LogRecord[]; log: (level: LogLevel, event: string, fields: LogFields) => void } {
  const records: LogRecord[] = [];
  return { records, log: (level, event, fields) => { records.push({ level, event, fields }); } };
}

/** The `audit` block as the loader would hand it over: parsed by the real schema, defaults filled in. */
export function auditConfig(input: Record<string, unknown>): AuditConfig {
  return auditSchema.parse(input);
}

/** Appends `n` rows; `pad` bytes of filler in each row's data make rows as large as a test needs. */
export async function appendRows(store: Store, n: number, pad = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    await store.appendAudit({ kind: 'test.row', actor: 'svc', agentId: 'agent-a',
      data: pad > 0 ? { i, pad: 'x'.repeat(pad) } : { i } }, (clocks.get(store) ?? systemClock).now());
  }
}

/**
 * Value of one series in the registry (0 when it does not exist). `series` picks a histogram's
 * `_count` or `_sum`; counters and gauges have only the family's own name.
 */
export async function registryValue(metrics: Metrics, name: string, labels: Record<string, string> = {},
  series = name): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const found = values.find((v) => ((v as { metricName?: string }).metricName ?? name) === series
    && Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return found?.value ?? 0;
}

/**
 * Seqs as a receiver saw them, checked against what at-least-once promises: the distinct seqs are
 * exactly 1..n and each first appears after the one before it. Returns the duplicated seqs.
 */
export function checkDelivery(seqs: readonly number[], n: number): number[] {
  const seen = new Set<number>();
  const firsts: number[] = [];
  const duplicates: number[] = [];
  for (const seq of seqs) {
    if (seen.has(seq)) duplicates.push(seq);
    else firsts.push(seq);
    seen.add(seq);
  }
  const expected = Array.from({ length: n }, (_, i) => i + 1);
  if (firsts.join() !== expected.join()) {
    throw new Error(`first occurrences are not 1..${n} in order: ${firsts.slice(0, 50).join(',')}`);
  }
  return duplicates;
}

export interface HttpExchange {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Status answered; null while stalled. */
  status: number | null;
  /** Resolves when the request's connection is gone. */
  socketClosed: Promise<void>;
}

/** What the receiver does with request number `n` (from 1): a status (+ headers), or stall forever. */
export type HttpBehaviour = (n: number) => { status: number; headers?: Record<string, string> } | 'stall';

export interface HttpReceiver {
  url: string;
  exchanges: HttpExchange[];
  /** Seqs of the rows of every acknowledged (2xx) JSON request, in arrival order. */
  ackedSeqs(): number[];
  close(): Promise<void>;
}

export async function startHttpReceiver(behaviour: HttpBehaviour = () => ({ status: 200 })): Promise<HttpReceiver> {
  const exchanges: HttpExchange[] = [];
  // One promise per connection: keep-alive carries many requests, each must not add a listener.
  const socketClosed = new WeakMap<net.Socket, Promise<void>>();
  const closedOf = (socket: net.Socket): Promise<void> => {
    let closed = socketClosed.get(socket);
    if (closed === undefined) {
      closed = new Promise((resolve) => { socket.once('close', () => resolve()); });
      socketClosed.set(socket, closed);
    }
    return closed;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const exchange: HttpExchange = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: null,
        socketClosed: closedOf(req.socket) };
      exchanges.push(exchange);
      const answer = behaviour(exchanges.length);
      if (answer === 'stall') return;
      exchange.status = answer.status;
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.status < 300 ? '{"ok":true}' : '{"error":"echo of something secret"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    exchanges,
    ackedSeqs: () => exchanges.filter((e) => e.status !== null && e.status < 300)
      .flatMap((e) => (JSON.parse(e.body) as { rows: Array<{ seq: number }> }).rows.map((r) => r.seq)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface SyslogFrame { connection: number; message: string }

/** What the listener does on connection `connection` (from 1) after parsing each frame. */
export type SyslogBehaviour = (socket: net.Socket, connection: number, frame: string) => void;

export interface SyslogListener {
  address: string;
  frames: SyslogFrame[];
  connections(): number;
  /** Resolves when connection `n` (from 1) has closed. */
  closed(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP syslog receiver parsing RFC 6587 octet-counted frames (`MSG-LEN SP SYSLOG-MSG`).
 * `onConnect` may pause a connection to play a stalled receiver.
 */
export async function startSyslogListener(opts: { onFrame?: SyslogBehaviour; onConnect?: (socket: net.Socket, connection: number) => void } = {}):
  Promise<SyslogListener> {
  const frames: SyslogFrame[] = [];
  const sockets: net.Socket[] = [];
  // Connection n's close, promised even before it connects.
  const closes: Array<{ promise: Promise<void>; resolve(): void }> = [];
  const closeOf = (n: number): { promise: Promise<void>; resolve(): void } => {
    while (closes.length < n) {
      let resolve = (): void => undefined;
      const promise = new Promise<void>((r) => { resolve = r; });
      closes.push({ promise, resolve });
    }
    return closes[n - 1] as { promise: Promise<void>; resolve(): void };
  };
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const connection = sockets.length;
    const closed = closeOf(connection);
    socket.once('close', () => closed.resolve());
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const space = buffer.indexOf(0x20);
        if (space === -1) return;
        const header = buffer.subarray(0, space).toString('ascii');
        if (!/^[1-9]\d*$/.test(header)) throw new Error(`bad frame header ${JSON.stringify(header.slice(0, 20))}`);
        const length = Number(header);
        if (buffer.length < space + 1 + length) return;
        const message = buffer.subarray(space + 1, space + 1 + length).toString('utf8');
        buffer = buffer.subarray(space + 1 + length);
        frames.push({ connection, message });
        opts.onFrame?.(socket, connection, message);
        if (socket.destroyed) return;
      }
    });
    opts.onConnect?.(socket, connection);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    frames,
    connections: () => sockets.length,
    closed: (n) => closeOf(n).promise,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
