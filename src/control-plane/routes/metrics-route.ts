/** GET /metrics: the Prometheus text exposition of the explicit registry (contract §8, §3.5). */
import { sendError } from '../http-json.js';
import type { RouteHandler } from '../route.js';
import type { Metrics } from '../../metrics/registry.js';

export interface MetricsRouteOptions {
  /** Where the detail of a failed collect goes (the daemon's log); the client only sees "internal error". */
  onError?: (err: unknown) => void;
}

export function createMetricsRoute(metrics: Pick<Metrics, 'registry' | 'contentType'>, options: MetricsRouteOptions = {}): RouteHandler {
  return async ({ req, res }) => {
    let text: string;
    try {
      // HEAD renders too, so its status and Content-Length are those a GET would get.
      text = await metrics.registry.metrics();
    } catch (err) {
      options.onError?.(err);
      sendError(req, res, 500, 'internal error');
      return;
    }
    res.writeHead(200, {
      'content-type': metrics.contentType,
      'content-length': String(Buffer.byteLength(text)),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}
