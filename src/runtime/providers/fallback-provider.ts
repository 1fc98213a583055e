/**
 * `llm.onFailure` (contract §14.3), inside the provider layer: when the tool-use loop fails for good,
 * either the `rules` provider's message goes out with `triagedBy: "rules-fallback"` and an audit row
 * `triage.fallback` says why, or the event is handed back as a non-retryable `triage-failed` so the
 * dispatcher dead-letters it (another dispatch attempt would pay for the whole loop again).
 */
import type { LlmConfig } from '../../config/schema.js';
import type { AgentLog } from '../../logs/agent-log.js';
import type { AuditSink } from '../audit-sink.js';
import type { LlmProvider } from './llm-provider.js';
import type { Provider, TriageResult } from './provider.js';

export const RULES_FALLBACK = 'rules-fallback';

export function withFailurePolicy(primary: LlmProvider, deps: {
  agentId: string;
  model: string;
  onFailure: LlmConfig['onFailure'];
  rules: Provider;
  audit: AuditSink;
  log: AgentLog;
}): Provider {
  const { agentId, log } = deps;
  return {
    name: primary.name,
    async triage(event, signal): Promise<TriageResult> {
      const result = await primary.run(event, signal);
      if (result.ok || 'retryable' in result) return result;
      // Shutdown: not a failure of the triage; the dispatcher leaves the event for the next start.
      if (result.reason === 'aborted' || signal.aborted) return { ok: false, retryable: true, reason: 'triage-failed', error: result.error };
      if (deps.onFailure === 'dead-letter') {
        log.write('error', 'triage.failed', { eventId: event.id, provider: primary.name, reason: result.reason, onFailure: 'dead-letter' });
        return { ok: false, retryable: false, reason: 'triage-failed', error: result.error };
      }
      const fallback = await deps.rules.triage(event, signal);
      await deps.audit({ kind: 'triage.fallback', actor: `agent:${agentId}`, agentId,
        data: { eventId: event.id, provider: primary.name, model: deps.model, reason: result.reason, error: result.error,
          fallback: 'rules', fallbackOk: fallback.ok } });
      log.write('warn', 'triage.fallback', { eventId: event.id, provider: primary.name, reason: result.reason, error: result.error,
        fallback: 'rules', fallbackOk: fallback.ok });
      if (!fallback.ok) {
        // The rules provider reads Alertmanager payloads only; for anything else there is nothing to fall back on.
        return { ok: false, retryable: false, reason: 'triage-failed', error: `${result.error}; rules fallback: ${fallback.error}` };
      }
      return { ok: true, decision: { ...fallback.decision, triagedBy: RULES_FALLBACK } };
    },
  };
}
