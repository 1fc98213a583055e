/** GET /status: the live snapshot of the `up` process (contract §7). */
import type { CheckpointContradiction } from '../../audit/check-checkpoints.js';
import type { OncallStatus } from '../../oncall/oncall-status.js';
import { sendJsonText } from '../http-json.js';
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
    /** circuit: closed | half-open | open (mcp_server_circuit_state 0 | 1 | 2). */
    mcpServers: Array<{ id: string; state: string; circuit: string; restarts: number; pid: number | null; tools: string[] }>;
    /** Lines the agent's log file could not take since the start (disk full…). */
    logWriteFailures: number;
    /** Contract §17.9: open pages, schedules, heartbeats; null when the agent has no oncall.yaml. */
    oncall: OncallStatus | null;
  }>;
  controlPlane: { bind: string; port: number; auth: { enabled: boolean; provider: string | null } };
  /** id: the store's identity (daemon/store-identity.ts), one for every replica of one database. */
  store: { kind: string; id: string | null; replica: string; leader: boolean; retention: { events: string | null; deadLetters: string | null } };
  /** SIEM export of the audit chain; null when no exporter is configured. */
  audit: {
    exporters: Array<{ id: string; type: string; lastSeq: number; failures: number; lastError: string | null; alarm: string | null }>;
    backpressure: { active: boolean; backlogRows: number };
  } | null;
  /**
   * Signed checkpoints (contract §20.2) on the replica that signs them; null when `audit.checkpoints`
   * is not set or another replica leads. `alarm`: the chain contradicts a checkpoint (since when, and
   * how), and nothing is signed until it holds again.
   */
  checkpoints: { lastSeq: number; lastTs: string | null; alarm: (CheckpointContradiction & { since: string }) | null } | null;
}

/** `snapshot`: the document as JSON text, in the shape of {@link StatusSnapshot}. */
export function createStatusRoute(snapshot: () => string): RouteHandler {
  return (ctx) => {
    sendJsonText(ctx.req, ctx.res, 200, snapshot());
    return Promise.resolve();
  };
}
