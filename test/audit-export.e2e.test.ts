/**
 * SIEM export of the audit chain from the real daemon to loopback receivers: an HTTP collector that
 * fails and then recovers, and a TCP syslog listener (RFC 5424, octet counting). Back-pressure engages
 * while the collector is down (intake pauses, nothing is dropped) and releases when it drains; every
 * row arrives in seq order; a restarted daemon resumes after its persisted cursor. The same daemon
 * also pushes its metrics over OTLP/HTTP to a loopback receiver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { Server as TcpServer } from 'node:net';
import { metricValue, postAlert } from './support/http.js';
import { auditRows, queryStore } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

/** An HTTP SIEM collector that records the seq of every row it acknowledges, and can be told to fail. */
function httpCollector() {
  const seqs: number[] = [];
  let failing = true;
  let requests = 0;
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      if (failing) {
        res.writeHead(503, { 'retry-after': '0' }).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { rows: Array<{ seq: number }> };
      for (const row of body.rows) seqs.push(row.seq);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, seqs, requests: () => requests, setFailing: (f: boolean) => { failing = f; } };
}

/** A TCP syslog listener: RFC 6587 octet-counted frames of RFC 5424 messages; records the seq of each. */
function syslogListener() {
  const seqs: number[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const space = buf.indexOf(0x20);
        if (space < 0) return;
        const len = Number(buf.subarray(0, space).toString('ascii'));
        if (buf.length < space + 1 + len) return;
        const msg = buf.subarray(space + 1, space + 1 + len).toString('utf8');
        buf = buf.subarray(space + 1 + len);
        const m = /^<110>1 \S+ \S+ \S+ \S+ \S+ \[svc@32473 seq="(\d+)"/.exec(msg);
        assert.ok(m, `not an RFC 5424 audit message: ${msg.slice(0, 120)}`);
        seqs.push(Number(m[1]));
      }
    });
  });
  return { server, seqs };
}

/** An OTLP/HTTP metrics receiver: keeps the JSON bodies posted to /v1/metrics. */
function otlpReceiver() {
  const bodies: unknown[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/metrics') bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, bodies };
}

const listen = (server: Server | TcpServer): Promise<number> => new Promise((resolve) => {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    resolve(typeof address === 'object' && address ? address.port : 0);
  });
});

/** Distinct seqs in first-arrival order: what at-least-once delivery must make 1..n, ascending. */
const firstArrivals = (seqs: number[]): number[] => [...new Set(seqs)];
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('SIEM export from the running daemon', () => {
  const t = tempEnv();
  let dir = '';
  const collector = httpCollector();
  const syslog = syslogListener();
  const otlp = otlpReceiver();
  let cp = '';
  let cpPort = 0;
  let otlpPort = 0;
  let url = '';
  let secret = '';
  let fixture = '';
  let n = 0;
  const env = (): NodeJS.ProcessEnv => ({ ...t.env, SVC_METRICS_PORT: String(cpPort),
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}`, OTEL_METRIC_EXPORT_INTERVAL: '300' });
  const svc = (...args: string[]) => runSvc(args, { env: env(), cwd: dir });
  const metrics = async (): Promise<string> => (await fetch(`${cp}/metrics`)).text();
  const send = async (): Promise<string> => {
    const res = await postAlert(url, secret, fixture, `siem-${n++}`);
    assert.equal(res.status, 202);
    return String(res.json?.eventId);
  };
  const eventStatus = (id: string): string | undefined =>
    queryStore<{ status: string }>(t.home, 'SELECT status FROM events WHERE id = ?', id)[0]?.status;
  const headSeq = (): number => Math.max(0, ...auditRows(t.home).map((r) => r.seq));

  before(async () => {
    const httpPort = await listen(collector.server);
    const syslogPort = await listen(syslog.server);
    otlpPort = await listen(otlp.server);
    ({ dir, url, cpPort, cp, secret, fixture } = await scaffoldAgent(t));
    appendAgentYaml(dir, [
      'audit:',
      '  export:',
      '    - id: siem',
      '      type: http',
      `      url: http://127.0.0.1:${httpPort}/audit`,
      '      batchMaxRows: 4',
      '      retry: { initialBackoffMs: 20, maxBackoffMs: 100 }',
      '    - id: syslog',
      '      type: syslog',
      `      address: 127.0.0.1:${syslogPort}`,
      '  backpressure: { maxBacklogRows: 8, resumeBelowRows: 2 }',
      '  batch: { minIntervalMs: 10, maxIntervalMs: 100 }',
    ].join('\n'));
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    await Promise.all([collector.server, syslog.server, otlp.server].map((s) => new Promise((r) => { s.close(r); })));
    t.cleanup();
  });

  it('a failing collector: failures counted, back-pressure pauses intake, nothing is dropped', async () => {
    // Each alert appends three rows (accepted, triage, delivered); the bound is 8 unacknowledged rows.
    let paused: string | undefined;
    for (let i = 0; i < 10 && paused === undefined; i += 1) {
      const id = await send();
      await waitFor(`event ${id} handled or paused`, async () => {
        const text = await metrics();
        if (metricValue(text, 'svc_audit_backpressure_active') === 1) return (paused = text);
        return eventStatus(id) === 'processed' ? true : undefined;
      });
    }
    assert.ok(paused, 'back-pressure never engaged');
    assert.equal(metricValue(paused, 'svc_audit_backpressure_paused_total'), 1);
    assert.ok((metricValue(paused, 'svc_audit_export_failures_total', { exporter: 'siem' }) ?? 0) >= 1);
    assert.equal(metricValue(paused, 'svc_audit_export_acked_total', { exporter: 'siem' }), 0);
    assert.ok((metricValue(paused, 'svc_audit_backpressure_backlog_ms') ?? -1) >= 0);
    // The syslog exporter is healthy: it keeps up while the HTTP one is down.
    await waitFor('syslog caught up', () => (firstArrivals(syslog.seqs).length >= headSeq() ? true : undefined));
    // Intake is paused: a new event is accepted (durably) but not handled.
    const held = await send();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(eventStatus(held), 'accepted');
    const status = (await (await fetch(`${cp}/status`)).json()) as { audit: { backpressure: { active: boolean } } };
    assert.equal(status.audit.backpressure.active, true);

    collector.setFailing(false);
    await waitFor('the held event handled after the backlog drained', () => (eventStatus(held) === 'processed' ? true : undefined));
    const released = await waitFor('back-pressure released', async () => {
      const text = await metrics();
      return metricValue(text, 'svc_audit_backpressure_active') === 0 ? text : undefined;
    });
    assert.equal(metricValue(released, 'svc_audit_backpressure_paused_total'), 1);
  });

  it('every row arrives at both receivers, in seq order, none missing', async () => {
    const head = await waitFor('both receivers at the head', () => {
      const h = headSeq();
      return firstArrivals(collector.seqs).length === h && firstArrivals(syslog.seqs).length === h ? h : undefined;
    });
    assert.deepEqual(firstArrivals(collector.seqs), range(1, head));
    assert.deepEqual(firstArrivals(syslog.seqs), range(1, head));
    const text = await waitFor('last_seq at the head', async () => {
      const m = await metrics();
      return metricValue(m, 'svc_audit_export_last_seq', { exporter: 'siem' }) === head ? m : undefined;
    });
    assert.ok((metricValue(text, 'svc_audit_export_acked_total', { exporter: 'siem' }) ?? 0) >= head);
    assert.ok((metricValue(text, 'svc_audit_batch_rows_count') ?? 0) >= 1);
    assert.ok((metricValue(text, 'svc_audit_batch_interval_ms') ?? 0) >= 10);
    const ps = await svc('ps');
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, /audit export {2}back-pressure off/);
    assert.match(ps.stdout, new RegExp(`siem +http +${head} +no +-`));
  });

  it('the same metrics go out over OTLP/HTTP with their names and labels', async () => {
    type Point = { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    type Metric = { name: string; sum?: { dataPoints: Point[] }; gauge?: { dataPoints: Point[] } };
    type Body = { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Metric[] }> }> };
    const names = await waitFor('an OTLP export', () => {
      const last = otlp.bodies.at(-1) as Body | undefined;
      return last?.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
    });
    const byName = new Map(names.map((m) => [m.name, m]));
    for (const name of ['source_messages_received_total', 'svc_audit_export_acked_total', 'svc_audit_backpressure_paused_total',
      'svc_provider_rate_limit_waits', 'svc_audit_batch_rows', 'svc_audit_export_last_seq']) {
      assert.ok(byName.has(name), `OTLP export lacks ${name}`);
    }
    const received = byName.get('source_messages_received_total')?.sum?.dataPoints[0];
    const attrs = Object.fromEntries((received?.attributes ?? []).map((a) => [a.key, a.value.stringValue]));
    assert.deepEqual(attrs, { agent: 'oncall-escalator', source: 'alertmanager' });
  });

  it('a restarted daemon resumes after the persisted cursor', async () => {
    assert.equal((await svc('down')).code, 0);
    const cursor = queryStore<{ last_seq: number }>(t.home, "SELECT last_seq FROM audit_export_cursors WHERE exporter_id = 'siem'")[0]?.last_seq;
    assert.ok(cursor !== undefined && cursor > 0);
    const before = collector.seqs.length;
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
    await send();
    const head = await waitFor('the collector at the new head', () => {
      const h = headSeq();
      return firstArrivals(collector.seqs).at(-1) === h ? h : undefined;
    });
    const after = collector.seqs.slice(before);
    assert.ok(after.length > 0);
    assert.ok(after.every((s) => s > cursor), `re-sent rows at or below the cursor ${cursor}: ${after.join()}`);
    assert.deepEqual(firstArrivals(after), range(cursor + 1, head));
  });
});
