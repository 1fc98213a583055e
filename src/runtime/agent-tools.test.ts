import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { FakeClock } from '../core/clock.js';
import { fakeClock } from '../core/clock.js';
import type { AgentLog } from '../logs/agent-log.js';
import { parseStoredAuditRow } from '../audit/audit-row.js';
import { createAgentTools, toolLookup } from './agent-tools.js';
import type { McpSupervisor, ToolCallResult } from './mcp/mcp-types.js';
import type { AgentRateLimiters } from './rate-limit/rate-limiters.js';
import { sharedSqliteStore } from '../../test/support/shared-store.js';
import { within } from '../../test/support/wait.js';

// One store for the file, emptied per test: what a test reads is its own rows, not the file's.
const shared = sharedSqliteStore('svc-tools-');
after(() => shared.close());
const silentLog: AgentLog = { write: () => undefined, close: () => undefined };
const noLimits: AgentRateLimiters = { provider: () => Promise.resolve(), tool: () => Promise.resolve() };

const T0 = Date.parse('2026-11-21T00:00:00Z');

/** A server whose every call answers `answer` at once, or, for 'hang', only when the caller aborts. */
function fakeServer(answer: ToolCallResult | 'hang'): McpSupervisor {
  return {
    id: 'runbooks', start: () => Promise.resolve(), tools: () => [], close: () => Promise.resolve(),
    status: () => ({ id: 'runbooks', state: 'running', circuit: 'closed', restarts: 0, pid: null, tools: [] }),
    callTool: (_name, _args, signal) => new Promise((resolve) => {
      const aborted = (): void => resolve({ ok: false, reason: 'aborted', error: 'aborted' });
      if (answer !== 'hang') resolve(answer);
      else if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted);
    }),
  };
}

describe('agent tools', () => {
  const setup = async (server: McpSupervisor, clock: FakeClock = fakeClock(T0)) => {
    const store = await shared.fresh();
    const tools = createAgentTools({ agentId: 'a1', servers: new Map([['runbooks', server]]), limits: noLimits,
      audit: async (e) => { await store.appendAudit(e, clock.now()); },
      log: silentLog, clock });
    return { store, tools, clock };
  };
  const query = { alertname: 'HighErrorRate', status: 'firing' as const, severity: 'P1' as const, labels: {} };

  it('audits every call with its outcome, never its arguments or answer', async () => {
    const { store, tools, clock } = await setup(fakeServer({ ok: true, isError: false, text: 'secret runbook text', content: [] }));
    const lookup = toolLookup(tools, { server: 'runbooks', tool: 'lookup_runbook', timeoutMs: 5_000 }, clock);
    assert.deepEqual(await lookup(query, 'evt-1', new AbortController().signal), { ok: true, text: 'secret runbook text' });
    const [row] = (await store.readAudit(0, 10)).map(parseStoredAuditRow);
    assert.equal(row?.kind, 'tool.called');
    assert.deepEqual(row?.data, { eventId: 'evt-1', serverId: 'runbooks', tool: 'lookup_runbook', outcome: 'ok', durationMs: 0 });
    assert.doesNotMatch(JSON.stringify(row), /secret runbook|HighErrorRate/);
    await store.close();
  });

  it('a lookup that outlasts its timeout gives up, so the page is not held back', async () => {
    const { store, tools, clock } = await setup(fakeServer('hang'));
    const lookup = toolLookup(tools, { server: 'runbooks', tool: 'lookup_runbook', timeoutMs: 100 }, clock);
    const pending = lookup(query, 'evt-2', new AbortController().signal);
    await clock.advanceAsync(100);
    const result = await within(pending, 'the lookup to give up');
    assert.deepEqual(result, { ok: false, error: 'runbooks/lookup_runbook: no answer within 100 ms' });
    const [row] = (await store.readAudit(0, 10)).map(parseStoredAuditRow);
    assert.deepEqual([row?.data.outcome, row?.data.durationMs], ['aborted', 100], 'given up at the timeout, not before');
    await store.close();
  });

  it('an unknown server is an unavailable result, not a throw', async () => {
    const { store, tools } = await setup(fakeServer({ ok: true, isError: false, text: '', content: [] }));
    const result = await tools.call('pager', 'x', {}, 'evt-3', new AbortController().signal);
    assert.deepEqual(result.ok ? null : result.reason, 'unavailable');
    await store.close();
  });
});
