/**
 * Assembles one agent for the dispatcher: its channels and its provider (build-provider.ts: rate
 * limits, MCP tools, and for real providers the tool-use loop behind `llm.onFailure`).
 */
import type { ChannelConfig, LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { Metrics } from '../metrics/registry.js';
import type { AuditSink } from './audit-sink.js';
import { buildAgentProvider } from './build-provider.js';
import type { Channel } from './channels/channel.js';
import { createChannel } from './channels/create-channel.js';
import type { DispatchAgent } from './dispatch/handle-event.js';
import type { McpSupervisor } from './mcp/mcp-types.js';

export interface BuiltAgent {
  dispatch: DispatchAgent;
  channels: Channel[];
}

export function buildAgent(loaded: LoadedAgent, deps: {
  log: AgentLog;
  /** Appends to the daemon's audit chain (`store.appendAudit`). */
  audit: AuditSink;
  metrics: Metrics;
  /** Every MCP server of the daemon, by id; the agent reaches only those it declares. */
  servers: ReadonlyMap<string, McpSupervisor>;
  clock: Clock;
  /** A running channel to keep instead of a new one (a config reload that left it unchanged). */
  keep?: (config: ChannelConfig) => Channel | undefined;
}): BuiltAgent {
  const { agent } = loaded;
  const { clock, log } = deps;
  const channels = loaded.channels.map((c) => {
    const twilioSource = loaded.twilioSources?.find((s) => s.channel === c.id);
    return deps.keep?.(c) ?? createChannel(c, { clock, ...(twilioSource === undefined ? {} : { twilioSource }) });
  });
  const { provider } = buildAgentProvider(loaded, deps);
  return {
    dispatch: { id: agent.id, provider, channels, log, dispatch: agent.dispatch },
    channels,
  };
}
