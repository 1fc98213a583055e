/**
 * The provider of one agent, with what it needs: the agent's rate limits, its MCP tools (audited
 * through `tool.called`) and, for `anthropic` / `openai`, the tool-use loop behind `llm.onFailure`.
 * Shared by the daemon (build-agent.ts) and `svc triage`, which differ only in where audit rows go.
 */
import { relative } from 'node:path';
import type { LoadedAgent } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import type { AgentLog } from '../logs/agent-log.js';
import type { Metrics } from '../metrics/registry.js';
import type { AgentTools } from './agent-tools.js';
import { createAgentTools, toolLookup } from './agent-tools.js';
import type { AuditSink } from './audit-sink.js';
import type { McpSupervisor } from './mcp/mcp-types.js';
import { withFailurePolicy } from './providers/fallback-provider.js';
import { createLlmProvider } from './providers/llm-provider.js';
import { systemPrompt } from './providers/llm-prompt.js';
import type { Provider } from './providers/provider.js';
import { rateLimitedProvider } from './providers/rate-limited-provider.js';
import { createRulesProvider } from './providers/rules-provider.js';
import { createToolCatalog } from './providers/tool-catalog.js';
import type { ToolTrace } from './providers/tool-loop.js';
import { createAgentRateLimiters } from './rate-limit/rate-limiters.js';

export interface AgentProviderDeps {
  log: AgentLog;
  /** The daemon's audit chain, or a collector (`svc triage`). */
  audit: AuditSink;
  metrics: Pick<Metrics, 'rateLimit' | 'llm'>;
  /** Every MCP server of the daemon, by id; the agent reaches only those it declares. */
  servers: ReadonlyMap<string, McpSupervisor>;
  clock: Clock;
  /** Each MCP tool call of the tool-use loop, with its arguments (`svc triage` prints them). */
  onToolCall?: (trace: ToolTrace) => void;
}

export function buildAgentProvider(loaded: LoadedAgent, deps: AgentProviderDeps): { provider: Provider; tools: AgentTools } {
  const { agent } = loaded;
  const { clock, log, audit, metrics } = deps;
  const limits = createAgentRateLimiters({ agentId: agent.id, config: agent.rateLimits, metrics: metrics.rateLimit, clock });
  const own = new Map(agent.mcpServers.flatMap((m) => {
    const server = deps.servers.get(m.id);
    return server ? [[m.id, server] as const] : [];
  }));
  const tools = createAgentTools({ agentId: agent.id, servers: own, limits, audit, log, clock });

  if (agent.provider === 'rules') {
    const lookup = agent.rules.lookup;
    const rules = createRulesProvider(lookup ? { lookup: toolLookup(tools, lookup, clock) } : {});
    // One provider token per triage: the rules provider makes no model call.
    return { provider: rateLimitedProvider(rules, limits), tools };
  }

  const { model, apiKey, baseUrl, llm } = agent;
  // The loader fills these in or refuses the configuration; a direct caller must do the same.
  if (!model || !apiKey || !baseUrl || !llm) throw new ConfigError(`agent ${agent.id}: provider ${agent.provider} needs model, apiKey, baseUrl and llm`);
  const agentLabel = { agent: agent.id };
  metrics.llm.zero(agent.id, agent.provider);
  const primary = createLlmProvider({
    agentId: agent.id,
    settings: { provider: agent.provider, model, apiKey, baseUrl, llm },
    system: systemPrompt(loaded.skills.map((s) => ({ name: relative(loaded.dir, s.path) || s.path, text: s.text }))),
    catalog: createToolCatalog([...own.values()], agent.tools),
    callTool: (tool, args, eventId, signal) => tools.call(tool.serverId, tool.tool, args, eventId, signal),
    clock, audit, log, metrics: metrics.llm,
    // One provider token per model request, retries included: the bucket guards the vendor's rate limit.
    waitForToken: (signal) => limits.provider(signal),
    onRateLimitWait: (ms) => {
      metrics.rateLimit.providerWaits.inc(agentLabel);
      metrics.rateLimit.providerWaitMs.observe(agentLabel, ms);
    },
    ...(deps.onToolCall ? { onToolCall: deps.onToolCall } : {}),
  });
  const provider = withFailurePolicy(primary, { agentId: agent.id, model, onFailure: llm.onFailure, rules: createRulesProvider(),
    audit, log });
  return { provider, tools };
}
