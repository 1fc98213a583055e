/** GET /status: the live snapshot of the `up` process (contract §7). */
import { sendJson } from '../http-json.js';
import type { RouteHandler } from '../route.js';

export interface StatusSnapshot {
  version: 1;
  pid: number;
  startedAt: string;
  uptimeSeconds: number;
  agents: Array<{
    id: string;
    state: 'running' | 'stopping';
    provider: string;
    sources: Array<{ id: string; type: string; summary: string; received: number; processed: number; dlq: number; inflight: number }>;
    channels: Array<{ id: string; type: string; direction: string; ready: boolean }>;
    mcpServers: Array<{ id: string; state: string; circuit: string; restarts: number }>;
  }>;
  controlPlane: { bind: string; port: number; auth: { enabled: boolean; provider: string | null } };
  store: { kind: string };
}

export function createStatusRoute(snapshot: () => StatusSnapshot): RouteHandler {
  return (ctx) => {
    sendJson(ctx.req, ctx.res, 200, snapshot());
    return Promise.resolve();
  };
}
