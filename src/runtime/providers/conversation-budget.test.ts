import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { clip, CONVERSATION_BUDGET_CHARS, fitConversation, keptAnswer, MAX_KEPT_CHARS, MAX_TOOL_CALLS_PER_STEP, messageChars } from './conversation-budget.js';
import type { LlmMessage, LlmToolCall } from './llm-types.js';

const call = (id: string, raw: string): LlmToolCall => ({ id, name: 'runbooks__echo', input: JSON.parse(raw) as unknown, raw });
const big = (n: number, c = 'x'): string => c.repeat(n);

describe('conversation budget', () => {
  it('clips a text past MAX_KEPT_CHARS and says so', () => {
    assert.equal(clip('short'), 'short');
    const cut = clip(big(MAX_KEPT_CHARS + 5));
    assert.ok(cut.startsWith(big(MAX_KEPT_CHARS)));
    assert.match(cut, /\n\(cut after 16000 of 16005 characters\)$/);
  });

  it('keeps an answer\'s text clipped, at most MAX_TOOL_CALLS_PER_STEP calls, and drops over-long arguments', () => {
    const calls = Array.from({ length: MAX_TOOL_CALLS_PER_STEP + 3 }, (_, i) => call(`c${i}`, `{"text":"${i}"}`));
    calls[1] = call('c1', `{"text":"${big(MAX_KEPT_CHARS)}"}`);
    const kept = keptAnswer({ text: big(7_900_000), toolCalls: calls, stop: 'tool-use', usage: { input: 0, output: 0 } });
    assert.ok(kept.text.length < MAX_KEPT_CHARS + 100);
    assert.equal(kept.toolCalls.length, MAX_TOOL_CALLS_PER_STEP);
    assert.equal(kept.dropped, 3);
    assert.deepEqual(kept.toolCalls[1], { id: 'c1', name: 'runbooks__echo', input: undefined, raw: '{}', inputError: 'arguments over 16000 characters' });
    assert.equal(kept.toolCalls[0], calls[0], 'a small call is kept as it is');
  });

  it('fits a long conversation in the budget, oldest first, the event and the newest message untouched', () => {
    const event: LlmMessage = { role: 'user', text: big(30_000, 'e') };
    const messages: LlmMessage[] = [event];
    for (let i = 0; i < 32; i++) {
      messages.push({ role: 'assistant', text: big(MAX_KEPT_CHARS), toolCalls: [call(`c${i}`, `{"t":"${big(MAX_KEPT_CHARS - 10)}"}`)] });
      messages.push({ role: 'tool-results', results: [{ callId: `c${i}`, name: 'runbooks__echo', text: big(MAX_KEPT_CHARS), isError: false }], note: 'n' });
    }
    const fitted = fitConversation(messages);
    assert.equal(fitted.length, messages.length, 'no message is removed: every call keeps its result');
    assert.equal(fitted[0], event);
    assert.equal(fitted.at(-1), messages.at(-1));
    const rest = fitted.slice(1).reduce((n, m) => n + messageChars(m), 0);
    assert.ok(rest <= CONVERSATION_BUDGET_CHARS, `${rest} characters after the event`);
    assert.match((fitted[1] as { text: string }).text, /removed to keep the conversation short/);
    // Calls and their results still pair up.
    const ids = fitted.flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.id) : []));
    const answered = fitted.flatMap((m) => (m.role === 'tool-results' ? m.results.map((r) => r.callId) : []));
    assert.deepEqual(ids, answered);
  });

  it('property: whatever the sizes, the fitted conversation after the event is within budget plus the newest message', () => {
    const msg = fc.oneof(
      fc.record({ role: fc.constant('user' as const), text: fc.nat(40_000).map((n) => big(n)) }),
      fc.record({ role: fc.constant('assistant' as const), text: fc.nat(MAX_KEPT_CHARS).map((n) => big(n)), toolCalls: fc.constant([]) }),
    );
    fc.assert(fc.property(fc.array(msg, { minLength: 1, maxLength: 60 }), (messages) => {
      const fitted = fitConversation(messages as LlmMessage[]);
      const newest = messageChars(fitted.at(-1) as LlmMessage);
      const rest = fitted.slice(1, -1).reduce((n, m) => n + messageChars(m), 0);
      assert.ok(rest + newest <= Math.max(CONVERSATION_BUDGET_CHARS, newest + (fitted.length - 2) * 60));
    }), { numRuns: 200 });
  });
});
