/**
 * The two sides of bench/metrics-scrape.ts, each in a process of its own: `svc` serves /metrics
 * through the control plane's listener and route over createMetrics; `bare` serves the same series
 * from a bare prom-client registry on a bare node:http server. Prints its port once listening.
 *
 *   node --import tsx bench/lib/metrics-server.ts svc|bare
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../src/core/clock.js';
import { createMetricsRoute } from '../../src/control-plane/routes/metrics-route.js';
import { createControlPlane } from '../../src/control-plane/server.js';
import { buildSeries } from './metric-series.js';

const { metrics, bare } = buildSeries();
if (process.argv[2] === 'svc') {
  const cp = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, routes: new Map([['/metrics', createMetricsRoute(metrics)]]),
    guard: null, report: () => undefined, clock: systemClock, maxConnections: 128 });
  await cp.start();
  process.stdout.write(`${cp.port()}\n`);
} else {
  const server = createServer((req, res) => {
    void bare.metrics().then((text) => {
      res.writeHead(200, { 'content-type': bare.contentType, 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
  });
  server.listen(0, '127.0.0.1', () => { process.stdout.write(`${(server.address() as AddressInfo).port}\n`); });
}
