/**
 * One model call of the loop: the provider rate limit, the request under the per-call deadline, the
 * retries of §14.3 (429 after its Retry-After, which counts as a provider rate-limit wait; 5xx, 529,
 * timeouts, network errors and malformed answers after back-off), and for every request an
 * `llm.called` audit row, the `svc_llm_*` metrics and a log record — never a prompt or a key.
 */
import type { LlmConfig } from '../../config/schema.js';
import { backoffMs } from '../../core/backoff.js';
import type { Clock } from '../../core/clock.js';
import type { Deadline } from '../../core/deadline.js';
import { startDeadline } from '../../core/deadline.js';
import type { AgentLog } from '../../logs/agent-log.js';
import type { LlmOutcome } from '../../metrics/metric-names.js';
import type { LlmMetrics } from '../../metrics/registry.js';
import type { AuditSink } from '../audit-sink.js';
import type { HttpResult } from './llm-http.js';
import { RETRYABLE_OUTCOMES, postJson, redactor } from './llm-http.js';
import type { LlmAnswer, LlmFailure, LlmRequest, LlmWire, WireParse } from './llm-types.js';

export interface ModelCallerDeps {
  agentId: string;
  wire: LlmWire;
  model: string;
  baseUrl: string;
  apiKey: string;
  llm: Pick<LlmConfig, 'callTimeoutMs' | 'maxAttempts' | 'retry'>;
  clock: Clock;
  audit: AuditSink;
  log: AgentLog;
  metrics: LlmMetrics;
  /** The agent's provider token bucket (`rateLimits.provider`), taken before every request. */
  waitForToken: (signal: AbortSignal) => Promise<void>;
  /** A 429's wait, counted with the provider rate-limit waits (contract §14.3). */
  onRateLimitWait: (ms: number) => void;
}

/** The triage the call belongs to: its deadline (`llm.triageTimeoutMs`) and when it ends on the monotonic clock. */
export interface TriageBudget {
  deadline: Deadline;
  endsAt: number;
  timeoutMs: number;
}

export type ModelCallResult = { ok: true; answer: LlmAnswer } | LlmFailure;

export type ModelCaller = (req: LlmRequest, at: { eventId: string; step: number }, budget: TriageBudget) => Promise<ModelCallResult>;

export function createModelCaller(deps: ModelCallerDeps): ModelCaller {
  const { agentId, wire, clock, llm, metrics, log } = deps;
  const provider = wire.provider;
  const redact = redactor(deps.apiKey);
  const labels = { agent: agentId, provider };

  const interrupted = (budget: TriageBudget, step: number): LlmFailure => budget.deadline.why() === 'timeout'
    ? { ok: false, reason: 'deadline', error: `${provider}: no triage within llm.triageTimeoutMs (${budget.timeoutMs} ms), at step ${step}` }
    : { ok: false, reason: 'aborted', error: `${provider}: interrupted at step ${step}` };

  return async (req, at, budget) => {
    const { signal } = budget.deadline;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await deps.waitForToken(signal);
      } catch {
        return interrupted(budget, at.step);
      }
      const remaining = budget.endsAt - clock.monotonic();
      const call = startDeadline(Math.max(1, Math.min(llm.callTimeoutMs, remaining)), clock, signal);
      const started = clock.monotonic();
      const request = wire.request(req, { baseUrl: deps.baseUrl, apiKey: deps.apiKey });
      let http: HttpResult;
      try {
        http = await postJson({ ...request, signal: call.signal, nowMs: () => clock.now(), redact });
      } finally {
        call.dispose();
      }
      const durationMs = Math.max(0, Math.round(clock.monotonic() - started));

      let outcome: LlmOutcome;
      let answer: LlmAnswer | null = null;
      let detail: string | undefined;
      if (http.ok) {
        const parsed = parseAnswer(wire, http.body);
        if (parsed.ok) {
          answer = parsed.answer;
          outcome = answer.stop === 'max-tokens' ? 'cut-off' : answer.stop === 'refusal' ? 'refused' : 'ok';
        } else {
          outcome = 'malformed';
          detail = parsed.detail;
        }
      } else {
        outcome = http.outcome === 'aborted' && (call.why() === 'timeout' || budget.deadline.why() === 'timeout') ? 'timeout' : http.outcome;
        detail = http.detail;
      }
      const httpStatus = http.status;
      const usage = answer?.usage ?? { input: 0, output: 0 };

      metrics.requests.inc({ ...labels, outcome });
      metrics.durationSeconds.observe(labels, durationMs / 1000);
      if (usage.input > 0) metrics.tokens.inc({ ...labels, direction: 'input' }, usage.input);
      if (usage.output > 0) metrics.tokens.inc({ ...labels, direction: 'output' }, usage.output);
      await deps.audit({ kind: 'llm.called', actor: `agent:${agentId}`, agentId,
        data: { eventId: at.eventId, provider, model: deps.model, step: at.step, attempt, status: outcome, httpStatus,
          inputTokens: usage.input, outputTokens: usage.output, durationMs } });
      // Log field names avoid "token": the agent log redacts any field whose name contains it.
      log.write(outcome === 'ok' ? 'info' : 'warn', 'llm.called', { eventId: at.eventId, provider, model: deps.model, step: at.step,
        attempt, status: outcome, httpStatus, usageInput: usage.input, usageOutput: usage.output, durationMs, detail });

      if (answer) return { ok: true, answer };
      if (budget.deadline.why() !== null) return interrupted(budget, at.step);
      const errorType = http.ok ? null : http.errorType;
      const failure = (why: string): LlmFailure => ({ ok: false, reason: outcome as LlmFailure['reason'],
        error: `${provider}: ${describe(outcome, httpStatus, errorType, llm.callTimeoutMs)} at step ${at.step}${why}` });
      if (!RETRYABLE_OUTCOMES.has(outcome)) return failure('');
      if (attempt >= llm.maxAttempts) return failure(` after ${attempt} attempt${attempt === 1 ? '' : 's'}`);
      const retryAfter = http.ok ? null : http.retryAfterMs;
      // A 429 waits as long as the provider asks (the triage deadline bounds it); other failures back off.
      const delayMs = outcome === 'rate-limited' && retryAfter !== null ? retryAfter : backoffMs(llm.retry, attempt, retryAfter ?? undefined);
      if (delayMs >= budget.endsAt - clock.monotonic()) {
        return failure(`; the retry in ${delayMs} ms would pass llm.triageTimeoutMs`);
      }
      log.write('warn', 'llm.retry_wait', { eventId: at.eventId, provider, step: at.step, attempt, status: outcome, delayMs });
      if (outcome === 'rate-limited') deps.onRateLimitWait(delayMs);
      try {
        await clock.sleep(delayMs, signal);
      } catch {
        return interrupted(budget, at.step);
      }
    }
  };
}

/**
 * The wire's reading of an answer, where a throw (a shape no check foresaw) is one more malformed
 * answer: audited, retried, and in the end the triage's failure — never an exception out of the loop.
 */
function parseAnswer(wire: LlmWire, body: unknown): WireParse {
  try {
    return wire.parse(body);
  } catch (err) {
    return { ok: false, outcome: 'malformed', detail: `the answer could not be read (${err instanceof Error ? err.name : 'error'})` };
  }
}

/** svc's words for a failed request: outcome, status and the provider's error type, nothing else. */
function describe(outcome: LlmOutcome, status: number | null, errorType: string | null, callTimeoutMs: number): string {
  if (outcome === 'timeout' && status === null) return `no answer within llm.callTimeoutMs (${callTimeoutMs} ms)`;
  if (outcome === 'network-error') return 'network error (see the agent log)';
  if (outcome === 'malformed' && (status === null || (status >= 200 && status < 300))) return 'malformed answer';
  return `HTTP ${status ?? '?'}${errorType ? ` ${errorType}` : ''} (${outcome})`;
}
