/** A provider whose every call first waits for the agent's provider token (agent.yaml `rateLimits.provider`). */
import type { AgentRateLimiters } from '../rate-limit/rate-limiters.js';
import type { Provider } from './provider.js';

export function rateLimitedProvider(provider: Provider, limits: AgentRateLimiters): Provider {
  return {
    name: provider.name,
    async triage(event, signal) {
      await limits.provider(signal); // rejects only when the dispatcher aborts: an interruption, not a failure
      return provider.triage(event, signal);
    },
  };
}
