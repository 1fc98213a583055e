/** GET /status: the live snapshot of the `up` process (contract §7). */
import type { CheckpointContradiction } from '../../audit/check-checkpoints.js';
import type { OncallStatus } from '../../oncall/oncall-status.js';
import { sendJsonText } from '../http-json.js';
import type { RouteHandler } from '../route.js';

/**
 * The kinds of listener a daemon opens (contract §25.3), one vocabulary for /status and `svc ps`:
 * `ingest` (a webhook source, §9), `control-plane` (§3), `ack` (one-time ack links, §18.6), `slack`
 * (Slack interactivity, §18.2), `twilio` (SMS replies and call status, §21.4), `console` (the team
 * console, §24.6). A starter of a new listener registers it (daemon/listener-registry.ts); `svc ps` prints
 * whatever /status lists.
 */
export const LISTENER_KINDS = ['ingest', 'control-plane', 'ack', 'slack', 'twilio', 'console'] as const;
export type ListenerKind = (typeof LISTENER_KINDS)[number];

/** One listener of the daemon as /status shows it. */
export interface StatusListener {
  kind: ListenerKind;
  /** The agent it serves; null for the daemon's own (the control plane). */
  agent: string | null;
  /** The source it serves (its id in event-sources.yaml); null when it is no source. */
  source: string | null;
  bind: string;
  /** The bound port (the one the system chose, for port 0). */
  port: number;
  /** Where it is reached: a webhook source's POST URL, an ack source's `publicUrl` (what links start with), a base URL. */
  url: string;
}

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
  /** Every listener, in the order of LISTENER_KINDS (absent from an older daemon's answer). */
  listeners?: StatusListener[];
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
