/**
 * OpenAI-compatible chat completions wire format (contract §14.1): `POST <baseUrl>/chat/completions`
 * with `Authorization: Bearer`; tools as `{type:"function", function:{name, description, parameters}}`;
 * the assistant's `tool_calls` answered by one `role:"tool"` message each. Only the fields every
 * compatible server (vLLM, llama.cpp, Ollama, LM Studio, …) understands are sent: `max_tokens`, not
 * OpenAI's newer `max_completion_tokens`.
 * Reference: https://platform.openai.com/docs/api-reference/chat/create
 */
import { checkJsonShape, MAX_DEPTH } from '../../core/json-shape.js';
import type { LlmAnswer, LlmMessage, LlmStop, LlmToolCall, LlmWire, WireParse } from './llm-types.js';
import { isRecord, joinUrl, usageNumber } from './wire-common.js';

type Message = Record<string, unknown>;

function messagesOf(message: LlmMessage): Message[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }];
    case 'assistant':
      return [{
        role: 'assistant',
        // null only beside tool calls: an empty assistant turn is refused by some servers.
        content: message.text !== '' ? message.text : message.toolCalls.length > 0 ? null : '(no answer)',
        ...(message.toolCalls.length > 0
          ? { tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.raw } })) }
          : {}),
      }];
    case 'tool-results':
      return [
        ...message.results.map((r) => ({ role: 'tool', tool_call_id: r.callId, content: r.isError ? `Error: ${r.text}` : r.text })),
        ...(message.note ? [{ role: 'user', content: message.note }] : []),
      ];
  }
}

const STOPS: Readonly<Record<string, LlmStop>> = {
  stop: 'end', tool_calls: 'tool-use', function_call: 'tool-use', length: 'max-tokens', content_filter: 'refusal',
};

function toolCallOf(value: unknown): LlmToolCall | string {
  if (!isRecord(value) || typeof value.id !== 'string' || value.id === '' || !isRecord(value.function)) return 'a tool call without id or function';
  const fn = value.function;
  if (typeof fn.name !== 'string' || fn.name === '') return 'a tool call without a function name';
  // The spec says a JSON string; some compatible servers send the object itself.
  if (isRecord(fn.arguments)) return { id: value.id, name: fn.name, input: fn.arguments, raw: JSON.stringify(fn.arguments) };
  const raw = typeof fn.arguments === 'string' ? fn.arguments : '';
  if (raw.trim() === '') return { id: value.id, name: fn.name, input: {}, raw };
  // The arguments are JSON inside a string, which the answer's own shape check did not look into.
  const shape = checkJsonShape(raw);
  if (!shape.ok) {
    const inputError = shape.reason === 'too-deep' ? `arguments nest deeper than ${MAX_DEPTH} levels`
      : shape.reason === 'not-object' ? 'arguments are not a JSON object' : 'arguments are not valid JSON';
    return { id: value.id, name: fn.name, input: undefined, raw, inputError };
  }
  return { id: value.id, name: fn.name, input: JSON.parse(raw) as unknown, raw };
}

export const openaiWire: LlmWire = {
  provider: 'openai',
  request(req, auth) {
    return {
      url: joinUrl(auth.baseUrl, '/chat/completions'),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${auth.apiKey}`,
      },
      body: {
        model: req.model,
        messages: [{ role: 'system', content: req.system }, ...req.messages.flatMap(messagesOf)],
        tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
        tool_choice: req.toolChoice === 'auto' ? 'auto' : { type: 'function', function: { name: req.toolChoice.name } },
        max_tokens: req.maxTokens,
        temperature: req.temperature,
      },
    };
  },
  parse(body): WireParse {
    const bad = (detail: string): WireParse => ({ ok: false, outcome: 'malformed', detail });
    if (!isRecord(body) || !Array.isArray(body.choices) || body.choices.length === 0) return bad('no choices');
    const choice: unknown = body.choices[0];
    if (!isRecord(choice) || !isRecord(choice.message)) return bad('choices[0] has no message');
    const message = choice.message;
    if (message.content !== null && message.content !== undefined && typeof message.content !== 'string') return bad('message content is not a string');
    const toolCalls: LlmToolCall[] = [];
    if (message.tool_calls !== undefined && message.tool_calls !== null) {
      if (!Array.isArray(message.tool_calls)) return bad('tool_calls is not an array');
      for (const raw of message.tool_calls as unknown[]) {
        const call = toolCallOf(raw);
        if (typeof call === 'string') return bad(call);
        toolCalls.push(call);
      }
    }
    const reason = typeof choice.finish_reason === 'string' ? choice.finish_reason : '';
    let stop = STOPS[reason];
    if (!stop) return bad(`unknown finish_reason ${JSON.stringify(reason.slice(0, 40))}`);
    if (typeof message.refusal === 'string' && message.refusal !== '') stop = 'refusal';
    // Some compatible servers say "stop" while returning tool calls: the calls are what counts.
    if (stop === 'end' && toolCalls.length > 0) stop = 'tool-use';
    const usage = isRecord(body.usage) ? body.usage : {};
    const answer: LlmAnswer = {
      text: typeof message.content === 'string' ? message.content : '',
      toolCalls,
      stop,
      usage: { input: usageNumber(usage.prompt_tokens), output: usageNumber(usage.completion_tokens) },
    };
    return { ok: true, answer };
  },
};
