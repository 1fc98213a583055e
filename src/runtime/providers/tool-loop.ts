/**
 * The tool-use loop (contract §14.2), shared by every real provider. Each step is one model call that
 * got an answer: the model may call the offered MCP tools (their results go back as tool results) and
 * must finish with a valid `submit_triage`. Invalid arguments, a plain-text answer or a cut-off answer
 * are corrected on the next step; the last of `maxSteps` steps offers only `submit_triage` and forces
 * it through the tool choice. A refusal ends the loop.
 */
import type { ToolCallResult } from '../mcp/mcp-types.js';
import { clip, fitConversation, keptAnswer, MAX_TOOL_CALLS_PER_STEP } from './conversation-budget.js';
import type { ModelCaller, TriageBudget } from './llm-call.js';
import { NOTES, eventMessage } from './llm-prompt.js';
import type { LlmFailure, LlmMessage, LlmToolCall, LlmToolResult } from './llm-types.js';
import type { TriageEvent } from './provider.js';
import type { Submission } from './submit-triage.js';
import { SUBMIT_TRIAGE, submitTriageTool, validateSubmission } from './submit-triage.js';
import type { OfferedTool, ToolCatalog } from './tool-catalog.js';
import { isRecord } from './wire-common.js';


/** One MCP tool call as the loop made it, for `svc triage` (the audit rows carry no arguments). */
export interface ToolTrace {
  step: number;
  name: string;
  serverId: string;
  tool: string;
  arguments: Record<string, unknown>;
  outcome: string;
}

export interface LoopDeps {
  provider: string;
  model: string;
  system: string;
  maxSteps: number;
  maxTokens: number;
  temperature: number;
  call: ModelCaller;
  catalog: ToolCatalog;
  /** One MCP tool call through the agent's tools (supervision, rate limits, `tool.called` audit row). */
  callTool: (tool: OfferedTool, args: Record<string, unknown>, eventId: string, signal: AbortSignal) => Promise<ToolCallResult>;
  onToolCall?: (trace: ToolTrace) => void;
}

export type LoopResult = { ok: true; submission: Submission; steps: number } | LlmFailure;

export async function runToolLoop(deps: LoopDeps, event: TriageEvent, budget: TriageBudget): Promise<LoopResult> {
  const offered = deps.catalog.list();
  const byName = new Map(offered.map((t) => [t.name, t]));
  // What is kept of each answer and result, and what is re-sent, is bounded (conversation-budget.ts).
  let messages: LlmMessage[] = [{ role: 'user', text: eventMessage(event) }];
  let lastProblem: LlmFailure | null = null;

  for (let step = 1; step <= deps.maxSteps; step += 1) {
    const last = step === deps.maxSteps;
    messages = fitConversation(messages);
    const result = await deps.call({
      model: deps.model,
      system: deps.system,
      messages,
      tools: last ? [submitTriageTool] : [...offered.map((t) => t.spec), submitTriageTool],
      toolChoice: last ? { name: SUBMIT_TRIAGE } : 'auto',
      maxTokens: deps.maxTokens,
      temperature: deps.temperature,
    }, { eventId: event.id, step }, budget);
    if (!result.ok) return result;
    const { answer } = result;
    const nextIsLast = step + 1 === deps.maxSteps;

    if (answer.stop === 'refusal') {
      return { ok: false, reason: 'refused', error: `${deps.provider}: the model refused at step ${step}` };
    }
    if (answer.stop === 'max-tokens') {
      // Its tool calls may be incomplete: none is used, and the model is asked to be brief.
      messages.push({ role: 'assistant', text: clip(answer.text), toolCalls: [] }, { role: 'user', text: withLast(NOTES.cutOff, nextIsLast) });
      lastProblem = { ok: false, reason: 'cut-off', error: `${deps.provider}: the answer was cut off at llm.maxTokens at step ${step}` };
      continue;
    }
    if (answer.toolCalls.length === 0) {
      messages.push({ role: 'assistant', text: clip(answer.text), toolCalls: [] }, { role: 'user', text: withLast(NOTES.noToolCall, nextIsLast) });
      lastProblem = null;
      continue;
    }

    // A valid submit_triage ends the triage, whatever else the answer asked for.
    for (const call of answer.toolCalls) {
      if (call.name !== SUBMIT_TRIAGE || call.input === undefined) continue;
      const valid = validateSubmission(call.input);
      if (valid.ok) return { ok: true, submission: valid.submission, steps: step };
    }

    const kept = keptAnswer(answer);
    const results: LlmToolResult[] = [];
    for (const call of kept.toolCalls) {
      results.push(await resultOf(deps, call, step, last, byName, event.id, budget.deadline.signal));
    }
    const notes = [
      ...(kept.dropped > 0 ? [`${kept.dropped} more tool calls were ignored: at most ${MAX_TOOL_CALLS_PER_STEP} are run per step.`] : []),
      ...(nextIsLast ? [NOTES.lastStep] : []),
    ];
    messages.push({ role: 'assistant', text: kept.text, toolCalls: kept.toolCalls });
    messages.push({ role: 'tool-results', results, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) });
    lastProblem = null;
    if (budget.deadline.why() !== null) break; // a tool call ran into the deadline: the next model call says so
  }
  if (budget.deadline.why() !== null) {
    return budget.deadline.why() === 'timeout'
      ? { ok: false, reason: 'deadline', error: `${deps.provider}: no triage within llm.triageTimeoutMs (${budget.timeoutMs} ms)` }
      : { ok: false, reason: 'aborted', error: `${deps.provider}: interrupted` };
  }
  return lastProblem ?? { ok: false, reason: 'no-submit', error: `${deps.provider}: no valid ${SUBMIT_TRIAGE} within llm.maxSteps (${deps.maxSteps})` };
}

function withLast(note: string, nextIsLast: boolean): string {
  return nextIsLast ? `${note} ${NOTES.lastStep}` : note;
}

async function resultOf(deps: LoopDeps, call: LlmToolCall, step: number, last: boolean,
  byName: ReadonlyMap<string, OfferedTool>, eventId: string, signal: AbortSignal): Promise<LlmToolResult> {
  const error = (text: string): LlmToolResult => ({ callId: call.id, name: call.name, text, isError: true });
  if (call.input === undefined) return error(`the arguments of ${call.name} are invalid: ${call.inputError ?? 'not a JSON object'}`);
  if (call.name === SUBMIT_TRIAGE) {
    const valid = validateSubmission(call.input);
    return error(valid.ok ? `${SUBMIT_TRIAGE} was already accepted` : valid.error);
  }
  const tool = byName.get(call.name);
  if (!tool || last) return error(`there is no tool "${call.name}" here; the tools offered are listed in this request`);
  if (!isRecord(call.input)) return error(`the arguments of ${call.name} must be a JSON object`);
  const result = await deps.callTool(tool, call.input, eventId, signal);
  const outcome = result.ok ? (result.isError ? 'tool-error' : 'ok') : result.reason;
  deps.onToolCall?.({ step, name: tool.name, serverId: tool.serverId, tool: tool.tool, arguments: call.input, outcome });
  if (!result.ok) return error(`the tool call failed (${result.reason})`);
  const text = clip(result.text);
  return { callId: call.id, name: call.name, text: text === '' ? '(empty result)' : text, isError: result.isError };
}
