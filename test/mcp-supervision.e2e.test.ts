/**
 * MCP supervision in the real daemon: the rules provider's runbook lookup goes through a stdio MCP
 * server (test/fixtures/mcp-test-server.mjs) that the test tells to crash; restarts and circuit
 * transitions show in /metrics and /status, the page still goes out while the server is down, and the
 * provider and tool rate limits make callers wait and count it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metricValue, postAlert } from './support/http.js';
import { auditRows, readJsonLines } from './support/store.js';
import { appendAgentYaml, runSvc, scaffoldAgent, tempEnv } from './support/svc.js';
import { waitFor } from './support/wait.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mcp-test-server.mjs', import.meta.url));

interface McpStatus { id: string; state: string; circuit: string; restarts: number; pid: number | null; tools: string[] }

describe('MCP supervision through the daemon', () => {
  const t = tempEnv();
  let dir = '';
  const control = join(t.work, 'mcp-control.json');
  const starts = join(t.work, 'mcp-starts.txt');
  let cp = '';
  let cpPort = 0;
  let url = '';
  let secret = '';
  let fixture = '';
  let n = 0;
  const env = (): NodeJS.ProcessEnv => ({ ...t.env, SVC_METRICS_PORT: String(cpPort) });
  const svc = (...args: string[]) => runSvc(args, { env: env(), cwd: dir });
  const setMode = (mode: string): void => writeFileSync(control, JSON.stringify({ mode }));
  const metrics = async (): Promise<string> => (await fetch(`${cp}/metrics`)).text();
  const mcpStatus = async (): Promise<McpStatus> => {
    const status = (await (await fetch(`${cp}/status`)).json()) as { agents: [{ mcpServers: McpStatus[] }] };
    return status.agents[0].mcpServers[0] as McpStatus;
  };
  const dms = () => readJsonLines(join(dir, 'out/oncall-dm.jsonl'));
  /** Posts an alert and returns the direct message it produced. */
  const page = async (): Promise<Record<string, unknown>> => {
    const res = await postAlert(url, secret, fixture, `mcp-${n++}`);
    assert.equal(res.status, 202);
    const eventId = String(res.json?.eventId);
    return waitFor(`the DM of ${eventId}`, () => dms().find((m) => m.eventId === eventId));
  };

  before(async () => {
    ({ dir, url, cpPort, cp, secret, fixture } = await scaffoldAgent(t));
    setMode('ok');
    appendAgentYaml(dir, [
      'mcpServers:',
      '  - id: runbooks',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(FIXTURE)}]`,
      `    env: { MCP_TEST_CONTROL: ${JSON.stringify(control)}, MCP_TEST_STARTS: ${JSON.stringify(starts)} }`,
      '    callTimeoutMs: 3000',
      '    pingIntervalMs: 500',
      '    pingTimeoutMs: 1000',
      '    restart: { initialBackoffMs: 50, maxBackoffMs: 200 }',
      '    circuit: { failureThreshold: 2, openMs: 1500 }',
      'rules:',
      '  lookup: { server: runbooks, tool: lookup_runbook }',
      'rateLimits:',
      '  provider: { perSecond: 4, burst: 1 }',
      '  tools: { lookup_runbook: { perSecond: 2, burst: 1 } }',
    ].join('\n'));
    const up = await svc('up', '-d');
    assert.equal(up.code, 0, up.stderr);
  });
  after(async () => {
    await svc('down');
    t.cleanup();
  });

  it('starts the server, lists its tools and quotes the lookup in the page', async () => {
    const status = await mcpStatus();
    assert.equal(status.id, 'runbooks');
    assert.equal(status.state, 'running');
    assert.equal(status.circuit, 'closed');
    assert.equal(status.restarts, 0);
    assert.ok(status.tools.includes('lookup_runbook'), JSON.stringify(status.tools));
    const dm = await page();
    assert.match(String(dm.text), /runbook for HighErrorRate/);
    // Resolved values (paths, env values; secrets in real life) stay out of the immutable chain.
    const loaded = auditRows(t.home).find((r) => r.kind === 'config.loaded');
    assert.deepEqual((loaded?.data.mcpServers as Array<Record<string, unknown>>)[0]?.envKeys, ['MCP_TEST_CONTROL', 'MCP_TEST_STARTS']);
    assert.doesNotMatch(JSON.stringify(loaded?.data), /mcp-control\.json|mcp-test-server/);
    const called = auditRows(t.home).filter((r) => r.kind === 'tool.called');
    assert.equal(called.length, 1);
    assert.equal(called[0]?.data.outcome, 'ok');
    assert.equal(called[0]?.data.serverId, 'runbooks');
    const text = await metrics();
    assert.equal(metricValue(text, 'mcp_server_circuit_state', { server_id: 'runbooks' }), 0);
    assert.equal(metricValue(text, 'mcp_server_restarts_total', { server_id: 'runbooks' }), 0);
  });

  it('a crash during a call: the page still goes out, the server is restarted', async () => {
    const firstPid = (await mcpStatus()).pid;
    setMode('crash');
    const dm = await page();
    assert.match(String(dm.text), /lookup unavailable/);
    await waitFor('a restart in /metrics', async () =>
      ((metricValue(await metrics(), 'mcp_server_restarts_total', { server_id: 'runbooks' }) ?? 0) >= 1 ? true : undefined));
    const status = await waitFor('the server running again', async () => {
      const s = await mcpStatus();
      return s.state === 'running' ? s : undefined;
    });
    assert.ok(status.restarts >= 1);
    assert.notEqual(status.pid, firstPid);
    assert.ok(readFileSync(starts, 'utf8').trim().split('\n').length >= 2);
    const ps = await svc('ps');
    assert.equal(ps.code, 0, ps.stderr);
    assert.match(ps.stdout, new RegExp(`runbooks +running +closed +${status.restarts}`));
  });

  it('repeated failures open the circuit; a healthy trial closes it', async () => {
    // Still in crash mode: the second consecutive failure opens the circuit (threshold 2).
    await page();
    const opened = await waitFor('circuit open', async () => {
      const text = await metrics();
      return metricValue(text, 'mcp_server_circuit_state', { server_id: 'runbooks' }) === 2 ? text : undefined;
    });
    assert.ok((metricValue(opened, 'mcp_server_circuit_open_total', { server_id: 'runbooks' }) ?? 0) >= 1);
    assert.equal((await mcpStatus()).circuit, 'open');
    // While open, calls are refused at once, without touching the process.
    const refused = await page();
    assert.match(String(refused.text), /lookup unavailable: runbooks\/lookup_runbook: circuit-open/);
    setMode('ok');
    // After openMs, the next call is the half-open trial; the healthy server closes the circuit.
    const healed = await waitFor('a page with the runbook again', async () => {
      const dm = await page();
      return /runbook for HighErrorRate/.test(String(dm.text)) ? dm : undefined;
    }, 20_000);
    assert.ok(healed);
    assert.equal(metricValue(await metrics(), 'mcp_server_circuit_state', { server_id: 'runbooks' }), 0);
    assert.equal((await mcpStatus()).circuit, 'closed');
    const outcomes = new Set(auditRows(t.home).filter((r) => r.kind === 'tool.called').map((r) => r.data.outcome));
    assert.ok(outcomes.has('circuit-open') && outcomes.has('ok'), [...outcomes].join());
  });

  it('provider and tool rate limits make callers wait and count it', async () => {
    await Promise.all([0, 1, 2, 3].map(() => page()));
    const text = await metrics();
    assert.ok((metricValue(text, 'svc_provider_rate_limit_waits', { agent: 'oncall-escalator' }) ?? 0) >= 1, 'provider waits');
    assert.ok((metricValue(text, 'svc_provider_rate_limit_wait_ms_count', { agent: 'oncall-escalator' }) ?? 0) >= 1);
    assert.ok((metricValue(text, 'svc_tool_rate_limit_waits_total', { agent: 'oncall-escalator', tool: 'lookup_runbook' }) ?? 0) >= 1,
      'tool waits');
  });
});
