/**
 * The daemon's settings, resolved once (contract §3, §9.3, §10, §11.2): what `svc up` and `svc check`
 * load and what `startDaemon` runs with — the control plane (agent.yaml, then SVC_METRICS_PORT), the
 * store and its idempotency window, the ingest listeners as the daemon will open them, and the waits
 * a start and a stop allow. Each value has one home here or in the module it names; nothing else
 * keeps a copy.
 */
import type { ControlPlaneSettings } from './control-plane.js';
import { resolveControlPlane } from './control-plane.js';
import { homePaths } from './paths.js';
import type { ConsoleConfig, LoadedAgent } from './schema.js';
import { answerSourcesOf } from './schema.js';
import type { StoreSettings } from './store.js';
import { resolveStore } from './store.js';

/** How long SIGTERM waits for in-flight dispatches before giving them back to the queue. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** Longest `svc up` (and `svc triage`) waits for the MCP servers' first start before going on without them. */
export const MCP_START_WAIT_MS = 10_000;

/** One ingest listener: every source with the same bind and port shares it (ingest/webhook-server.ts). */
export interface IngestListener {
  /** `bind:port`, the listener's identity (port 0: one ephemeral listener per bind). */
  key: string;
  bind: string;
  port: number;
  /** The largest `maxConnections` of its sources: the listener's cap (contract §11.2). */
  maxConnections: number;
  /** Who wants it, for messages: its first source (`source alerts of agent a`). */
  who: string;
}

export interface DaemonSettings {
  controlPlane: ControlPlaneSettings;
  /**
   * The store, with its idempotency window: the store takes it when it opens (fingerprints younger
   * than it make a repeat a duplicate), retention keeps fingerprints that long.
   */
  store: StoreSettings & { idempotencyWindowMs: number };
  drainTimeoutMs: number;
  mcpStartWaitMs: number;
  /** The ingest listeners, in the order of their first source. */
  listeners: IngestListener[];
  /** The team console (contract §24.6), references resolved; null when no agent.yaml has a `console:` block. */
  console: ConsoleConfig | null;
}

/** The team console's block (the loader has checked that the agents setting it agree). */
export function teamConsole(agents: readonly LoadedAgent[]): ConsoleConfig | null {
  return agents.find((a) => a.agent.console !== undefined)?.agent.console ?? null;
}

/** The ingest listeners the agents' sources make, grouped by bind and port, in order of first appearance. */
export function ingestListeners(agents: readonly LoadedAgent[]): IngestListener[] {
  const byKey = new Map<string, IngestListener>();
  for (const a of agents) {
    for (const s of a.sources) {
      const key = `${s.bind}:${s.port}`;
      const seen = byKey.get(key);
      if (seen === undefined) byKey.set(key, { key, bind: s.bind, port: s.port, maxConnections: s.maxConnections, who: `source ${s.id} of agent ${a.agent.id}` });
      else seen.maxConnections = Math.max(seen.maxConnections, s.maxConnections);
    }
  }
  return [...byKey.values()];
}

/**
 * The listeners of the agents' ack, Slack and Twilio sources (contract §18.2, §18.6, §21.4): each its own server on
 * its own port (config validation refuses a port shared with another listener), so `svc check` looks
 * at them beside the ingest listeners.
 */
export function answerListeners(agents: readonly LoadedAgent[]): Array<Omit<IngestListener, 'maxConnections'>> {
  const sources = agents.flatMap((a) => answerSourcesOf(a).map((s) =>
    ({ key: `${s.bind}:${s.port}`, bind: s.bind, port: s.port, who: `${s.type} source ${s.id} of agent ${a.agent.id}` })));
  const team = teamConsole(agents);
  return team === null ? sources : [...sources, { key: `${team.bind}:${team.port}`, bind: team.bind, port: team.port, who: 'the team console (console:)' }];
}

/**
 * Resolves everything the daemon needs from its loaded agents and environment. Throws a ConfigError
 * for an invalid SVC_METRICS_PORT or a control plane beyond loopback without auth.
 */
export function resolveSettings(agents: readonly LoadedAgent[], env: NodeJS.ProcessEnv, home: string): DaemonSettings {
  return {
    controlPlane: resolveControlPlane(agents, env, home),
    store: resolveStore(agents.find((a) => a.agent.store !== undefined)?.agent.store, homePaths(home).db),
    drainTimeoutMs: DRAIN_TIMEOUT_MS,
    mcpStartWaitMs: MCP_START_WAIT_MS,
    listeners: ingestListeners(agents),
    console: teamConsole(agents),
  };
}
