/** Builds the /status snapshot (contract §7) from the live daemon: every value read at call time. */
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { RetentionSettings } from '../config/store.js';
import { formatDuration } from '../core/duration.js';
import type { LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { StatusSnapshot } from '../control-plane/routes/status-route.js';
import type { Channel } from '../runtime/channels/channel.js';
import type { McpServerStatus } from '../runtime/mcp/mcp-types.js';
import type { SourceStats } from '../metrics/source-stats.js';

export interface SnapshotDeps {
  pid: number;
  startedAtMs: number;
  clock: Clock;
  agents: readonly LoadedAgent[];
  channels: ReadonlyMap<string, readonly Channel[]>;
  stats: SourceStats;
  controlPlane: () => ControlPlaneSettings;
  /** What /status shows of the store (contract §7, §10.5, §16.6). */
  store: { kind: string; replica: string; leader: () => boolean; retention: RetentionSettings };
  stopping: () => boolean;
  /** Live state of the MCP servers the agent declares. */
  mcpServers: (agentId: string) => McpServerStatus[];
  /** SIEM export state, or null when no exporter is configured. */
  auditExport: () => StatusSnapshot['audit'];
  /** Lines the agent's log file could not take (disk full…): the log never fails the work (contract §11.6). */
  logWriteFailures: (agentId: string) => number;
}

export function createStatusSnapshot(deps: SnapshotDeps): () => StatusSnapshot {
  // Everything that cannot change while the daemon runs is built once; a request only reads the live
  // numbers (counters are stable objects, looked up once) and formats the answer.
  const startedAt = new Date(deps.startedAtMs).toISOString();
  const retention = retentionView(deps.store.retention);
  const agents = deps.agents.map(({ agent, sources }) => ({
    id: agent.id,
    provider: agent.provider,
    sources: sources.map((s) => ({ id: s.id, type: s.type, counters: deps.stats.get(agent.id, s.id),
      summary: `POST http://${hostPort(s.bind, s.port)}/webhooks/${s.id} (HMAC ${s.signatureHeader})` })),
    channels: deps.channels.get(agent.id) ?? [],
  }));
  return () => {
    const cp = deps.controlPlane();
    const state = deps.stopping() ? 'stopping' : 'running';
    return {
      version: 1,
      pid: deps.pid,
      startedAt,
      uptimeSeconds: Math.max(0, Math.floor((deps.clock.now() - deps.startedAtMs) / 1000)),
      agents: agents.map((a) => ({
        id: a.id,
        state,
        provider: a.provider,
        sources: a.sources.map(({ id, type, summary, counters: c }) => ({ id, type, summary,
          received: c.received, processed: c.processed, dlq: c.dlq, inflight: c.inflight })),
        channels: a.channels.map((c) => ({ id: c.id, type: c.type, direction: c.direction, ready: c.ready() })),
        mcpServers: deps.mcpServers(a.id).map((m) => ({ id: m.id, state: m.state, circuit: m.circuit, restarts: m.restarts,
          pid: m.pid, tools: m.tools })),
        logWriteFailures: deps.logWriteFailures(a.id),
      })),
      controlPlane: { bind: cp.bind, port: cp.port, auth: { enabled: cp.auth !== null, provider: cp.auth?.provider ?? null } },
      store: { kind: deps.store.kind, replica: deps.store.replica, leader: deps.store.leader(), retention },
      audit: deps.auditExport(),
    };
  };
}

/** Retention as an operator wrote it would be long; /status says it in days, hours or minutes. */
function retentionView(r: RetentionSettings): { events: string | null; deadLetters: string | null } {
  return { events: r.eventsMs === null ? null : formatDuration(r.eventsMs), deadLetters: r.deadLettersMs === null ? null : formatDuration(r.deadLettersMs) };
}

function hostPort(bind: string, port: number): string {
  return bind.includes(':') ? `[${bind}]:${port}` : `${bind}:${port}`;
}
