import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Gauge } from 'prom-client';
import { createMetrics } from '../../metrics/registry.js';
import type { Metrics } from '../../metrics/registry.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import type { RouteHandler } from '../route.js';
import { createMetricsRoute } from './metrics-route.js';

/** Mounts one route on a loopback server, the way the listener calls it. */
async function serve(handler: RouteHandler): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    handler({ req, res, url: new URL(req.url ?? '/', 'http://127.0.0.1'), signal: controller.signal, principal: { expiresAtMs: null } })
      .catch(() => { res.destroy(); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (server: Server): Promise<void> => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });

describe('GET /metrics', () => {
  const stats = createSourceStats();
  let metrics: Metrics;
  let base: string;
  let server: Server;

  before(async () => {
    metrics = createMetrics({ stats, agents: [{ id: 'oncall', sources: ['alertmanager'] }] });
    ({ base, server } = await serve(createMetricsRoute(metrics)));
  });
  after(() => close(server));

  it('answers 200 with the exposition and the exact headers', async () => {
    stats.get('oncall', 'alertmanager').received = 7;
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const body = await res.text();
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(body)));
    assert.match(body, /^# TYPE source_messages_received_total counter$/m);
    assert.match(body, /^source_messages_received_total\{agent="oncall",source="alertmanager"\} 7$/m);
  });

  it('answers HEAD with the same status and headers and no body', async () => {
    const get = await fetch(`${base}/metrics`);
    const getBody = await get.text();
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(head.headers.get('cache-control'), 'no-store');
    assert.equal(head.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(getBody)));
    assert.equal(await head.text(), '');
  });
});

describe('GET /metrics when a collect fails', () => {
  it('answers 500 {"error":"internal error"} with nothing internal, and reports the detail', async () => {
    const metrics = createMetrics({ stats: createSourceStats(), agents: [] });
    new Gauge({ name: 'broken_gauge', help: 'fails to collect', registers: [metrics.registry],
      collect() { throw new Error('db at /secret/path is locked'); } });
    const reported: unknown[] = [];
    const { base, server } = await serve(createMetricsRoute(metrics, { onError: (err) => reported.push(err) }));
    try {
      const res = await fetch(`${base}/metrics`);
      assert.equal(res.status, 500);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(await res.text(), '{"error":"internal error"}');
      assert.equal(reported.length, 1);
      assert.match(String(reported[0]), /secret\/path/);

      const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
      assert.equal(head.status, 500);
      assert.equal(await head.text(), '');
    } finally {
      await close(server);
    }
  });
});
