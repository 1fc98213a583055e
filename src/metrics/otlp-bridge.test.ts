import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { OtlpSettings } from '../config/otlp.js';
import { createSourceStats } from './source-stats.js';
import { METRIC_FAMILIES } from './metric-names.js';
import type { OtlpBridgeDeps } from './otlp-bridge.js';
import { startOtlpBridge } from './otlp-bridge.js';
import { createMetrics, HISTOGRAM_BUCKETS } from './registry.js';
import { waitFor, within } from '../../test/support/wait.js';

/** The parts of an OTLP/HTTP JSON ExportMetricsServiceRequest the tests read (int64 may come as strings). */
interface OtlpAttr { key: string; value: { stringValue?: string } }
interface OtlpPoint {
  attributes: OtlpAttr[]; startTimeUnixNano: string; timeUnixNano: string; asDouble?: number;
  bucketCounts?: Array<number | string>; explicitBounds?: number[]; count?: number | string; sum?: number;
}
interface OtlpMetric {
  name: string; description: string;
  sum?: { aggregationTemporality: number; isMonotonic: boolean; dataPoints: OtlpPoint[] };
  gauge?: { dataPoints: OtlpPoint[] };
  histogram?: { aggregationTemporality: number; dataPoints: OtlpPoint[] };
}
interface OtlpBody { resourceMetrics: Array<{ resource: { attributes: OtlpAttr[] }; scopeMetrics: Array<{ metrics: OtlpMetric[] }> }> }
interface Received { path: string; headers: IncomingHttpHeaders; body: OtlpBody }
interface LogLine { level: string; event: string; fields: Record<string, unknown> }

type Handler = Parameters<typeof createServer>[1];

/** A loopback HTTP server on a random port (or `port`); close() drops open connections too. */
async function listen(handler: Handler, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A loopback OTLP/HTTP receiver: records every POST, answers with `status`. */
async function startReceiver(status = 200): Promise<{ url: string; port: number; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{}' : '{"message":"boom"}');
    });
  });
  return { url: `http://127.0.0.1:${server.port}/v1/metrics`, port: server.port, got, close: () => server.close() };
}

/** A receiver that accepts requests and never answers; `open` counts requests whose connection is still up. */
async function startHungReceiver(): Promise<{ port: number; requests: number; open: number; close(): Promise<void> }> {
  const counts = { requests: 0, open: 0 };
  const server = await listen((req) => {
    counts.requests += 1;
    counts.open += 1;
    req.socket.once('close', () => { counts.open -= 1; });
  });
  return Object.assign(counts, { port: server.port, close: () => server.close() });
}

function fixture() {
  const stats = createSourceStats();
  const metrics = createMetrics({ stats, agents: [{ id: 'oncall', sources: ['alertmanager'], channels: ['oncall-dm', 'pushover'], receiptChannels: ['pushover'] }],
    mcpServers: ['runbooks'],
    exporters: ['siem'] });
  return { stats, metrics };
}

function bridgeDeps(registry: OtlpBridgeDeps['registry'], settings: OtlpSettings, logs: LogLine[]): OtlpBridgeDeps {
  return {
    registry, settings, serviceName: 'svc', serviceVersion: '9.9.9',
    log: (level, event, fields) => { logs.push({ level, event, fields }); },
  };
}

const attrs = (list: OtlpAttr[] | undefined): Record<string, string | undefined> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, a.value.stringValue]));
const metricsOf = (body: OtlpBody | undefined): OtlpMetric[] =>
  (body?.resourceMetrics ?? []).flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
function metricNamed(body: OtlpBody | undefined, name: string): OtlpMetric {
  const found = metricsOf(body).find((m) => m.name === name);
  assert.ok(found, `${name} not exported`);
  return found;
}
/** The data points of a metric, whatever its kind. */
const pointsOf = (m: OtlpMetric): OtlpPoint[] => (m.sum ?? m.gauge ?? m.histogram)?.dataPoints ?? [];
function defined<T>(value: T | undefined, what: string): T {
  assert.ok(value !== undefined, `${what} missing`);
  return value;
}

describe('startOtlpBridge', () => {
  const { stats, metrics } = fixture();
  const logs: LogLine[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let bridge: Awaited<ReturnType<typeof startOtlpBridge>>;
  const firstBody = () => defined(receiver.got[0], 'first export').body;

  before(async () => {
    Object.assign(stats.get('oncall', 'alertmanager'), { received: 3, processed: 2, inflight: 1 });
    metrics.mcp.restarts.inc({ server_id: 'runbooks' });
    metrics.mcp.drainDurationMs.observe({ server_id: 'runbooks' }, 75);
    metrics.mcp.drainDurationMs.observe({ server_id: 'runbooks' }, 20_000);
    metrics.mcp.drainDurationMs.observe({ server_id: 'runbooks' }, 90_000);
    // The families without a series at startup: tool ids appear at runtime, LLM series with an agent on a real provider.
    metrics.rateLimit.toolWaits.inc({ agent: 'oncall', tool: 'runbooks.search' });
    metrics.ingest.rejected.inc({ source: 'alertmanager', reason: 'unauthorized' });
    metrics.llm.zero('oncall', 'anthropic');
    // Policies and heartbeats come from oncall.yaml: their series appear with the first use.
    metrics.oncall.escalated('oncall', 'default', 'timeout');
    metrics.oncall.heartbeatAge('oncall', 'watchdog', 12);
    receiver = await startReceiver();
    bridge = await startOtlpBridge(bridgeDeps(metrics.registry,
      { url: receiver.url, headers: { 'x-api-key': 'k-123', 'x-tenant': 'ops' }, intervalMs: 200, timeoutMs: 200 }, logs));
    await waitFor('two exports', () => receiver.got.length >= 2);
  });
  after(async () => {
    await bridge.close();
    await receiver.close();
  });

  it('POSTs JSON to /v1/metrics with the configured headers', () => {
    const first = defined(receiver.got[0], 'first export');
    assert.equal(first.path, '/v1/metrics');
    assert.equal(first.headers['content-type'], 'application/json');
    assert.equal(first.headers['x-api-key'], 'k-123');
    assert.equal(first.headers['x-tenant'], 'ops');
  });

  it('carries service.name and service.version on the resource', () => {
    const resource = attrs(firstBody().resourceMetrics[0]?.resource.attributes);
    assert.equal(resource['service.name'], 'svc');
    assert.equal(resource['service.version'], '9.9.9');
  });

  it('exports every family of METRIC_FAMILIES under its exact name, with its type', () => {
    const exported = metricsOf(firstBody());
    assert.deepEqual(exported.map((m) => m.name).sort(), METRIC_FAMILIES.map((f) => f.name).sort());
    const kind = { counter: 'sum', gauge: 'gauge', histogram: 'histogram' } as const;
    for (const f of METRIC_FAMILIES) {
      const m = metricNamed(firstBody(), f.name);
      assert.ok(m[kind[f.type]], `${f.name} is not a ${kind[f.type]}`);
      assert.equal(m.description, f.help);
    }
  });

  it('exports counters as cumulative monotonic sums with the labels as attributes', () => {
    const received = defined(metricNamed(firstBody(), 'source_messages_received_total').sum, 'sum');
    assert.equal(received.isMonotonic, true);
    assert.equal(received.aggregationTemporality, 2); // AGGREGATION_TEMPORALITY_CUMULATIVE in OTLP
    const point = defined(received.dataPoints.find((p) => attrs(p.attributes).agent === 'oncall'), 'oncall point');
    assert.deepEqual(attrs(point.attributes), { agent: 'oncall', source: 'alertmanager' });
    assert.equal(point.asDouble, 3);
    const restarts = pointsOf(metricNamed(firstBody(), 'mcp_server_restarts_total'));
    assert.deepEqual(restarts.map((p) => [attrs(p.attributes), p.asDouble]), [[{ server_id: 'runbooks' }, 1]]);
    const dlq = pointsOf(metricNamed(firstBody(), 'source_messages_dlq_total'));
    assert.deepEqual(dlq.map((p) => attrs(p.attributes)), [{ agent: 'oncall', source: 'alertmanager', kind: 'dispatch' }]);
    const inflight = pointsOf(metricNamed(firstBody(), 'source_inflight'));
    assert.deepEqual(inflight.map((p) => p.asDouble), [1]);
  });

  it('exports histograms with the bucket bounds, per-bucket counts, sum and count', () => {
    const drain = defined(metricNamed(firstBody(), 'mcp_server_drain_duration_ms').histogram, 'histogram');
    assert.equal(drain.aggregationTemporality, 2);
    const point = defined(drain.dataPoints[0], 'histogram point');
    assert.equal(drain.dataPoints.length, 1);
    assert.deepEqual(attrs(point.attributes), { server_id: 'runbooks' });
    const bounds = HISTOGRAM_BUCKETS.mcp_server_drain_duration_ms;
    assert.deepEqual(point.explicitBounds, bounds);
    const expected = Array<number>(bounds.length + 1).fill(0);
    expected[bounds.indexOf(100)] = 1; // 75
    expected[bounds.indexOf(30_000)] = 1; // 20 000
    expected[bounds.length] = 1; // 90 000, above the last bound
    assert.deepEqual(point.bucketCounts?.map(Number), expected);
    assert.equal(Number(point.count), 3);
    assert.equal(point.sum, 110_075);
    // Configured zero series are exported too.
    const waits = pointsOf(metricNamed(firstBody(), 'svc_provider_rate_limit_wait_ms'));
    assert.deepEqual(waits.map((p) => [attrs(p.attributes), Number(p.count)]), [[{ agent: 'oncall' }, 0]]);
  });

  it('keeps the start time of cumulative points stable across exports and moves the end time', () => {
    const [a, b] = receiver.got.slice(0, 2).map((r) => defined(pointsOf(metricNamed(r.body, 'source_messages_received_total'))[0], 'point'));
    assert.ok(a && b);
    assert.equal(a.startTimeUnixNano, b.startTimeUnixNano);
    assert.ok(BigInt(b.timeUnixNano) > BigInt(a.timeUnixNano));
    assert.ok(BigInt(a.timeUnixNano) > BigInt(a.startTimeUnixNano));
  });

  it('logs its start with the endpoint origin and no failures', () => {
    assert.deepEqual(logs.find((l) => l.event === 'otlp.started')?.fields, { endpoint: `http://127.0.0.1:${receiver.port}`, intervalMs: 200 });
    assert.equal(logs.filter((l) => l.level === 'warn').length, 0, JSON.stringify(logs));
  });
});

// Every server and bridge is released by t.after, so a failed assertion cannot keep the process alive.
describe('startOtlpBridge close()', () => {
  it('exports once more, then never again', async (t) => {
    const { metrics } = fixture();
    const receiver = await startReceiver();
    t.after(() => receiver.close());
    const logs: LogLine[] = [];
    const settings = { url: receiver.url, headers: { 'x-bridge': 'closed' }, intervalMs: 200, timeoutMs: 200 };
    const bridge = await startOtlpBridge(bridgeDeps(metrics.registry, settings, logs));
    t.after(() => bridge.close());
    await waitFor('an export', () => receiver.got.length >= 1);
    metrics.mcp.restarts.inc({ server_id: 'runbooks' }, 5);
    await bridge.close();
    const atClose = receiver.got.length;
    // The final flush carried the latest values.
    assert.deepEqual(pointsOf(metricNamed(receiver.got.at(-1)?.body, 'mcp_server_restarts_total')).map((p) => p.asDouble), [5]);
    // A witness on the same schedule, started after close(): had the closed bridge's 200 ms timer
    // survived, it would have fired (earlier due) before each of the witness's exports.
    const witness = await startOtlpBridge(bridgeDeps(metrics.registry, { ...settings, headers: { 'x-bridge': 'witness' } }, []));
    t.after(() => witness.close());
    await waitFor('two exports of the witness', () => receiver.got.filter((r) => r.headers['x-bridge'] === 'witness').length === 2);
    await witness.close();
    assert.deepEqual(receiver.got.slice(atClose).map((r) => r.headers['x-bridge']), ['witness', 'witness', 'witness'],
      'after close() only the witness exported (twice on schedule, once when closed)');
    await bridge.close(); // idempotent
    assert.equal(logs.filter((l) => l.event === 'otlp.stopped').length, 1);
  });

  it('is bounded when the receiver never answers', async (t) => {
    const { metrics } = fixture();
    const hung = await startHungReceiver();
    t.after(() => hung.close());
    const logs: LogLine[] = [];
    const bridge = await startOtlpBridge(bridgeDeps(metrics.registry,
      { url: `http://127.0.0.1:${hung.port}/v1/metrics`, headers: {}, intervalMs: 60_000, timeoutMs: 300 }, logs));
    await within(bridge.close(), 'close() with a receiver that never answers');
    // It returned because its timeout gave up on the final export, which the receiver got and never answered.
    assert.equal(hung.requests, 1);
    assert.deepEqual(logs.filter((l) => l.event.startsWith('otlp.stop')).map((l) => [l.event, l.fields.error]), [['otlp.stop_failed', 'Operation timed out.']]);
  });

  it('logs nothing once it has returned, even when an export was still in flight', async (t) => {
    const { metrics } = fixture();
    const hung = await startHungReceiver();
    t.after(() => hung.close());
    const logs: LogLine[] = [];
    // close() gives up long before the export does (20 ms against 1 s), so an export is certainly
    // still in flight when it returns, however slow the host.
    const bridge = await startOtlpBridge({ ...bridgeDeps(metrics.registry,
      { url: `http://127.0.0.1:${hung.port}/v1/metrics`, headers: {}, intervalMs: 1000, timeoutMs: 1000 }, logs), closeBudgetMs: 20 });
    await waitFor('an export waiting on the hung receiver', () => hung.open === 1);
    await bridge.close();
    const atClose = logs.length;
    assert.ok(hung.open > 0, 'an export was still in flight when close() returned');
    // The exporter gives up on each request (its timeout) before the receiver sees the connection go:
    // once every connection is gone, the late outcomes have been reported, to a closed bridge.
    await waitFor('the exporter to give up on every request', () => hung.open === 0);
    assert.equal(logs.length, atClose, JSON.stringify(logs.slice(atClose)));
  });
});

describe('startOtlpBridge export failures', () => {
  it('logs a 500 from the receiver without secrets and keeps running', async (t) => {
    const { metrics } = fixture();
    const receiver = await startReceiver(500);
    t.after(() => receiver.close());
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => { unhandled.push(err); };
    process.on('unhandledRejection', onUnhandled);
    t.after(() => process.off('unhandledRejection', onUnhandled));
    const logs: LogLine[] = [];
    const url = `http://svc:s3cr3t-pass@127.0.0.1:${receiver.port}/v1/metrics`;
    const bridge = await startOtlpBridge(bridgeDeps(metrics.registry,
      { url, headers: { authorization: 'Bearer s3cr3t-token' }, intervalMs: 200, timeoutMs: 200 }, logs));
    t.after(() => bridge.close());
    await waitFor('two failed exports', () => logs.filter((l) => l.event === 'otlp.export_failed').length >= 2);
    await bridge.close();
    const failed = logs.filter((l) => l.event === 'otlp.export_failed');
    assert.equal(failed[0]?.level, 'warn');
    assert.equal(failed[0]?.fields.status, 500);
    assert.equal(failed.at(-1)?.fields.failures, failed.length); // consecutive failures are counted
    assert.ok(!JSON.stringify(logs).includes('s3cr3t'), JSON.stringify(logs));
    // The receiver did get the credentials: the header as given, the userinfo as Basic auth.
    assert.equal(receiver.got[0]?.headers.authorization, 'Bearer s3cr3t-token');
    assert.deepEqual(unhandled, []);
  });

  it('logs an unreachable receiver and recovers when it comes back', async (t) => {
    const { metrics } = fixture();
    const gone = await startReceiver();
    await gone.close(); // its port now refuses connections
    const logs: LogLine[] = [];
    const bridge = await startOtlpBridge(bridgeDeps(metrics.registry, { url: gone.url, headers: {}, intervalMs: 200, timeoutMs: 200 }, logs));
    t.after(() => bridge.close());
    await waitFor('a failed export', () => logs.some((l) => l.event === 'otlp.export_failed'));
    assert.equal(logs.find((l) => l.event === 'otlp.export_failed')?.fields.code, 'ECONNREFUSED');
    const back = await listen((req, res) => { req.resume(); req.on('end', () => res.writeHead(200).end('{}')); }, gone.port);
    t.after(() => back.close());
    await waitFor('recovery', () => logs.some((l) => l.event === 'otlp.export_recovered'));
  });
});

describe('otlp-bridge module', () => {
  it('loads no OpenTelemetry module until startOtlpBridge runs', () => {
    const script = `
      import { createRequire } from 'node:module';
      await import('./src/metrics/otlp-bridge.ts');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('@opentelemetry'));
      console.log(JSON.stringify(loaded));`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim()), []);
  });
});
