/**
 * What a conversation keeps and re-sends (contract §14.2). Every request of the tool-use loop carries
 * the whole conversation so far, so whatever one answer or tool result holds is paid for again at
 * every later step: a model server sending megabytes would have each request grow by them, and the
 * daemon's memory with it. Each kept item is cut to MAX_KEPT_CHARS, an answer keeps at most
 * MAX_TOOL_CALLS_PER_STEP tool calls, and the conversation after the event fits CONVERSATION_BUDGET_CHARS,
 * its oldest items elided first. Pure functions: the loop decides nothing else with them.
 */
import type { LlmAnswer, LlmMessage, LlmToolCall } from './llm-types.js';

/** Most characters kept of one assistant text, one tool result or one tool call's arguments. */
export const MAX_KEPT_CHARS = 16_000;
/** Tool calls kept (and run) per answer; the rest are dropped, and the model is told so. */
export const MAX_TOOL_CALLS_PER_STEP = 8;
/** Most characters of the conversation after the event: 16 full items. */
export const CONVERSATION_BUDGET_CHARS = 16 * MAX_KEPT_CHARS;

const ELIDED = '(removed to keep the conversation short)';

/** `text` up to `max` characters, saying where it was cut. */
export function clip(text: string, max = MAX_KEPT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}\n(cut after ${max} of ${text.length} characters)` : text;
}

/** A call whose arguments are too long to keep is kept without them, as invalid arguments. */
function keptCall(call: LlmToolCall): LlmToolCall {
  if (call.raw.length <= MAX_KEPT_CHARS) return call;
  return { id: call.id, name: call.name, input: undefined, raw: '{}', inputError: `arguments over ${MAX_KEPT_CHARS} characters` };
}

/** What the conversation keeps of an answer, and how many of its tool calls were dropped. */
export function keptAnswer(answer: LlmAnswer): { text: string; toolCalls: LlmToolCall[]; dropped: number } {
  return {
    text: clip(answer.text),
    toolCalls: answer.toolCalls.slice(0, MAX_TOOL_CALLS_PER_STEP).map(keptCall),
    dropped: Math.max(0, answer.toolCalls.length - MAX_TOOL_CALLS_PER_STEP),
  };
}

/** Characters a message contributes to a request (its texts and arguments; ids and names are small). */
export function messageChars(message: LlmMessage): number {
  switch (message.role) {
    case 'user':
      return message.text.length;
    case 'assistant':
      return message.text.length + message.toolCalls.reduce((n, c) => n + c.raw.length, 0);
    case 'tool-results':
      return message.results.reduce((n, r) => n + r.text.length, 0) + (message.note?.length ?? 0);
  }
}

/** The message with its texts and arguments elided; its structure (calls and their results) stays valid. */
function elide(message: LlmMessage): LlmMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', text: ELIDED };
    case 'assistant':
      return { role: 'assistant', text: message.text === '' ? '' : ELIDED,
        toolCalls: message.toolCalls.map((c) => (c.raw.length <= 2 ? c : { id: c.id, name: c.name, input: {}, raw: '{}' })) };
    case 'tool-results':
      return { role: 'tool-results', results: message.results.map((r) => ({ ...r, text: ELIDED })), ...(message.note ? { note: message.note } : {}) };
  }
}

/**
 * The conversation to send: the first message (the event) as it is, then the rest within `budget`
 * characters, the oldest messages elided first. The newest message is never elided: it is what the
 * model answers to, and it is bounded by MAX_KEPT_CHARS per item already.
 */
export function fitConversation(messages: readonly LlmMessage[], budget = CONVERSATION_BUDGET_CHARS): LlmMessage[] {
  const out = [...messages];
  let total = out.slice(1).reduce((n, m) => n + messageChars(m), 0);
  for (let i = 1; i < out.length - 1 && total > budget; i++) {
    const before = messageChars(out[i] as LlmMessage);
    const after = elide(out[i] as LlmMessage);
    out[i] = after;
    total -= before - messageChars(after);
  }
  return out;
}
