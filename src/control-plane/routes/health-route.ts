/**
 * `GET /healthz` and `GET /readyz` (contract §13), for load balancers, Kubernetes and systemd
 * watchers. The Host check applies; authentication does not (server.ts `unauthenticated`): a probe has
 * no token, and the answers say nothing beyond up / ready and the stable reasons why not.
 */
import { sendJson } from '../http-json.js';
import type { RouteHandler } from '../route.js';

/** Why the daemon is not ready, as stable codes (detail goes to the daemon's log, not to the prober). */
export type NotReadyReason = string;

export interface Readiness {
  ready: boolean;
  reasons: NotReadyReason[];
}

/** 200 `{"status":"ok"}` while the process serves. */
export function createHealthzRoute(): RouteHandler {
  return (ctx) => {
    sendJson(ctx.req, ctx.res, 200, { status: 'ok' });
    return Promise.resolve();
  };
}

/** 200 `{"status":"ready"}`, or 503 `{"status":"not-ready","reasons":[…]}`. */
export function createReadyzRoute(check: () => Promise<Readiness>): RouteHandler {
  return async (ctx) => {
    const { ready, reasons } = await check();
    if (ready) sendJson(ctx.req, ctx.res, 200, { status: 'ready' });
    else sendJson(ctx.req, ctx.res, 503, { status: 'not-ready', reasons }, { 'retry-after': '5' });
  };
}
