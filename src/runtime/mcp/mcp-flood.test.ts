/**
 * An MCP server that floods (test/fixtures/mcp-flood-server.mjs, a real child process): stderr at pipe
 * speed, one endless stdout line, or stdout lines it was not asked for (valid notifications, garbage).
 * Each way the supervisor reads a bounded amount, logs a handful of lines, reports `mcp.flooding`,
 * stops reading, restarts the server with back-off and counts the failure on its circuit — instead of
 * keeping a core busy while the server is shown healthy. Answers to the daemon's own requests never
 * count as noise, however many.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { mcpServerSchema } from '../../config/schema.js';
import { systemClock } from '../../core/clock.js';
import { createMetrics } from '../../metrics/registry.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import { MAX_MESSAGE_BYTES } from './child-stdio-transport.js';
import type { McpSupervisor } from './mcp-types.js';
import { createMcpSupervisor, FLOOD_BYTES_PER_WINDOW, FLOOD_LINES_PER_WINDOW } from './mcp-supervisor.js';
import { waitFor } from '../../../test/support/wait.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/mcp-flood-server.mjs', import.meta.url));

interface LogLine { level: string; event: string; fields: Record<string, unknown> }

const dirs: string[] = [];
const supervisors: McpSupervisor[] = [];
after(async () => {
  await Promise.all(supervisors.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type FloodMode = 'stderr' | 'stdout-line' | 'stdout-notifications' | 'stdout-garbage' | 'none';

function flooding(mode: FloodMode, initialBackoffMs = 200) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-flood-'));
  dirs.push(dir);
  const startsPath = join(dir, 'starts.txt');
  const config = mcpServerSchema.parse({
    id: 'noisy', command: process.execPath, args: [FIXTURE], env: { MCP_FLOOD: mode, MCP_TEST_STARTS: startsPath },
    callTimeoutMs: 3_000, pingIntervalMs: 200, pingTimeoutMs: 2_000, drainTimeoutMs: 200,
    restart: { initialBackoffMs, maxBackoffMs: Math.max(2_000, initialBackoffMs) }, circuit: { failureThreshold: 2, openMs: 60_000 },
  });
  const metrics = createMetrics({ stats: createSourceStats(), agents: [], mcpServers: ['noisy'] });
  const logs: LogLine[] = [];
  const supervisor = createMcpSupervisor({ config, agentDir: dir, metrics: metrics.mcp, clock: systemClock,
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME }, log: (level, event, fields) => logs.push({ level, event, fields }) });
  supervisors.push(supervisor);
  const starts = (): number => (existsSync(startsPath) ? readFileSync(startsPath, 'utf8').split('\n').filter(Boolean).length : 0);
  return { supervisor, logs, metrics, starts };
}

describe('an MCP server that floods', () => {
  it('stderr at pipe speed: a few log lines, mcp.flooding, a restart, the circuit told', async (t) => {
    const h = flooding('stderr');
    await h.supervisor.start();
    await waitFor('mcp.flooding', () => h.logs.find((l) => l.event === 'mcp.flooding'), 30_000);
    await waitFor('the flooding life ended', () => h.logs.find((l) => l.event === 'mcp.exited' && l.fields.reason === 'flooding'), 30_000);
    await waitFor('a second start', () => h.starts() >= 2, 30_000);
    const flood = h.logs.find((l) => l.event === 'mcp.flooding');
    assert.equal(flood?.level, 'warn');
    assert.ok(Number(flood?.fields.bytes) > FLOOD_BYTES_PER_WINDOW);
    // At most one window's worth of 64 KiB lines was decoded and logged (each cut at 2,000 characters).
    const stderrLines = h.logs.filter((l) => l.event === 'mcp.stderr');
    assert.ok(stderrLines.length <= 2 * 17, `${stderrLines.length} stderr lines logged`);
    const exposition = await h.metrics.registry.metrics();
    assert.match(exposition, /mcp_server_restarts_total\{server_id="noisy"\} [1-9]/);
    t.diagnostic(`starts: ${h.starts()}, stderr lines logged: ${stderrLines.length}`);
    await h.supervisor.close();
  });

  it('an endless stdout line: dropped as it streams (nothing kept, no stall), reported, the server restarted', async (t) => {
    const h = flooding('stdout-line');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    await h.supervisor.start();
    delay.enable();
    await waitFor('the over-long message reported', () => h.logs.find((l) => l.event === 'mcp.protocol_error'
      && String(l.fields.line).includes(`a message over ${MAX_MESSAGE_BYTES} bytes was dropped`)), 30_000);
    await waitFor('mcp.flooding', () => h.logs.find((l) => l.event === 'mcp.flooding'), 30_000);
    await waitFor('a second start', () => h.starts() >= 2, 30_000);
    delay.disable();
    t.diagnostic(`longest event-loop delay while the line streamed: ${Math.round(delay.max / 1e6)} ms`);
    await h.supervisor.close();
  });

  for (const mode of ['stdout-notifications', 'stdout-garbage'] as const) {
    it(`${mode} at pipe speed: ${FLOOD_LINES_PER_WINDOW} lines not asked for are read, then nothing; shown restarting, not running`, async (t) => {
      // A long back-off, so the state between two lives can be looked at.
      const h = flooding(mode, 5_000);
      await h.supervisor.start();
      const flood = await waitFor('mcp.flooding', () => h.logs.find((l) => l.event === 'mcp.flooding'), 30_000);
      assert.equal(flood.level, 'warn');
      assert.equal(flood.fields.lines, FLOOD_LINES_PER_WINDOW + 1, 'counted up to the first line past the budget');
      const exited = await waitFor('the flooding life ended', () => h.logs.find((l) => l.event === 'mcp.exited' && l.fields.reason === 'flooding'), 30_000);
      // The counter of the life: every stdout line read, the handshake's answers included. The server
      // wrote on for as long as its pipe took it; the daemon read no line past the budget.
      const read = Number(exited.fields.stdoutLines);
      assert.ok(read > FLOOD_LINES_PER_WINDOW && read <= FLOOD_LINES_PER_WINDOW + 10, `${read} stdout lines read`);
      assert.equal(h.supervisor.status().state, 'restarting');
      const protocolErrors = h.logs.filter((l) => l.event === 'mcp.protocol_error');
      assert.ok(protocolErrors.length <= 50, `${protocolErrors.length} protocol error lines logged`);
      await waitFor('a second start', () => h.starts() >= 2, 30_000);
      t.diagnostic(`stdout lines read in the flooding life: ${read}; protocol error lines logged: ${protocolErrors.length}`);
      await h.supervisor.close();
    });
  }

  it('answers to its own calls never count: 1,500 tool calls in one window are not a flood', async () => {
    const h = flooding('none');
    await h.supervisor.start();
    for (let batch = 0; batch < 15; batch++) {
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => h.supervisor.callTool('echo', { text: `t${batch}-${i}` })));
      assert.ok(results.every((r) => r.ok && !r.isError), JSON.stringify(results.find((r) => !r.ok)));
    }
    assert.equal(h.logs.find((l) => l.event === 'mcp.flooding'), undefined);
    assert.equal(h.supervisor.status().state, 'running');
    assert.equal(h.starts(), 1);
    await h.supervisor.close();
    const exited = h.logs.find((l) => l.event === 'mcp.exited');
    assert.ok(Number(exited?.fields.stdoutLines) > 1_500, 'every answer was read');
  });
});
