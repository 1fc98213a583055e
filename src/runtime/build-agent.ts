/**
 * Assembles one agent for the dispatcher: its channels, rate limits, tools and provider. The
 * provider is wrapped so every triage waits for the agent's provider token, and the `rules` provider
 * gets its optional lookup tool (agent.yaml `rules.lookup`).
 */
import type { LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { Metrics } from '../metrics/registry.js';
import type { Store } from '../store/store.js';
import { createAgentTools, toolLookup } from './agent-tools.js';
import type { Channel } from './channels/channel.js';
import { createChannel } from './channels/create-channel.js';
import type { DispatchAgent } from './dispatch/handle-event.js';
import type { McpSupervisor } from './mcp/mcp-types.js';
import { createProvider } from './providers/create-provider.js';
import { rateLimitedProvider } from './providers/rate-limited-provider.js';
import { createRulesProvider } from './providers/rules-provider.js';
import { createAgentRateLimiters } from './rate-limit/rate-limiters.js';

export interface BuiltAgent {
  dispatch: DispatchAgent;
  channels: Channel[];
}

export function buildAgent(loaded: LoadedAgent, deps: {
  log: AgentLog;
  store: Store;
  metrics: Metrics;
  /** Every MCP server of the daemon, by id; the agent reaches only those it declares. */
  servers: ReadonlyMap<string, McpSupervisor>;
  clock: Clock;
}): BuiltAgent {
  const { agent } = loaded;
  const { clock } = deps;
  const { log } = deps;
  const channels = loaded.channels.map((c) => createChannel(c, { clock }));
  const limits = createAgentRateLimiters({ agentId: agent.id, config: agent.rateLimits, metrics: deps.metrics.rateLimit, clock });
  const own = new Map(agent.mcpServers.flatMap((m) => {
    const server = deps.servers.get(m.id);
    return server ? [[m.id, server] as const] : [];
  }));
  const tools = createAgentTools({ agentId: agent.id, servers: own, limits, store: deps.store, log, clock });
  const lookup = agent.rules.lookup;
  const provider = agent.provider === 'rules' && lookup
    ? createRulesProvider({ lookup: toolLookup(tools, lookup, clock) })
    : createProvider(agent);
  return {
    dispatch: { id: agent.id, provider: rateLimitedProvider(provider, limits), channels, log, dispatch: agent.dispatch },
    channels,
  };
}
