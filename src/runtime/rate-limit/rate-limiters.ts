/**
 * The agent-level rate limits of agent.yaml `rateLimits`: one bucket for the agent's provider calls and
 * one per tool name, created on first use. Callers wait for a token; waits are counted in
 * svc_provider_rate_limit_waits / svc_provider_rate_limit_wait_ms (agent) and
 * svc_tool_rate_limit_waits_total (agent, tool). Calls that did not wait are not observed, so the
 * histogram describes waits only and its count equals the waits counter.
 */
import type { RateLimitsConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { RateLimitMetrics } from '../../metrics/registry.js';
import type { TokenBucket } from './token-bucket.js';
import { createTokenBucket } from './token-bucket.js';

export interface AgentRateLimiters {
  /** Waits for the provider's token (at once when the agent sets no provider limit). */
  provider(signal?: AbortSignal): Promise<void>;
  /** Waits for the token of `tool` (at once when neither `tools.<tool>` nor `tool` is set). */
  tool(tool: string, signal?: AbortSignal): Promise<void>;
}

export function createAgentRateLimiters(deps: {
  agentId: string;
  config: RateLimitsConfig;
  metrics: RateLimitMetrics;
  clock: Clock;
}): AgentRateLimiters {
  const { agentId: agent, config, metrics } = deps;
  const providerBucket = config.provider ? createTokenBucket(config.provider, deps) : null;
  const toolBuckets = new Map<string, TokenBucket | null>();

  const toolBucket = (tool: string): TokenBucket | null => {
    let bucket = toolBuckets.get(tool);
    if (bucket === undefined) {
      const limit = config.tools[tool] ?? config.tool;
      bucket = limit ? createTokenBucket(limit, deps) : null;
      toolBuckets.set(tool, bucket);
    }
    return bucket;
  };

  return {
    async provider(signal) {
      if (!providerBucket) return;
      const { waitedMs } = await providerBucket.take(signal);
      if (waitedMs > 0) {
        metrics.providerWaits.inc({ agent });
        metrics.providerWaitMs.observe({ agent }, waitedMs);
      }
    },
    async tool(tool, signal) {
      const bucket = toolBucket(tool);
      if (!bucket) return;
      const { waitedMs } = await bucket.take(signal);
      if (waitedMs > 0) metrics.toolWaits.inc({ agent, tool });
    },
  };
}
