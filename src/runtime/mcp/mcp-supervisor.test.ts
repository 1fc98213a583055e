/**
 * The supervisor against real child processes of test/fixtures/mcp-test-server.mjs, steered through its
 * control file. Waits poll a condition the child makes true; tests about time (pings, timeouts, drains,
 * back-off, rate limits) run the supervisor on a fake clock and move it themselves, so they say what
 * fired when. The others keep the system clock with small timeouts so the file runs in seconds.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { mcpServerSchema } from '../../config/schema.js';
import type { Clock, FakeClock } from '../../core/clock.js';
import { fakeClock, systemClock } from '../../core/clock.js';
import type { Metrics } from '../../metrics/registry.js';
import { createMetrics } from '../../metrics/registry.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import type { McpSupervisor, ToolCallResult } from './mcp-types.js';
import { createMcpSupervisor } from './mcp-supervisor.js';
import { advanceUntil, waitFor, within } from '../../../test/support/wait.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/mcp-test-server.mjs', import.meta.url));
const SUPERVISOR = fileURLToPath(new URL('./mcp-supervisor.ts', import.meta.url));
const SERVER = 't1';
const T0 = Date.parse('2026-11-21T00:00:00Z');

interface LogLine { level: string; event: string; fields: Record<string, unknown> }

interface Harness {
  dir: string;
  metrics: Metrics;
  logs: LogLine[];
  supervisor: McpSupervisor;
  control(mode: 'ok' | 'crash' | 'hang' | 'slow' | 'orphan-crash' | 'no-ping', delayMs?: number): void;
  starts(): number[];
  /** One entry per ping the server processes received: "<pid> ok|error|dropped". */
  pings(): string[];
}

const dirs: string[] = [];
const open: Array<{ supervisor: McpSupervisor; clock: Clock }> = [];
/** Every fixture process any harness started: killed at the end so a broken close() fails tests instead of hanging them. */
const spawned: Array<() => number[]> = [];

const linesOf = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

/**
 * A supervisor of one fixture server. With a fake `clock` nothing happens on its own in time: pings
 * are off (one interval is 10 min) unless the test sets pingIntervalMs, and the test moves the clock.
 */
function harness(overrides: Record<string, unknown> = {}, opts: { command?: string; clock?: FakeClock } = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-'));
  dirs.push(dir);
  const controlPath = join(dir, 'control.json');
  const startsPath = join(dir, 'starts.txt');
  const pingsPath = join(dir, 'pings.txt');
  const config = mcpServerSchema.parse({
    id: SERVER, command: opts.command ?? process.execPath, args: [FIXTURE],
    env: { MCP_TEST_CONTROL: controlPath, MCP_TEST_STARTS: startsPath, MCP_TEST_ORPHANS: join(dir, 'orphans.txt'), MCP_TEST_PINGS: pingsPath },
    callTimeoutMs: 3_000, pingIntervalMs: opts.clock ? 600_000 : 200, pingTimeoutMs: 200, drainTimeoutMs: 500,
    restart: { initialBackoffMs: 50, maxBackoffMs: 200 },
    circuit: { failureThreshold: 5, openMs: 300 },
    ...overrides,
  });
  const metrics = createMetrics({ stats: createSourceStats(), agents: [], mcpServers: [SERVER] });
  const logs: LogLine[] = [];
  const clock = opts.clock ?? systemClock;
  const supervisor = createMcpSupervisor({
    config, agentDir: dir, metrics: metrics.mcp, clock,
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DAEMON_SECRET: 'must-not-leak' },
    log: (level, event, fields) => logs.push({ level, event, fields }),
  });
  open.push({ supervisor, clock });
  const starts = (): number[] => linesOf(startsPath).map(Number);
  spawned.push(starts);
  return {
    dir, metrics, logs, supervisor,
    control: (mode, delayMs = 0) => writeFileSync(controlPath, JSON.stringify({ mode, delayMs })),
    starts,
    pings: () => linesOf(pingsPath),
  };
}

/** A fake clock that also counts the sleeps it was asked for, by length. */
function countingClock(): FakeClock & { sleeps(ms: number): number } {
  const clock = fakeClock(T0);
  const counts = new Map<number, number>();
  return {
    ...clock,
    sleep(ms, signal) {
      counts.set(ms, (counts.get(ms) ?? 0) + 1);
      return clock.sleep(ms, signal);
    },
    sleeps: (ms) => counts.get(ms) ?? 0,
  };
}

/** Waits until the supervisor has scheduled its `nth` respawn, then moves the fake clock through that back-off. */
async function throughBackoff(h: Harness, clock: FakeClock, nth: number): Promise<void> {
  const scheduled = await waitFor(`respawn ${nth} scheduled`, () => h.logs.filter((l) => l.event === 'mcp.restarting')[nth - 1]);
  await clock.advanceAsync(Number(scheduled.fields.delayMs));
}

/** A sample of one family for server t1 (`suffix`: `_count`/`_sum` of a histogram). */
async function sample(metrics: Metrics, name: string, suffix = ''): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  assert.ok(metric, `metric ${name} exists`);
  const values = (await metric.get()).values;
  const found = values.find((v) => ((v as { metricName?: string }).metricName ?? name) === name + suffix && v.labels.server_id === SERVER);
  assert.ok(found, `sample ${name}${suffix}{server_id="${SERVER}"}`);
  return found.value;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function okText(result: ToolCallResult): string {
  assert.ok(result.ok, `expected ok, got ${JSON.stringify(result)}`);
  assert.equal(result.isError, false);
  return result.text;
}

const running = (h: Harness) => () => h.supervisor.status().state === 'running';
const slowStarted = (h: Harness) => () => h.logs.some((l) => l.event === 'mcp.stderr' && String(l.fields.line).startsWith('slow started'));

describe('MCP supervisor', () => {
  beforeEach(() => { open.length = 0; });
  afterEach(async () => {
    await Promise.all(open.map(async ({ supervisor, clock }) => {
      let closed = false;
      const closing = supervisor.close().then(() => { closed = true; });
      // A test that failed half-way may leave a drain or a kill grace waiting on its fake clock.
      if ('advanceAsync' in clock) await advanceUntil(clock as FakeClock, 'the supervisor closed', () => closed, 500);
      await closing;
    }));
  });
  after(() => {
    const survivors = spawned.flatMap((starts) => starts()).filter(alive);
    for (const pid of survivors) process.kill(pid, 'SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    assert.deepEqual(survivors, [], 'no server process outlives its supervisor');
  });

  it('starts the server, lists its tools and calls them', async () => {
    const h = harness();
    assert.equal(h.supervisor.status().state, 'stopped');
    await h.supervisor.start();
    const status = h.supervisor.status();
    assert.equal(status.state, 'running');
    assert.equal(status.circuit, 'closed');
    assert.equal(status.restarts, 0);
    assert.ok(status.pid && alive(status.pid));
    assert.deepEqual([...status.tools].sort(), ['echo', 'fail', 'lookup_runbook', 'process_info', 'slow']);
    const lookup = h.supervisor.tools().find((t) => t.name === 'lookup_runbook');
    assert.deepEqual((lookup?.inputSchema as { required?: string[] }).required, ['alertname']);
    assert.equal(lookup?.description, 'Runbook URL for an alert name');

    const result = await h.supervisor.callTool('lookup_runbook', { alertname: 'HighCPU' });
    assert.equal(okText(result), 'runbook for HighCPU: https://runbooks.example/HighCPU');
    assert.deepEqual(result.ok && result.content, [{ type: 'text', text: 'runbook for HighCPU: https://runbooks.example/HighCPU' }]);

    const failed = await h.supervisor.callTool('fail', {});
    assert.deepEqual(failed.ok && [failed.isError, failed.text], [true, 'tool failed on purpose']);
    const unknown = await h.supervisor.callTool('no_such_tool', {});
    assert.deepEqual(!unknown.ok && unknown.reason, 'unknown-tool');
    assert.equal(h.supervisor.status().circuit, 'closed');

    const started = h.logs.find((l) => l.event === 'mcp.started');
    assert.deepEqual(started?.fields.pid, status.pid);
    assert.ok(h.logs.some((l) => l.event === 'mcp.stderr' && String(l.fields.line).includes('ready')), 'stderr goes to the log');
  });

  it('gives the server only PATH, HOME (LANG, TZ when set) and its own env, in the configured cwd', async () => {
    const h = harness({ cwd: '.' });
    await h.supervisor.start();
    const info = JSON.parse(okText(await h.supervisor.callTool('process_info', {}))) as { cwd: string; envKeys: string[] };
    assert.equal(info.cwd, h.dir);
    assert.deepEqual(info.envKeys, ['HOME', 'MCP_TEST_CONTROL', 'MCP_TEST_ORPHANS', 'MCP_TEST_PINGS', 'MCP_TEST_STARTS', 'PATH']);
  });

  it('restarts a server that crashed, and calls work again', async () => {
    const h = harness();
    await h.supervisor.start();
    const firstPid = h.supervisor.status().pid;
    h.control('crash');
    const crashed = await h.supervisor.callTool('echo', { text: 'boom' });
    assert.deepEqual(!crashed.ok && crashed.reason, 'failed');
    h.control('ok');
    await waitFor('a second start', () => h.starts().length >= 2);
    await waitFor('running again', running(h));
    assert.notEqual(h.supervisor.status().pid, firstPid);
    assert.ok(h.supervisor.status().restarts >= 1);
    assert.ok((await sample(h.metrics, 'mcp_server_restarts_total')) >= 1);
    assert.ok((await sample(h.metrics, 'mcp_server_drain_duration_ms', '_count')) >= 1, 'the drain before the respawn is observed');
    assert.equal(okText(await h.supervisor.callTool('echo', { text: 'again' })), 'again');
    const exited = h.logs.find((l) => l.event === 'mcp.exited');
    assert.equal(exited?.fields.reason, 'exited');
    assert.ok(h.logs.some((l) => l.event === 'mcp.restarting' && typeof l.fields.delayMs === 'number'));
    assert.ok(h.logs.some((l) => l.event === 'mcp.call_failed' && l.fields.tool === 'echo' && !('args' in l.fields)));
  });

  it('restarts and closes a server whose detached helper still holds its stdout', async () => {
    const h = harness();
    await h.supervisor.start();
    h.control('orphan-crash');
    const crashed = await h.supervisor.callTool('echo', { text: 'boom' });
    assert.equal(crashed.ok, false);
    const orphans = (): number[] => {
      try {
        return readFileSync(join(h.dir, 'orphans.txt'), 'utf8').split('\n').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    try {
      assert.equal(orphans().length, 1);
      h.control('ok');
      await waitFor('a second start despite the held pipe', () => h.starts().length >= 2);
      await waitFor('running again', running(h));
      await h.supervisor.close();
      assert.equal(h.supervisor.status().state, 'stopped');
    } finally {
      for (const pid of orphans()) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  });

  it('keeps a server that answers ping with a JSON-RPC error: it is alive', async () => {
    const PING_MS = 1_000;
    const clock = countingClock();
    const h = harness({ pingIntervalMs: PING_MS, pingTimeoutMs: 500 }, { clock });
    h.control('no-ping');
    await h.supervisor.start();
    const pid = h.supervisor.status().pid;
    // The ping loop sleeps one interval, pings, and sleeps again only if it took the answer as a sign of
    // life; otherwise the life ends (mcp.unresponsive / mcp.exited). Each interval waits for that verdict.
    const lifeEnded = (): boolean => h.logs.some((l) => l.event === 'mcp.unresponsive' || l.event === 'mcp.exited');
    await waitFor('the first ping interval', () => clock.sleeps(PING_MS) === 1);
    for (let k = 1; k <= 5; k++) {
      await clock.advanceAsync(PING_MS);
      await waitFor(`the verdict on ping ${k}`, () => clock.sleeps(PING_MS) === k + 1 || lifeEnded());
    }
    assert.deepEqual(h.pings(), Array<string>(5).fill(`${pid} error`), 'five pings, each answered with a JSON-RPC error');
    assert.equal(clock.sleeps(PING_MS), 6, 'after each answer the same life went on to the next interval');
    assert.deepEqual(h.logs.filter((l) => ['mcp.unresponsive', 'mcp.exited', 'mcp.restarting'].includes(l.event)), []);
    assert.deepEqual([h.starts(), h.supervisor.status().restarts, h.supervisor.status().pid], [[pid], 0, pid]);
    assert.equal(okText(await h.supervisor.callTool('echo', { text: 'still here' })), 'still here');
  });

  it('restarts a server that stops answering pings', async () => {
    const h = harness();
    await h.supervisor.start();
    const hungPid = h.supervisor.status().pid as number;
    h.control('hang');
    await waitFor('mcp.unresponsive', () => h.logs.some((l) => l.event === 'mcp.unresponsive'));
    h.control('ok');
    await waitFor('the hung process is gone', () => !alive(hungPid));
    await waitFor('running on a new process', () => running(h)() && h.supervisor.status().pid !== hungPid);
    assert.ok((await sample(h.metrics, 'mcp_server_restarts_total')) >= 1);
    assert.equal(h.starts().length >= 2, true);
    assert.equal(okText(await h.supervisor.callTool('echo', { text: 'back' })), 'back');
  });

  it('fails an in-flight call when the process crashes under it, without hanging', async () => {
    const clock = fakeClock(T0);
    const h = harness({ callTimeoutMs: 20_000 }, { clock });
    await h.supervisor.start();
    const slow = h.supervisor.callTool('slow', { ms: 60_000 });
    await waitFor('the slow call is in flight', slowStarted(h));
    h.control('crash');
    const trigger = await h.supervisor.callTool('echo', { text: 'x' }); // arrives after slow, and kills the process
    const result = await within(slow, 'the in-flight call to fail with the process');
    // The clock never moved: the call timeout cannot have ended either call, the crash did.
    assert.equal(clock.monotonic(), 0);
    assert.deepEqual(!result.ok && result.reason, 'failed');
    assert.deepEqual(!trigger.ok && trigger.reason, 'failed');
    h.control('ok');
    await throughBackoff(h, clock, 1);
    await waitFor('running again', running(h));
  });

  it('drains an in-flight call of a hung server, then kills it and fails the call', async () => {
    const clock = fakeClock(T0);
    const h = harness({ callTimeoutMs: 20_000, drainTimeoutMs: 300, pingIntervalMs: 1_000, pingTimeoutMs: 200 }, { clock });
    await h.supervisor.start();
    const pid = h.supervisor.status().pid;
    const slow = h.supervisor.callTool('slow', { ms: 60_000 });
    await waitFor('the slow call is in flight', slowStarted(h));
    h.control('hang');
    await clock.advanceAsync(1_000); // the next ping goes out
    await waitFor('the hung server got the ping', () => h.pings().length === 1);
    assert.deepEqual(h.pings(), [`${pid} dropped`]);
    await clock.advanceAsync(200); // and gets no answer in time
    await waitFor('mcp.unresponsive', () => h.logs.some((l) => l.event === 'mcp.unresponsive'));
    await clock.advanceAsync(300); // the drain ends with the call still in flight
    const result = await within(slow, 'the drained call to fail with the killed process');
    assert.deepEqual(!result.ok && result.reason, 'failed');
    assert.equal(clock.monotonic(), 1_500, 'ping interval + ping timeout + drain: the 20 s call timeout played no part');
    await waitFor('mcp.exited', () => h.logs.some((l) => l.event === 'mcp.exited'));
    assert.equal(await sample(h.metrics, 'mcp_server_drain_duration_ms', '_sum'), 300, 'waited the whole drain for the call');
    assert.deepEqual(h.logs.find((l) => l.event === 'mcp.exited')?.fields.drainMs, 300);
    h.control('ok');
    await throughBackoff(h, clock, 1);
    await waitFor('running again', running(h));
  });

  it('times out a call that takes longer than callTimeoutMs, and honours an abort', async () => {
    const clock = fakeClock(T0);
    const h = harness({ callTimeoutMs: 300 }, { clock });
    await h.supervisor.start();
    let settledAt: number | null = null;
    const pending = h.supervisor.callTool('slow', { ms: 60_000 }).then((r) => { settledAt = clock.monotonic(); return r; });
    await waitFor('the slow call is in flight', slowStarted(h));
    await clock.advanceAsync(299);
    await clock.advanceAsync(1);
    const timedOut = await within(pending, 'the call to time out');
    assert.deepEqual(!timedOut.ok && timedOut.reason, 'timeout');
    assert.equal(settledAt, 300, 'ended by the call timeout, at 300 ms and not before');
    const controller = new AbortController();
    const call = h.supervisor.callTool('slow', { ms: 5_000 }, controller.signal);
    controller.abort();
    const aborted = await call;
    assert.deepEqual(!aborted.ok && aborted.reason, 'aborted');
    assert.equal(okText(await h.supervisor.callTool('echo', { text: 'still fine' })), 'still fine');
  });

  it('opens the circuit after repeated failures and closes it after a healthy half-open trial', async () => {
    const h = harness({ circuit: { failureThreshold: 2, openMs: 300 } });
    await h.supervisor.start();
    h.control('crash');
    const first = await h.supervisor.callTool('echo', { text: '1' });
    assert.deepEqual(!first.ok && first.reason, 'failed');
    assert.equal(h.supervisor.status().circuit, 'closed');
    await waitFor('running after the first crash', () => running(h)() && h.starts().length >= 2);
    const second = await h.supervisor.callTool('echo', { text: '2' });
    assert.deepEqual(!second.ok && second.reason, 'failed');
    assert.equal(h.supervisor.status().circuit, 'open');
    assert.equal(await sample(h.metrics, 'mcp_server_circuit_state'), 2);
    assert.equal(await sample(h.metrics, 'mcp_server_circuit_open_total'), 1);
    const refused = await h.supervisor.callTool('echo', { text: '3' });
    assert.deepEqual(!refused.ok && refused.reason, 'circuit-open');

    h.control('ok');
    await waitFor('running again', running(h));
    let last: ToolCallResult = refused;
    await waitFor('a half-open trial that succeeds', async () => {
      last = await h.supervisor.callTool('echo', { text: 'trial' });
      return last.ok || last.reason !== 'circuit-open';
    });
    assert.equal(okText(last), 'trial');
    assert.equal(h.supervisor.status().circuit, 'closed');
    assert.equal(await sample(h.metrics, 'mcp_server_circuit_state'), 0);
    assert.equal(await sample(h.metrics, 'mcp_server_circuit_open_total'), 1);
    assert.deepEqual(h.logs.filter((l) => l.event === 'mcp.circuit').map((l) => l.fields.state), ['open', 'half-open', 'closed']);
  });

  it('makes calls wait for the rate limit and counts the ones that waited', async () => {
    const clock = fakeClock(T0);
    const h = harness({ rateLimit: { perSecond: 5, burst: 1 } }, { clock });
    await h.supervisor.start();
    const answeredAt: number[] = [];
    const calls = [0, 1, 2].map((i) => h.supervisor.callTool('echo', { text: `r${i}` }).then((r) => { answeredAt[i] = clock.monotonic(); return r; }));
    await waitFor('the first call answered', () => answeredAt[0] !== undefined);
    await clock.advanceAsync(200); // one token
    await waitFor('the second call answered', () => answeredAt[1] !== undefined);
    await clock.advanceAsync(200); // the next one
    const results = await within(Promise.all(calls), 'the third call');
    assert.deepEqual(results.map(okText), ['r0', 'r1', 'r2']);
    assert.deepEqual(answeredAt, [0, 200, 400], 'the first at once, each next one a token (200 ms) later');
    assert.equal(await sample(h.metrics, 'mcp_server_rate_limited_total'), 2);
  });

  it('keeps retrying a server that cannot start, and callers get unavailable', async () => {
    const clock = fakeClock(T0);
    const h = harness({ callTimeoutMs: 300 }, { command: join(tmpdir(), 'svc-no-such-mcp-server'), clock });
    await h.supervisor.start(); // resolves after the first failed attempt
    assert.notEqual(h.supervisor.status().state, 'running');
    assert.ok(h.logs.some((l) => l.event === 'mcp.start_failed'));
    const call = h.supervisor.callTool('echo', { text: 'x' });
    await clock.advanceAsync(300);
    const result = await within(call, 'the call to give up waiting for the server');
    assert.deepEqual(!result.ok && result.reason, 'unavailable');
    await advanceUntil(clock, 'several respawns', async () => (await sample(h.metrics, 'mcp_server_restarts_total')) >= 2, 50);
    await waitFor('waiting out a back-off', () => h.logs.at(-1)?.event === 'mcp.restarting');
    const respawns = await sample(h.metrics, 'mcp_server_restarts_total');
    // The clock stands still from here: only close() can end the back-off the supervisor sleeps in.
    await within(h.supervisor.close(), 'close() during the back-off');
    assert.equal(h.supervisor.status().state, 'stopped');
    assert.equal(await sample(h.metrics, 'mcp_server_restarts_total'), respawns);
    assert.equal(h.logs.at(-1)?.event, 'mcp.stopped');
  });

  it('close() during a start attempt kills the half-started server', async () => {
    const clock = fakeClock(T0);
    const h = harness({}, { clock });
    h.control('hang'); // never answers initialize: the attempt would wait for its deadline
    const starting = h.supervisor.start();
    await waitFor('the server process started', () => h.starts().length === 1);
    const [pid] = h.starts() as [number];
    assert.equal(h.supervisor.status().state, 'starting');
    // The clock stands still: the start deadline cannot end the attempt, only close() can.
    await within(h.supervisor.close(), 'close() during the start attempt');
    assert.equal(alive(pid), false, 'closed means the child is gone, not being killed');
    await starting;
    assert.equal(h.supervisor.status().state, 'stopped');
    assert.ok(!h.logs.some((l) => l.event === 'mcp.start_failed'), 'a stop is not a failed start');
  });

  it('close() cuts a call longer than the drain: unavailable, and the circuit is not blamed', async () => {
    const clock = fakeClock(T0);
    const h = harness({ drainTimeoutMs: 100, circuit: { failureThreshold: 1, openMs: 300 } }, { clock });
    await h.supervisor.start();
    const pending = h.supervisor.callTool('slow', { ms: 60_000 });
    await waitFor('the slow call is in flight', slowStarted(h));
    const closing = h.supervisor.close();
    await clock.advanceAsync(100); // the drain ends with the call still in flight
    await within(closing, 'close() once the drain is over');
    const result = await pending;
    assert.deepEqual(!result.ok && result.reason, 'unavailable');
    assert.equal(h.supervisor.status().circuit, 'closed');
    assert.equal(await sample(h.metrics, 'mcp_server_circuit_open_total'), 0);
    assert.equal(await sample(h.metrics, 'mcp_server_drain_duration_ms', '_sum'), 100, 'waited the whole drain, no longer');
  });

  it('close() drains, kills the child and is idempotent', async () => {
    const h = harness();
    await h.supervisor.start();
    const pid = h.supervisor.status().pid as number;
    const pending = h.supervisor.callTool('slow', { ms: 100 });
    await Promise.all([h.supervisor.close(), h.supervisor.close()]);
    assert.equal(okText(await pending), 'slept 100', 'the in-flight call finished within the drain');
    assert.equal(alive(pid), false);
    assert.deepEqual(h.supervisor.status(), { ...h.supervisor.status(), state: 'stopped', pid: null });
    assert.equal(await sample(h.metrics, 'mcp_server_drain_duration_ms', '_count'), 1);
    assert.ok(h.logs.some((l) => l.event === 'mcp.stopped'));
    const afterClose = await h.supervisor.callTool('echo', { text: 'x' });
    assert.deepEqual(!afterClose.ok && afterClose.reason, 'unavailable');
    await h.supervisor.close();
  });

  it('leaves no timer or handle behind: a process that closes it exits on its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-exit-'));
    dirs.push(dir);
    const script = `
      const { createMcpSupervisor } = await import(${JSON.stringify(SUPERVISOR)});
      const { createMetrics } = await import(${JSON.stringify(fileURLToPath(new URL('../../metrics/registry.ts', import.meta.url)))});
      const { createSourceStats } = await import(${JSON.stringify(fileURLToPath(new URL('../../metrics/source-stats.ts', import.meta.url)))});
      const { systemClock } = await import(${JSON.stringify(fileURLToPath(new URL('../../core/clock.ts', import.meta.url)))});
      const metrics = createMetrics({ stats: createSourceStats(), agents: [], mcpServers: ['t1'] });
      const { waitFor } = await import(${JSON.stringify(fileURLToPath(new URL('../../../test/support/wait.ts', import.meta.url)))});
      const { existsSync, readFileSync } = await import('node:fs');
      const pings = ${JSON.stringify(join(dir, 'pings.txt'))};
      const config = { id: 't1', command: process.execPath, args: [${JSON.stringify(FIXTURE)}], env: { MCP_TEST_PINGS: pings }, callTimeoutMs: 3000,
        pingIntervalMs: 100, pingTimeoutMs: 100, drainTimeoutMs: 500, restart: { initialBackoffMs: 50, maxBackoffMs: 200 },
        circuit: { failureThreshold: 5, openMs: 300 }, rateLimit: { perSecond: 10, burst: 1 } };
      const s = createMcpSupervisor({ config, agentDir: ${JSON.stringify(dir)}, metrics: metrics.mcp, clock: systemClock,
        baseEnv: { PATH: process.env.PATH ?? '' }, log: () => {} });
      await s.start();
      const r = await Promise.all([s.callTool('echo', { text: 'a' }), s.callTool('echo', { text: 'b' })]);
      await waitFor('two pings answered', () => existsSync(pings) && readFileSync(pings, 'utf8').split('\\n').filter(Boolean).length >= 2);
      await s.close();
      console.log(JSON.stringify({ ok: r.every((x) => x.ok), pid: s.status().pid }));
      // Only shown if the process does not exit: what was still holding it right after close().
      console.error('active after close:', JSON.stringify(process.getActiveResourcesInfo()));
    `;
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: fileURLToPath(new URL('../../../', import.meta.url)), timeout: 20_000 },
        (error, out, err) => done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout: out, stderr: err }));
      child.stdin?.end();
    });
    assert.equal(code, 0, `exited on its own (stderr: ${stderr})`);
    assert.deepEqual(JSON.parse(stdout.trim()), { ok: true, pid: null });
  });
});
