/**
 * The agents' MCP servers start before anything can call them (and stop only after the dispatcher has
 * drained). The first start is bounded: a server slow to come up keeps starting in the background
 * (state `starting`); it never holds the ingest back past `startWaitMs` (config/settings.ts MCP_START_WAIT_MS).
 */
import type { LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { LogFields } from '../core/log.js';
import type { AgentLogs } from './start-agent-logs.js';
import type { Metrics } from '../metrics/registry.js';
import type { McpSupervisor } from '../runtime/mcp/mcp-types.js';
import { createMcpSupervisor } from '../runtime/mcp/mcp-supervisor.js';

export interface McpServers {
  /** Every server of the daemon, by id. */
  servers: ReadonlyMap<string, McpSupervisor>;
  /** The servers one agent declares, in its order. */
  ofAgent(agentId: string): McpSupervisor[];
  close(): Promise<void>;
}

export async function startMcpServers(deps: { agents: readonly LoadedAgent[]; logs: AgentLogs; metrics: Metrics; clock: Clock;
  baseEnv: Record<string, string>; startWaitMs: number }): Promise<McpServers> {
  const { clock } = deps;
  const servers = new Map<string, McpSupervisor>(deps.agents.flatMap((loaded) => loaded.agent.mcpServers.map((config) => [config.id,
    createMcpSupervisor({ config, agentDir: loaded.dir, metrics: deps.metrics.mcp, clock, baseEnv: deps.baseEnv,
      log: (level, event, fields) => deps.logs.get(loaded.agent.id).write(level, event, logFields(fields)) })] as const)));
  const close = async (): Promise<void> => { await Promise.all([...servers.values()].map((s) => s.close())); };
  const waited = new AbortController();
  try {
    await Promise.race([Promise.all([...servers.values()].map((s) => s.start())),
      clock.sleep(deps.startWaitMs, waited.signal).catch(() => undefined)]);
  } catch (err) {
    await close();
    throw err;
  } finally {
    waited.abort();
  }
  const byAgent = new Map(deps.agents.map((a) => [a.agent.id,
    a.agent.mcpServers.flatMap((m) => { const server = servers.get(m.id); return server ? [server] : []; })]));
  return { servers, ofAgent: (agentId) => byAgent.get(agentId) ?? [], close };
}

/** Agent log records hold flat values; anything structured is written as its JSON text. */
function logFields(fields: Record<string, unknown>): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value)
      ? value as LogFields[string] : JSON.stringify(value);
  }
  return out;
}
