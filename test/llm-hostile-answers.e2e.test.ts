/**
 * A model server that answers with hostile shapes, against the built daemon (contract §14.3): an
 * answer nested thousands of levels deep is a malformed answer — audited, retried, then the rules
 * fallback pages — never an exception that makes the dispatcher retry and dead-letter the triage; and
 * a server sending huge answers cannot make svc keep and re-send them: every request stays bounded.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FakeLlm } from './support/fake-llm.js';
import { startFakeLlm } from './support/fake-llm.js';
import { postAlert } from './support/http.js';
import { auditRows, readJsonLines } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { CONVERSATION_BUDGET_CHARS } from '../src/runtime/providers/conversation-budget.js';
import { MAX_ANSWER_BYTES } from '../src/runtime/providers/llm-http.js';
import { MAX_EVENT_CHARS } from '../src/runtime/providers/llm-prompt.js';
import { waitFor } from './support/wait.js';

/** An Anthropic answer calling submit_triage with an input nested `depth` levels (built as text: no recursion here either). */
function deepAnswer(depth: number): string {
  const input = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `{"id":"msg_deep","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"toolu_deep",`
    + `"name":"submit_triage","input":${input}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":10}}`;
}

describe('a model server with hostile answers', () => {
  const t = tempEnv();
  let fake: FakeLlm;
  let dir = '';
  let url = '';
  let cpPort = 0;
  let secret = '';
  let fixture = '';
  let n = 0;
  const env = (): NodeJS.ProcessEnv => ({ ...t.env, SVC_METRICS_PORT: String(cpPort), ANTHROPIC_API_KEY: fake.apiKey });
  const dms = () => readJsonLines(join(dir, 'out/oncall-dm.jsonl'));
  const rowsOf = (eventId: unknown, kind: string) => auditRows(t.home).filter((r) => r.kind === kind && r.data.eventId === eventId);
  const page = async (): Promise<Record<string, unknown>> => {
    const res = await postAlert(url, secret, fixture, `hostile-${n++}`);
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    const dm = await waitFor(`the DM of ${eventId}`, () => dms().find((m) => m.eventId === eventId), 120_000);
    await waitFor(`the outcome of ${eventId}`, () => rowsOf(eventId, 'message.delivered').length > 0, 60_000);
    return dm;
  };

  before(async () => {
    fake = await startFakeLlm('anthropic');
    ({ dir, url, cpPort, secret, fixture } = await scaffoldAgent(t, 'agent', 'anthropic'));
    appendAgentYaml(dir, [
      `baseUrl: ${fake.baseUrl}`,
      'llm: { maxAttempts: 2, maxSteps: 8, callTimeoutMs: 30000, triageTimeoutMs: 110000, retry: { initialBackoffMs: 10, maxBackoffMs: 20 } }',
    ].join('\n'));
    const up = await runSvc(['up', '-d'], { env: env(), cwd: dir });
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await runSvc(['down'], { env: env(), cwd: dir });
    await fake.close();
    t.cleanup();
  });

  it('a tool_use input nested 6,000 levels is a malformed answer: llm.called rows, then the rules fallback pages', async () => {
    fake.always({ status: 200, raw: deepAnswer(6000) });
    const dm = await page();
    fake.always(fake.error(500));
    assert.equal(dm.triagedBy, 'rules-fallback');
    assert.match(String(dm.text), /^\[P1\] FIRING: HighErrorRate/);
    const eventId = dm.eventId;
    assert.deepEqual(rowsOf(eventId, 'llm.called').map((r) => [r.data.step, r.data.attempt, r.data.status]),
      [[1, 1, 'malformed'], [1, 2, 'malformed']], 'each answer audited once; the triage was not retried by the dispatcher');
    const [fallback] = rowsOf(eventId, 'triage.fallback');
    assert.equal(fallback?.data.reason, 'malformed');
    assert.equal(rowsOf(eventId, 'event.dead-lettered').length, 0);
  });

  it('answers of 1.5 MB are not kept and re-sent: every request stays bounded, the triage ends and falls back', async () => {
    const before = fake.requests.length;
    fake.always(fake.text(`${'All looks fine. '.repeat(100_000)}`));
    const dm = await page();
    fake.always(fake.error(500));
    const sent = fake.requests.slice(before);
    assert.equal(sent.length, 8, 'the loop ran its llm.maxSteps');
    // The event (cut at MAX_EVENT_CHARS), the conversation budget, and room for the system prompt and the JSON around them.
    const bound = MAX_EVENT_CHARS + CONVERSATION_BUDGET_CHARS + 64 * 1024;
    const sizes = sent.map((r) => r.bodyBytes);
    assert.ok(sizes.every((n) => n < bound), `request sizes ${sizes.join(', ')} over ${bound}`);
    assert.equal(dm.triagedBy, 'rules-fallback');
    assert.equal(rowsOf(dm.eventId, 'triage.fallback')[0]?.data.reason, 'no-submit');
  });

  it('an answer over the read cap is refused while it streams: malformed, then the fallback', async () => {
    fake.always(fake.text('x'.repeat(MAX_ANSWER_BYTES + 1024)));
    const dm = await page();
    fake.always(fake.error(500));
    assert.equal(dm.triagedBy, 'rules-fallback');
    assert.deepEqual(rowsOf(dm.eventId, 'llm.called').map((r) => r.data.status), ['malformed', 'malformed']);
    assert.equal(rowsOf(dm.eventId, 'triage.fallback')[0]?.data.reason, 'malformed');
  });
});
