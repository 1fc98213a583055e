/**
 * Supervision of one stdio MCP server (agent.yaml `mcpServers[]`): spawn, list tools, ping for liveness,
 * drain and restart with back-off when it exits, stops answering or floods (flood-budget.ts), a circuit breaker in front of its
 * calls, and a token bucket when `rateLimit` is set.
 *
 * One loop (`run`) owns the server's lives: it is the only code that spawns and kills. Callers only
 * read the current connection; a call keeps the connection it started on, so a respawn fails it
 * cleanly (the old transport closes) instead of moving it to the new process.
 */
import { resolve } from 'node:path';
import type { McpServerConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import { packageVersion } from '../../core/version.js';
import { CIRCUIT_STATE_VALUES } from '../../metrics/metric-names.js';
import type { McpMetrics } from '../../metrics/registry.js';
import { backoffMs } from '../../core/backoff.js';
import { createBoundedLines } from './bounded-lines.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { createFloodBudget } from './flood-budget.js';
import { linkSignals, startDeadline, withDeadline } from '../../core/deadline.js';
import type { McpConnection, OpenResult } from './mcp-connection.js';
import { createToolCaller } from './tool-call.js';
import type { McpLog, McpServerStatus, McpSupervisor, McpToolInfo } from './mcp-types.js';
import { describeExit } from './mcp-types.js';

export interface McpSupervisorDeps {
  config: McpServerConfig;
  agentDir: string;
  metrics: McpMetrics;
  clock: Clock;
  log: McpLog;
  /** The daemon's environment; only PATH and HOME are passed on, then config.env on top. */
  baseEnv: Readonly<Record<string, string | undefined>>;
}

/**
 * Bound of one start attempt (spawn, initialize, list tools): callTimeoutMs, but never below this floor,
 * because a short call timeout must not make a server that needs a second to boot (node, npx, uvx)
 * fail every start. There is no config knob for it yet.
 */
const MIN_START_TIMEOUT_MS = 10_000;
/** Between SIGTERM and SIGKILL when a server is stopped. */
const KILL_GRACE_MS = 2_000;
/** stderr and protocol noise: longest line kept, and at most this many lines per window go to the log. */
const LOG_LINE_CHARS = 2_000;
const LOG_LINES_PER_WINDOW = 50;
const LOG_WINDOW_MS = 10_000;
/** Bytes of stderr and of stdout noise (child-stdio-transport.ts) a server may send per LOG_WINDOW_MS before it counts as flooding. */
export const FLOOD_BYTES_PER_WINDOW = 1024 * 1024;
/**
 * stdout lines not asked for (notifications, requests of its own, garbage, blank lines) a server may
 * send per LOG_WINDOW_MS: 100 a second, far above what a server logs or reports, and a bound on the
 * JSON parsing a flood costs. Answers to the daemon's own requests never count.
 */
export const FLOOD_LINES_PER_WINDOW = 1_000;

type LifeEnd = 'exited' | 'unresponsive' | 'flooding' | 'stopped';

export function createMcpSupervisor(deps: McpSupervisorDeps): McpSupervisor {
  const { config, metrics, clock, log } = deps;
  const serverId = config.id;
  const labels = { server_id: serverId };
  const cwd = resolve(deps.agentDir, config.cwd ?? '.');
  const env = childEnv(deps.baseEnv, config.env);
  const clientVersion = packageVersion();
  const startTimeoutMs = Math.max(config.callTimeoutMs, MIN_START_TIMEOUT_MS);

  const breaker = createCircuitBreaker({
    failureThreshold: config.circuit.failureThreshold, openMs: config.circuit.openMs, clock,
    onChange(state) {
      metrics.circuitState.set(labels, CIRCUIT_STATE_VALUES[state]);
      if (state === 'open') metrics.circuitOpen.inc(labels);
      log(state === 'open' ? 'warn' : 'info', 'mcp.circuit', { serverId, state });
    },
  });

  let state: McpServerStatus['state'] = 'stopped';
  let current: McpConnection | null = null;
  let tools: McpToolInfo[] = [];
  let restarts = 0;
  /** The current life got an answer (ping or call): the next restart starts the back-off over. */
  let answered = false;
  const life = new AbortController(); // aborted by close()
  let started: Promise<void> | null = null;
  let loop: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  const waitingUp = new Set<(connection: McpConnection | null) => void>();
  /** Aborted when the current life floods (flood-budget.ts); a new one per start attempt. */
  let flooded = new AbortController();

  const caller = createToolCaller({
    config, metrics, clock, life: life.signal, breaker, log,
    upNow: () => (closing ? null : state === 'running' ? current : undefined),
    waitUp,
    onAnswer: () => { answered = true; },
  });

  /** Resolves with the connection once the server is up, or null once it is stopped. */
  function waitUp(signal: AbortSignal): Promise<McpConnection | null> {
    if (closing) return Promise.resolve(null);
    if (state === 'running' && current) return Promise.resolve(current);
    return new Promise((resolveUp) => {
      const onAbort = (): void => { waitingUp.delete(done); };
      const done = (c: McpConnection | null): void => {
        signal.removeEventListener('abort', onAbort);
        resolveUp(c);
      };
      waitingUp.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  function wake(connection: McpConnection | null): void {
    const waiters = [...waitingUp];
    waitingUp.clear();
    for (const w of waiters) w(connection);
  }

  /**
   * One start attempt. Awaits openMcpConnection itself rather than racing it: on a deadline or close()
   * that function returns only once the child is dead, so close() never leaves a half-started server.
   */
  async function connect(): Promise<McpConnection | null> {
    let pid: number | null = null;
    const bounded = (event: string, level: 'info' | 'warn') => createBoundedLines({
      clock, maxLineChars: LOG_LINE_CHARS, maxLines: LOG_LINES_PER_WINDOW, windowMs: LOG_WINDOW_MS,
      emit: (line, suppressed) => log(level, event, suppressed > 0 ? { serverId, pid, line, suppressed } : { serverId, pid, line }),
    });
    const stderr = bounded('mcp.stderr', 'info');
    const protocol = bounded('mcp.protocol_error', 'warn');
    const flood = new AbortController();
    flooded = flood;
    const budget = createFloodBudget({ clock, windowMs: LOG_WINDOW_MS, maxBytes: FLOOD_BYTES_PER_WINDOW, maxLines: FLOOD_LINES_PER_WINDOW });
    /** Counts noise; past the budget nothing more is read (the transport cuts the pipes), the life ends as `flooding`. */
    const noise = (bytes: number, lines: number): boolean => {
      if (flood.signal.aborted) return false;
      if (!budget.add(bytes, lines)) return true;
      log('warn', 'mcp.flooding', { serverId, pid, bytes: budget.bytes(), lines: budget.lines(), windowMs: LOG_WINDOW_MS,
        maxBytes: FLOOD_BYTES_PER_WINDOW, maxLines: FLOOD_LINES_PER_WINDOW });
      flood.abort();
      return false;
    };
    const deadline = startDeadline(startTimeoutMs, clock, life.signal);
    let opened: OpenResult;
    try {
      // The SDK is loaded with the first server's start: an agent without MCP servers never carries it.
      const { openMcpConnection } = await import('./mcp-connection.js');
      opened = await openMcpConnection({
        command: config.command, args: config.args, cwd, env, clientVersion, killGraceMs: KILL_GRACE_MS, clock,
        signal: deadline.signal, timeoutMs: startTimeoutMs,
        onStderr: (chunk, from) => { pid = from; if (noise(chunk.length, 0)) stderr.write(chunk); },
        onNoise: (bytes, lines) => { noise(bytes, lines); },
        mute: flood.signal,
        onProtocolError: (message) => protocol.write(`${message.replace(/\s*\n\s*/g, ' ')}\n`),
      });
    } finally {
      deadline.dispose();
    }
    const flush = (): void => { stderr.end(); protocol.end(); };
    if (opened.ok) {
      void opened.connection.exited.then(flush);
      return opened.connection;
    }
    flush();
    if (!life.signal.aborted) {
      const error = deadline.why() === 'timeout' ? `no answer within ${startTimeoutMs} ms` : opened.error;
      log('warn', 'mcp.start_failed', { serverId, error });
    }
    return null;
  }

  /** Until the child exits, stops answering pings, or the supervisor closes. */
  async function watch(connection: McpConnection): Promise<LifeEnd> {
    const over = new AbortController();
    const stop = linkSignals(life.signal, over.signal);
    const pinger = (async (): Promise<LifeEnd> => {
      for (;;) {
        await clock.sleep(config.pingIntervalMs, stop.signal);
        const ping = await withDeadline(config.pingTimeoutMs, clock, stop.signal, (s) => connection.ping(s, config.pingTimeoutMs));
        // A JSON-RPC error (e.g. -32601 from a server without ping) is still an answer: the server is alive.
        if (ping.ok || (ping.why === 'error' && connection.errorKind(ping.error) === 'server')) { answered = true; continue; }
        if (ping.why === 'aborted') return 'stopped';
        return ping.why === 'error' && connection.errorKind(ping.error) === 'closed' ? 'exited' : 'unresponsive';
      }
    })().catch((): LifeEnd => 'stopped'); // the interval sleep rejects once stopped
    const flood = flooded.signal;
    try {
      if (stop.signal.aborted) return 'stopped';
      if (flood.aborted) return 'flooding';
      const flooding = new Promise<LifeEnd>((resolveFlood) => {
        flood.addEventListener('abort', () => resolveFlood('flooding'), { once: true, signal: over.signal });
      });
      return await Promise.race([connection.exited.then((): LifeEnd => 'exited'), pinger, flooding]);
    } finally {
      over.abort(); // ends the pinger and its timers
      stop.dispose();
    }
  }

  async function retire(connection: McpConnection, pid: number | null, end: LifeEnd): Promise<void> {
    if (end === 'unresponsive') log('warn', 'mcp.unresponsive', { serverId, pid, pingTimeoutMs: config.pingTimeoutMs });
    const drainStarted = clock.now();
    await caller.drain(config.drainTimeoutMs);
    const drainMs = Math.max(0, clock.now() - drainStarted);
    metrics.drainDurationMs.observe(labels, drainMs);
    const exit = await connection.kill();
    log(end === 'stopped' ? 'info' : 'warn', 'mcp.exited', { serverId, pid, reason: end, exit: describeExit(exit), drainMs,
      stdoutLines: connection.stdoutLines() });
  }

  async function run(firstAttemptDone: () => void): Promise<void> {
    let failedLives = 0; // lives and start attempts in a row that ended without an answer
    for (let spawns = 0; !life.signal.aborted; spawns += 1) {
      if (spawns > 0) {
        const delayMs = backoffMs(config.restart, Math.max(1, failedLives));
        log('info', 'mcp.restarting', { serverId, attempt: failedLives, delayMs });
        try { await clock.sleep(delayMs, life.signal); } catch { break; }
        restarts += 1;
        metrics.restarts.inc(labels);
      }
      const connection = await connect();
      if (!connection) {
        if (life.signal.aborted) break;
        breaker.failure();
        failedLives += 1;
        state = 'restarting';
        firstAttemptDone();
        continue;
      }
      const pid = connection.pid();
      answered = false;
      tools = [...connection.tools];
      current = connection;
      if (!life.signal.aborted) { // close() may have come while the handshake finished: watch() then ends at once
        state = 'running';
        log('info', 'mcp.started', { serverId, pid, tools: tools.map((t) => t.name) });
        wake(connection);
      }
      firstAttemptDone();
      const end = await watch(connection);
      if (!life.signal.aborted) state = 'restarting';
      await retire(connection, pid, end);
      current = null;
      // A flooding server answered pings, but must not be restarted at once, again and again.
      if (end === 'flooding') breaker.failure();
      failedLives = answered && end !== 'flooding' ? 1 : failedLives + 1;
    }
  }

  return {
    id: serverId,
    start() {
      if (closing) return Promise.resolve();
      started ??= new Promise<void>((done) => {
        state = 'starting';
        loop = run(done).catch((error: unknown) => {
          log('error', 'mcp.supervisor_failed', { serverId, error: error instanceof Error ? error.message : String(error) });
        }).finally(done);
      });
      return started;
    },
    status: () => ({
      id: serverId, state, circuit: breaker.state(), restarts, pid: current?.pid() ?? null, tools: tools.map((t) => t.name),
    }),
    tools: () => tools.map((t) => ({ ...t })),
    callTool: (name, args, signal) => caller.call(name, args, signal),
    close() {
      closing ??= (async () => {
        if (state !== 'stopped') state = 'stopping';
        life.abort();
        wake(null);
        await loop;
        current = null;
        state = 'stopped';
        log('info', 'mcp.stopped', { serverId, restarts });
      })();
      return closing;
    },
  };
}

/** PATH and HOME of the daemon (mcpServerSchema: "a minimal environment"), then the server's own env. */
function childEnv(base: Readonly<Record<string, string | undefined>>, own: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'TZ'] as const) {
    const value = base[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...own };
}
