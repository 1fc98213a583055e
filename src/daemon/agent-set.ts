/**
 * The agents as the dispatcher runs them: each one's provider (rate limits, skills, rules) and
 * outbound channels, built from the loaded configuration. Built once at start and again by a config
 * reload; an event keeps the set it was claimed under until it is committed.
 */
import type { ChannelConfig, LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Metrics } from '../metrics/registry.js';
import { buildAgent } from '../runtime/build-agent.js';
import type { AuditSink } from '../runtime/audit-sink.js';
import type { Channel } from '../runtime/channels/channel.js';
import type { DispatchAgent } from '../runtime/dispatch/handle-event.js';
import type { McpSupervisor } from '../runtime/mcp/mcp-types.js';
import type { AgentLogs } from './start-agent-logs.js';

export interface AgentSet {
  agents: DispatchAgent[];
  channelsByAgent: ReadonlyMap<string, Channel[]>;
  channels: Channel[];
}

export function buildAgentSet(loaded: readonly LoadedAgent[], deps: { logs: AgentLogs; audit: AuditSink; metrics: Metrics;
  servers: ReadonlyMap<string, McpSupervisor>; clock: Clock;
  /** A running channel to keep instead of a new one (a reload that left it unchanged). */
  keep?: (agentId: string, config: ChannelConfig) => Channel | undefined;
  /** A running agent to keep whole (a reload that changed nothing of it: its rate-limit buckets carry on). */
  keepAgent?: (agentId: string) => DispatchAgent | undefined }): AgentSet {
  const agents: DispatchAgent[] = [];
  const channelsByAgent = new Map<string, Channel[]>();
  for (const one of loaded) {
    const kept = deps.keepAgent?.(one.agent.id);
    if (kept !== undefined) {
      agents.push(kept);
      channelsByAgent.set(one.agent.id, kept.channels);
      continue;
    }
    const built = buildAgent(one, { log: deps.logs.get(one.agent.id), audit: deps.audit, metrics: deps.metrics, servers: deps.servers,
      clock: deps.clock, ...(deps.keep ? { keep: (config: ChannelConfig) => deps.keep?.(one.agent.id, config) } : {}) });
    agents.push(built.dispatch);
    channelsByAgent.set(one.agent.id, built.channels);
  }
  return { agents, channelsByAgent, channels: [...channelsByAgent.values()].flat() };
}
