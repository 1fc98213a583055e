/**
 * Anthropic Messages API wire format (contract §14.1): `POST <baseUrl>/v1/messages` with `x-api-key`
 * and `anthropic-version: 2023-06-01`; tools as `{name, description, input_schema}`; the assistant's
 * `tool_use` blocks answered by `tool_result` blocks in the next user message.
 * Reference: https://docs.anthropic.com/en/api/messages
 */
import type { LlmAnswer, LlmMessage, LlmStop, LlmToolCall, LlmWire, WireParse } from './llm-types.js';
import { isRecord, joinUrl, usageNumber } from './wire-common.js';

export const ANTHROPIC_VERSION = '2023-06-01';

type Block = Record<string, unknown>;

function contentOf(message: LlmMessage): { role: 'user' | 'assistant'; content: string | Block[] } {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.text };
    case 'assistant': {
      const blocks: Block[] = [];
      if (message.text !== '') blocks.push({ type: 'text', text: message.text });
      for (const call of message.toolCalls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} });
      // An assistant turn may not be empty.
      if (blocks.length === 0) blocks.push({ type: 'text', text: '(no answer)' });
      return { role: 'assistant', content: blocks };
    }
    case 'tool-results': {
      // tool_result blocks come first in the user turn, then any text.
      const blocks: Block[] = message.results.map((r) => ({ type: 'tool_result', tool_use_id: r.callId, content: r.text,
        ...(r.isError ? { is_error: true } : {}) }));
      if (message.note) blocks.push({ type: 'text', text: message.note });
      return { role: 'user', content: blocks };
    }
  }
}

const STOPS: Readonly<Record<string, LlmStop>> = {
  end_turn: 'end', stop_sequence: 'end', pause_turn: 'end', tool_use: 'tool-use', max_tokens: 'max-tokens', refusal: 'refusal',
};

export const anthropicWire: LlmWire = {
  provider: 'anthropic',
  request(req, auth) {
    return {
      url: joinUrl(auth.baseUrl, '/v1/messages'),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-api-key': auth.apiKey,
        'anthropic-version': ANTHROPIC_VERSION,
      },
      body: {
        model: req.model,
        max_tokens: req.maxTokens,
        temperature: req.temperature,
        system: req.system,
        messages: req.messages.map(contentOf),
        tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
        tool_choice: req.toolChoice === 'auto' ? { type: 'auto' } : { type: 'tool', name: req.toolChoice.name },
      },
    };
  },
  parse(body): WireParse {
    const bad = (detail: string): WireParse => ({ ok: false, outcome: 'malformed', detail });
    if (!isRecord(body) || !Array.isArray(body.content)) return bad('no content array');
    const texts: string[] = [];
    const toolCalls: LlmToolCall[] = [];
    for (const block of body.content as unknown[]) {
      if (!isRecord(block)) return bad('a content block is not an object');
      if (block.type === 'text') {
        if (typeof block.text !== 'string') return bad('a text block without text');
        texts.push(block.text);
      } else if (block.type === 'tool_use') {
        if (typeof block.id !== 'string' || block.id === '' || typeof block.name !== 'string') return bad('a tool_use block without id or name');
        toolCalls.push({ id: block.id, name: block.name, input: block.input, raw: JSON.stringify(block.input ?? null),
          ...(isRecord(block.input) ? {} : { inputError: 'input is not a JSON object' }) });
      }
      // Other block types (thinking, …) carry nothing the loop uses.
    }
    const reason = typeof body.stop_reason === 'string' ? body.stop_reason : '';
    const stop = STOPS[reason];
    if (!stop) return bad(`unknown stop_reason ${JSON.stringify(reason.slice(0, 40))}`);
    const usage = isRecord(body.usage) ? body.usage : {};
    const answer: LlmAnswer = {
      text: texts.join('\n'),
      toolCalls,
      stop,
      usage: { input: usageNumber(usage.input_tokens), output: usageNumber(usage.output_tokens) },
    };
    return { ok: true, answer };
  },
};
