import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicWire } from './anthropic-wire.js';
import type { LlmRequest } from './llm-types.js';

const REQUEST: LlmRequest = {
  model: 'claude-haiku-4-5', system: 'sys', maxTokens: 256, temperature: 0,
  tools: [{ name: 'runbooks__lookup', description: 'd', inputSchema: { type: 'object' } }],
  toolChoice: { name: 'runbooks__lookup' },
  messages: [
    { role: 'user', text: 'event' },
    { role: 'assistant', text: '', toolCalls: [{ id: 'tu_1', name: 'runbooks__lookup', input: { a: 1 }, raw: '{"a":1}' }] },
    { role: 'tool-results', results: [{ callId: 'tu_1', name: 'runbooks__lookup', text: 'no such runbook', isError: true }], note: 'last step' },
    { role: 'assistant', text: '', toolCalls: [] },
  ],
};

describe('Anthropic wire format', () => {
  it('builds POST <baseUrl>/v1/messages with x-api-key, the version header and content blocks', () => {
    const { url, headers, body } = anthropicWire.request(REQUEST, { baseUrl: 'https://api.anthropic.com/', apiKey: 'sk-ant-k' });
    assert.equal(url, 'https://api.anthropic.com/v1/messages');
    assert.deepEqual(headers, { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': 'sk-ant-k',
      'anthropic-version': '2023-06-01' });
    assert.deepEqual(body, {
      model: 'claude-haiku-4-5', max_tokens: 256, temperature: 0, system: 'sys',
      messages: [
        { role: 'user', content: 'event' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'runbooks__lookup', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'no such runbook', is_error: true },
          { type: 'text', text: 'last step' }] },
        { role: 'assistant', content: [{ type: 'text', text: '(no answer)' }] },
      ],
      tools: [{ name: 'runbooks__lookup', description: 'd', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'runbooks__lookup' },
    });
  });

  it('parses text and tool_use blocks, stop_reason and usage; ignores other block types', () => {
    const parsed = anthropicWire.parse({ id: 'msg_1', type: 'message', role: 'assistant', stop_reason: 'tool_use',
      content: [{ type: 'thinking', thinking: '…' }, { type: 'text', text: 'Looking it up.' },
        { type: 'tool_use', id: 'tu_2', name: 'submit_triage', input: { severity: 'P1', summary: 's' } }],
      usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 0 } });
    assert.deepEqual(parsed, { ok: true, answer: { text: 'Looking it up.', stop: 'tool-use', usage: { input: 12, output: 7 },
      toolCalls: [{ id: 'tu_2', name: 'submit_triage', input: { severity: 'P1', summary: 's' }, raw: '{"severity":"P1","summary":"s"}' }] } });
    for (const [reason, stop] of [['end_turn', 'end'], ['max_tokens', 'max-tokens'], ['refusal', 'refusal'], ['stop_sequence', 'end']]) {
      const r = anthropicWire.parse({ content: [], stop_reason: reason });
      assert.equal(r.ok && r.answer.stop, stop, reason);
    }
  });

  it('calls anything else malformed', () => {
    for (const body of [null, [], { content: 'x' }, { content: [7], stop_reason: 'end_turn' }, { content: [{ type: 'tool_use', name: 'x' }], stop_reason: 'tool_use' },
      { content: [], stop_reason: 'paused_forever' }, { content: [{ type: 'text' }], stop_reason: 'end_turn' }]) {
      assert.equal(anthropicWire.parse(body).ok, false, JSON.stringify(body));
    }
    const notObject = anthropicWire.parse({ content: [{ type: 'tool_use', id: 't', name: 'x', input: 'str' }], stop_reason: 'tool_use' });
    assert.equal(notObject.ok && notObject.answer.toolCalls[0]?.inputError, 'input is not a JSON object');
  });
});
