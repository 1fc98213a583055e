/** Builds the /status document (contract §7) from the live daemon: every live value read at call time. */
import type { ControlPlaneSettings } from '../config/control-plane.js';
import type { RetentionSettings } from '../config/store.js';
import { formatDuration } from '../core/duration.js';
import type { LoadedAgent } from '../config/schema.js';
import { sourceUrl } from '../config/source-url.js';
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
  store: { kind: string; id: string | null; replica: string; leader: () => boolean; retention: RetentionSettings };
  stopping: () => boolean;
  /** Live state of the MCP servers the agent declares. */
  mcpServers: (agentId: string) => McpServerStatus[];
  /** SIEM export state, or null when no exporter is configured. */
  auditExport: () => StatusSnapshot['audit'];
  /** The checkpointer's state, or null when checkpoints are off or another replica signs them. */
  checkpoints?: () => StatusSnapshot['checkpoints'];
  /** Lines the agent's log file could not take (disk full…): the log never fails the work (contract §11.6). */
  logWriteFailures: (agentId: string) => number;
  /** Every listener the daemon opened (listener-registry.ts), read at call time. */
  listeners: () => StatusSnapshot['listeners'];
  /** The agent's on-call view (contract §17.9); null when it has no oncall.yaml. */
  oncall?: (agentId: string) => StatusSnapshot['agents'][number]['oncall'];
}

/**
 * The /status document as JSON text. Everything that cannot change while the daemon runs (ids, types,
 * summaries, retention) is serialized once, here; a request only reads the live values (counters are
 * stable objects, looked up once) and joins them to those fragments — no snapshot object is built and
 * serialized per request. The text has the shape of {@link StatusSnapshot}, key for key.
 */
export function createStatusSnapshot(deps: SnapshotDeps): () => string {
  const json = JSON.stringify;
  const head = `{"version":1,"pid":${json(deps.pid)},"startedAt":${json(new Date(deps.startedAtMs).toISOString())},"uptimeSeconds":`;
  const agents = deps.agents.map(({ agent, sources }) => ({
    id: agent.id,
    open: `{"id":${json(agent.id)},"state":`,
    provider: `,"provider":${json(agent.provider)},"sources":[`,
    sources: sources.map((s) => ({
      counters: deps.stats.get(agent.id, s.id),
      open: `{"id":${json(s.id)},"type":${json(s.type)},"summary":${json(`POST ${sourceUrl(s)} (${authSummary(s)})`)},"received":`,
    })),
    channels: (deps.channels.get(agent.id) ?? []).map((c) => ({
      channel: c,
      open: `{"id":${json(c.id)},"type":${json(c.type)},"direction":${json(c.direction)},"ready":`,
    })),
  }));
  const store = `,"store":{"kind":${json(deps.store.kind)},"id":${json(deps.store.id)},"replica":${json(deps.store.replica)},"leader":`;
  const retention = `,"retention":${json(retentionView(deps.store.retention))}}`;

  return () => {
    const state = deps.stopping() ? '"stopping"' : '"running"';
    let out = `${head}${Math.max(0, Math.floor((deps.clock.now() - deps.startedAtMs) / 1000))},"agents":[`;
    for (let i = 0; i < agents.length; i++) {
      const a = agents[i] as (typeof agents)[number];
      out += `${i > 0 ? ',' : ''}${a.open}${state}${a.provider}`;
      for (let j = 0; j < a.sources.length; j++) {
        const { open, counters: c } = a.sources[j] as (typeof a.sources)[number];
        out += `${j > 0 ? ',' : ''}${open}${c.received},"processed":${c.processed},"dlq":${c.dlq},"inflight":${c.inflight}}`;
      }
      out += '],"channels":[';
      for (let j = 0; j < a.channels.length; j++) {
        const { open, channel } = a.channels[j] as (typeof a.channels)[number];
        out += `${j > 0 ? ',' : ''}${open}${channel.ready() ? 'true' : 'false'}}`;
      }
      const mcp: StatusSnapshot['agents'][number]['mcpServers'] = deps.mcpServers(a.id).map((m) => ({ id: m.id, state: m.state,
        circuit: m.circuit, restarts: m.restarts, pid: m.pid, tools: m.tools }));
      out += `],"mcpServers":${json(mcp)},"logWriteFailures":${deps.logWriteFailures(a.id)},"oncall":${json(deps.oncall?.(a.id) ?? null)}}`;
    }
    const cp = deps.controlPlane();
    const controlPlane: StatusSnapshot['controlPlane'] = { bind: cp.bind, port: cp.port,
      auth: { enabled: cp.auth !== null, provider: cp.auth?.provider ?? null } };
    const audit: StatusSnapshot['audit'] = deps.auditExport();
    const checkpoints: StatusSnapshot['checkpoints'] = deps.checkpoints?.() ?? null;
    return `${out}],"controlPlane":${json(controlPlane)},"listeners":${json(deps.listeners())}${store}${deps.store.leader() ? 'true' : 'false'}${retention},"audit":${json(audit)}`
      + `,"checkpoints":${json(checkpoints)}}`;
  };
}

/** Retention as an operator wrote it would be long; /status says it in days, hours or minutes. */
function retentionView(r: RetentionSettings): { events: string | null; deadLetters: string | null } {
  return { events: r.eventsMs === null ? null : formatDuration(r.eventsMs), deadLetters: r.deadLettersMs === null ? null : formatDuration(r.deadLettersMs) };
}

/** How the source authenticates, as /status shows it: `HMAC X-Signature`, `bearer`, `basic`. */
function authSummary(s: LoadedAgent['sources'][number]): string {
  return [s.secret !== undefined ? `HMAC ${s.signatureHeader}` : null, s.bearerToken !== undefined ? 'bearer' : null,
    s.basicAuth !== undefined ? 'basic' : null].filter((m) => m !== null).join(', ');
}
