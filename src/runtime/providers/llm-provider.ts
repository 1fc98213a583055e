/**
 * The real providers (contract §14): Anthropic Messages and OpenAI-compatible chat completions, one
 * strategy each (its wire format) behind the same tool-use loop. A triage is bounded as a whole by
 * `llm.triageTimeoutMs`; what happens when it fails is the business of fallback-provider.ts.
 */
import type { LlmConfig, LlmProviderName } from '../../config/schema.js';
import { startDeadline } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import { anthropicWire } from './anthropic-wire.js';
import type { ModelCallerDeps } from './llm-call.js';
import { createModelCaller } from './llm-call.js';
import { openaiWire } from './openai-wire.js';
import type { LlmFailure, LlmWire } from './llm-types.js';
import type { Provider, TriageEvent, TriageResult } from './provider.js';
import { triageAlertmanager } from './rules-provider.js';
import { decisionOf } from './submit-triage.js';
import type { ToolCatalog } from './tool-catalog.js';
import type { LoopDeps } from './tool-loop.js';
import { runToolLoop } from './tool-loop.js';

export const WIRES: Readonly<Record<LlmProviderName, LlmWire>> = { anthropic: anthropicWire, openai: openaiWire };

export interface LlmSettings {
  provider: LlmProviderName;
  model: string;
  baseUrl: string;
  apiKey: string;
  llm: LlmConfig;
}

export interface LlmProviderDeps extends Pick<ModelCallerDeps,
  'agentId' | 'clock' | 'audit' | 'log' | 'metrics' | 'waitForToken' | 'onRateLimitWait'> {
  settings: LlmSettings;
  /** The system prompt (llm-prompt.ts systemPrompt). */
  system: string;
  catalog: ToolCatalog;
  callTool: LoopDeps['callTool'];
  onToolCall?: LoopDeps['onToolCall'];
}

/** A provider whose failures carry the loop's reason, for the fallback wrapper and its audit row. */
export interface LlmProvider extends Provider {
  /** `anthropic:<model>` */
  readonly triagedBy: string;
  run(event: TriageEvent, signal: AbortSignal): Promise<TriageResult | LlmFailure>;
}

export function createLlmProvider(deps: LlmProviderDeps): LlmProvider {
  const { settings, clock } = deps;
  const { llm } = settings;
  const triagedBy = `${settings.provider}:${settings.model}`;
  const { agentId, audit, log, metrics, waitForToken, onRateLimitWait } = deps;
  const call = createModelCaller({ agentId, clock, audit, log, metrics, waitForToken, onRateLimitWait,
    wire: WIRES[settings.provider], model: settings.model, baseUrl: settings.baseUrl, apiKey: settings.apiKey, llm });

  async function run(event: TriageEvent, signal: AbortSignal): Promise<TriageResult | LlmFailure> {
    // An Alertmanager group without alerts tells no one anything: no model call for it.
    const offline = triageAlertmanager(event.payload);
    if (offline.ok && !offline.decision.notify) return offline;
    const deadline = startDeadline(llm.triageTimeoutMs, clock, signal);
    try {
      const result = await runToolLoop({
        provider: settings.provider, model: settings.model, system: deps.system, maxSteps: llm.maxSteps,
        maxTokens: llm.maxTokens, temperature: llm.temperature, call, catalog: deps.catalog, callTool: deps.callTool,
        ...(deps.onToolCall ? { onToolCall: deps.onToolCall } : {}),
      }, event, { deadline, endsAt: clock.monotonic() + llm.triageTimeoutMs, timeoutMs: llm.triageTimeoutMs });
      if (!result.ok) return result;
      log.write('info', 'llm.submitted', { eventId: event.id, provider: settings.provider, model: settings.model, steps: result.steps });
      const { decision, raised } = decisionOf(result.submission, event.payload, triagedBy, llm.severityFloor);
      if (raised !== null) {
        // A model cannot quietly downgrade a page: the raise is on the record, with both severities.
        await audit({ kind: 'triage.severity-raised', actor: `agent:${agentId}`, agentId,
          data: { eventId: event.id, provider: settings.provider, model: settings.model, from: raised.from, to: raised.to, floor: raised.floor } });
        log.write('warn', 'triage.severity-raised', { eventId: event.id, provider: settings.provider, from: raised.from, to: raised.to,
          floor: raised.floor });
      }
      return { ok: true, decision };
    } catch (err) {
      // Whatever threw (a bug, an input no check foresaw), the triage failed like any other: the
      // failure policy falls back or dead-letters, instead of the dispatcher retrying the whole loop.
      log.write('error', 'llm.internal-error', { eventId: event.id, provider: settings.provider, error: errorText(err) });
      return { ok: false, reason: 'internal-error', error: `${settings.provider}: internal error during the triage (see the agent log)` };
    } finally {
      deadline.dispose();
    }
  }

  return {
    name: settings.provider,
    triagedBy,
    run,
    async triage(event, signal) {
      const result = await run(event, signal);
      if (result.ok || 'retryable' in result) return result;
      return { ok: false, retryable: false, reason: 'triage-failed', error: result.error };
    },
  };
}
