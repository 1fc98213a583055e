import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LlmRequest } from './llm-types.js';
import { openaiWire } from './openai-wire.js';

const answer = (message: Record<string, unknown>, finish: string, usage: unknown = { prompt_tokens: 9, completion_tokens: 4 }) => ({
  id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }], usage,
});

describe('OpenAI-compatible wire format', () => {
  it('builds POST <baseUrl>/chat/completions with a bearer token, a system message and one tool message per call', () => {
    const req: LlmRequest = {
      model: 'llama3', system: 'sys', maxTokens: 100, temperature: 0.2, toolChoice: 'auto',
      tools: [{ name: 'submit_triage', description: 'd', inputSchema: { type: 'object' } }],
      messages: [
        { role: 'user', text: 'event' },
        { role: 'assistant', text: 'Two lookups.', toolCalls: [
          { id: 'c1', name: 'a', input: { x: 1 }, raw: '{"x": 1}' },
          { id: 'c2', name: 'b', input: undefined, raw: '{broken', inputError: 'arguments are not valid JSON' }] },
        { role: 'tool-results', results: [{ callId: 'c1', name: 'a', text: 'one', isError: false }, { callId: 'c2', name: 'b', text: 'bad', isError: true }],
          note: 'last step' },
      ],
    };
    const { url, headers, body } = openaiWire.request(req, { baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'sk-local' });
    assert.equal(url, 'http://127.0.0.1:8000/v1/chat/completions');
    assert.deepEqual(headers, { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer sk-local' });
    assert.deepEqual(body, {
      model: 'llama3', max_tokens: 100, temperature: 0.2, tool_choice: 'auto',
      tools: [{ type: 'function', function: { name: 'submit_triage', description: 'd', parameters: { type: 'object' } } }],
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'event' },
        // The arguments go back exactly as the model wrote them, broken ones included.
        { role: 'assistant', content: 'Two lookups.', tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x": 1}' } },
          { id: 'c2', type: 'function', function: { name: 'b', arguments: '{broken' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
        { role: 'tool', tool_call_id: 'c2', content: 'Error: bad' },
        { role: 'user', content: 'last step' },
      ],
    });
    const forced = openaiWire.request({ ...req, toolChoice: { name: 'submit_triage' } }, { baseUrl: 'http://h/v1', apiKey: 'k' }).body as Record<string, unknown>;
    assert.deepEqual(forced.tool_choice, { type: 'function', function: { name: 'submit_triage' } });
  });

  it('parses tool_calls (arguments as a JSON string, or an object from lenient servers), finish_reason and usage', () => {
    const parsed = openaiWire.parse(answer({ tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'submit_triage', arguments: '{"severity":"P2","summary":"s"}' } },
      { id: 'c2', type: 'function', function: { name: 'x', arguments: { k: 'v' } } },
      { id: 'c3', type: 'function', function: { name: 'y', arguments: 'not json' } }] }, 'tool_calls'));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.answer.usage, { input: 9, output: 4 });
    assert.deepEqual(parsed.answer.toolCalls.map((c) => [c.id, c.input, c.inputError]), [
      ['c1', { severity: 'P2', summary: 's' }, undefined], ['c2', { k: 'v' }, undefined], ['c3', undefined, 'arguments are not valid JSON']]);
    const stops = [['stop', 'end'], ['length', 'max-tokens'], ['content_filter', 'refusal']].map(([finish, want]) => {
      const r = openaiWire.parse(answer({ content: 'x' }, finish as string));
      return [r.ok && r.answer.stop, want];
    });
    for (const [got, want] of stops) assert.equal(got, want);
    const refusal = openaiWire.parse(answer({ refusal: 'I cannot' }, 'stop'));
    assert.equal(refusal.ok && refusal.answer.stop, 'refusal');
    // Some compatible servers say "stop" next to tool calls; no usage counts as zero.
    const lenient = openaiWire.parse(answer({ tool_calls: [{ id: 'c', type: 'function', function: { name: 'n', arguments: '{}' } }] }, 'stop', null));
    assert.deepEqual(lenient.ok && [lenient.answer.stop, lenient.answer.usage], ['tool-use', { input: 0, output: 0 }]);
  });

  it('calls anything else malformed', () => {
    for (const body of [null, { choices: [] }, { choices: [{}] }, answer({ content: 5 }, 'stop'), answer({ tool_calls: {} }, 'tool_calls'),
      answer({ tool_calls: [{ type: 'function', function: { name: 'n' } }] }, 'tool_calls'), answer({ content: 'x' }, 'exploded')]) {
      assert.equal(openaiWire.parse(body).ok, false, JSON.stringify(body));
    }
  });
});
