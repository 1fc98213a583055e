/**
 * The conversation of the tool-use loop in a neutral form (contract §14). The loop (tool-loop.ts)
 * speaks only this; each wire format (anthropic-wire.ts, openai-wire.ts) turns it into its own request
 * body and turns its answers back. The strategies differ in the wire, never in the loop.
 */
import type { LlmProviderName } from '../../config/schema.js';
import type { LlmOutcome } from '../../metrics/metric-names.js';

/** A tool offered to the model: MCP tools as `<serverId>__<toolName>`, plus `submit_triage`. */
export interface LlmToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
}

/** One tool call of an answer. */
export interface LlmToolCall {
  /** The provider's id, echoed in the result (Anthropic `tool_use.id`, OpenAI `tool_calls[].id`). */
  id: string;
  name: string;
  /** The arguments as parsed; undefined when they were not valid JSON (see `inputError`). */
  input: unknown;
  /** The arguments as the provider sent them (OpenAI: a JSON string), replayed verbatim in the history. */
  raw: string;
  /** Why `input` is undefined. */
  inputError?: string;
}

export interface LlmToolResult {
  callId: string;
  name: string;
  text: string;
  isError: boolean;
}

export type LlmMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: LlmToolCall[] }
  /** The results of every tool call of the assistant message before it, then an optional note from svc. */
  | { role: 'tool-results'; results: LlmToolResult[]; note?: string };

export interface LlmRequest {
  model: string;
  system: string;
  messages: LlmMessage[];
  tools: LlmToolSpec[];
  /** `auto`: the model may answer or call any offered tool; `{name}`: it must call that tool. */
  toolChoice: 'auto' | { name: string };
  maxTokens: number;
  temperature: number;
}

/** Why the model stopped: `end` (a plain answer), `tool-use`, `max-tokens` (cut off) or `refusal`. */
export type LlmStop = 'end' | 'tool-use' | 'max-tokens' | 'refusal';

export interface LlmUsage { input: number; output: number }

export interface LlmAnswer {
  text: string;
  toolCalls: LlmToolCall[];
  stop: LlmStop;
  usage: LlmUsage;
}

/** What a wire format makes of one HTTP exchange. */
export type WireParse =
  | { ok: true; answer: LlmAnswer }
  | { ok: false; outcome: 'malformed'; detail: string };

/** One provider's wire format: pure functions, no I/O. */
export interface LlmWire {
  readonly provider: LlmProviderName;
  /** URL, headers (the key included) and JSON body of one request. */
  request(req: LlmRequest, auth: { baseUrl: string; apiKey: string }): { url: string; headers: Record<string, string>; body: unknown };
  /** The answer of a 2xx response whose body parsed as JSON. */
  parse(body: unknown): WireParse;
}

/** Why a triage by the loop failed: how the last model call ended, or what the loop itself ran into. */
export type LlmFailureReason =
  | Exclude<LlmOutcome, 'ok'>
  /** The per-triage deadline (`llm.triageTimeoutMs`) passed. */
  | 'deadline'
  /** maxSteps answers without a valid submit_triage. */
  | 'no-submit'
  /** Something inside the triage threw: svc's own fault, and still a failure the fallback handles. */
  | 'internal-error';

export interface LlmFailure {
  ok: false;
  reason: LlmFailureReason;
  /** svc's own words (status codes, error types): never a provider's free text, a prompt or a key. */
  error: string;
}
