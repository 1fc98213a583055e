/** Builds the provider an agent names. Only `rules` ships in this build (contract §2). */
import type { AgentConfig } from '../../config/schema.js';
import { ConfigError } from '../../core/errors.js';
import type { Provider } from './provider.js';
import { createRulesProvider } from './rules-provider.js';

export function createProvider(agent: AgentConfig): Provider {
  switch (agent.provider) {
    case 'rules':
      return createRulesProvider();
    case 'anthropic':
    case 'openai':
      // The configuration loader refuses these first; this keeps a direct caller honest too.
      throw new ConfigError(`agent ${agent.id}: provider "${agent.provider}" is not available in this build yet`);
  }
}
