/**
 * The tools an agent may call: the MCP servers it declares, behind the agent's tool rate limits. Every
 * call is audited (`tool.called`: server, tool, outcome, duration — never the arguments or the answer,
 * which may carry anything) and logged.
 */
import type { Clock } from '../core/clock.js';
import { startDeadline } from '../core/deadline.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { AuditSink } from './audit-sink.js';
import type { McpSupervisor, ToolCallResult } from './mcp/mcp-types.js';
import type { RulesLookup } from './providers/rules-provider.js';
import type { AgentRateLimiters } from './rate-limit/rate-limiters.js';

export interface AgentTools {
  call(serverId: string, tool: string, args: Record<string, unknown>, eventId: string, signal: AbortSignal): Promise<ToolCallResult>;
}

export function createAgentTools(deps: {
  agentId: string;
  servers: ReadonlyMap<string, McpSupervisor>;
  limits: AgentRateLimiters;
  /** The daemon's audit chain, or the rows `svc triage` prints. */
  audit: AuditSink;
  log: AgentLog;
  clock: Clock;
}): AgentTools {
  const { agentId, audit, log, clock } = deps;
  return {
    async call(serverId, tool, args, eventId, signal) {
      const server = deps.servers.get(serverId);
      const started = clock.now();
      let result: ToolCallResult;
      if (!server) {
        result = { ok: false, reason: 'unavailable', error: `no MCP server "${serverId}" for agent ${agentId}` };
      } else {
        try {
          await deps.limits.tool(tool, signal);
          result = await server.callTool(tool, args, signal);
        } catch {
          result = { ok: false, reason: 'aborted', error: 'aborted while waiting for the tool rate limit' };
        }
      }
      const outcome = result.ok ? (result.isError ? 'tool-error' : 'ok') : result.reason;
      const durationMs = Math.max(0, clock.now() - started);
      await audit({ kind: 'tool.called', actor: `agent:${agentId}`, agentId,
        data: { eventId, serverId, tool, outcome, durationMs } });
      log.write(result.ok && !result.isError ? 'info' : 'warn', 'tool.called', { eventId, serverId, tool, outcome, durationMs,
        error: result.ok ? undefined : result.error });
      return result;
    },
  };
}

/**
 * The `rules` provider's lookup (agent.yaml `rules.lookup`) as a call of one tool, bounded as a whole
 * (rate-limit waits included) by `timeoutMs`, so a slow or throttled tool delays a page by that much at most.
 */
export function toolLookup(tools: AgentTools, lookup: { server: string; tool: string; timeoutMs: number }, clock: Clock): RulesLookup {
  const { server: serverId, tool } = lookup;
  return async (query, eventId, signal) => {
    const deadline = startDeadline(lookup.timeoutMs, clock, signal);
    let result: ToolCallResult;
    try {
      result = await tools.call(serverId, tool, { ...query }, eventId, deadline.signal);
    } finally {
      deadline.dispose();
    }
    if (!result.ok && result.reason === 'aborted' && deadline.why() === 'timeout') {
      return { ok: false, error: `${serverId}/${tool}: no answer within ${lookup.timeoutMs} ms` };
    }
    if (!result.ok) return { ok: false, error: `${serverId}/${tool}: ${result.reason}` };
    if (result.isError) return { ok: false, error: `${serverId}/${tool}: the tool reported an error` };
    return { ok: true, text: result.text };
  };
}
