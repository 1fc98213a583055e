/**
 * One tool call through the supervisor: circuit, rate limit, waiting for the server to be up, the call
 * itself under callTimeoutMs, and the verdict for the circuit. Every path ends in a ToolCallResult.
 *
 * Verdicts: an answer from the server (a result, `isError` included, or a JSON-RPC error) is a success;
 * a timeout, a transport failure, a crash during the call or a server that is not up in time is a
 * failure; an abort by the caller, an unknown tool or a stop says nothing about the server.
 */
import type { McpServerConfig } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { McpMetrics } from '../../metrics/registry.js';
import { createTokenBucket } from '../rate-limit/token-bucket.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { linkSignals, rejectOnAbort, startDeadline, withDeadline } from '../../core/deadline.js';
import type { McpConnection, RawToolResult } from './mcp-connection.js';
import { errorText } from '../../core/errors.js';
import type { McpLog, ToolCallResult } from './mcp-types.js';

type Verdict = 'success' | 'failure' | 'none';
type Failure = Extract<ToolCallResult, { ok: false }>;

export interface ToolCaller {
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult>;
  /** Waits up to `ms` for the calls now at the server to settle. */
  drain(ms: number): Promise<void>;
}

export interface ToolCallerDeps {
  config: McpServerConfig;
  metrics: McpMetrics;
  clock: Clock;
  /** Aborted when the supervisor closes: ends rate-limit waits. */
  life: AbortSignal;
  breaker: CircuitBreaker;
  log: McpLog;
  /** The connection if the server is up now, null once stopped, undefined while (re)starting. */
  upNow(): McpConnection | null | undefined;
  waitUp(signal: AbortSignal): Promise<McpConnection | null>;
  /** The server answered a call: it is healthy enough to reset the restart back-off. */
  onAnswer(): void;
}

export function createToolCaller(deps: ToolCallerDeps): ToolCaller {
  const { config, metrics, clock, life, breaker, log } = deps;
  const serverId = config.id;
  const labels = { server_id: serverId };
  const timeoutMs = config.callTimeoutMs;
  const bucket = config.rateLimit ? createTokenBucket(config.rateLimit, { clock }) : null;
  const inflight = new Set<Promise<unknown>>();

  const fail = (reason: Failure['reason'], error: string): Failure => ({ ok: false, reason, error });
  const stopped = (): Failure => fail('unavailable', `MCP server ${serverId} is stopped`);
  const aborted = (): Failure => fail('aborted', 'the caller aborted the call');
  const unknownTool = (name: string): Failure => fail('unknown-tool', `MCP server ${serverId} has no tool "${name}"`);

  /** After the circuit let the call pass. */
  async function passed(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ verdict: Verdict; result: ToolCallResult }> {
    if (bucket) {
      const link = linkSignals(signal, life);
      try {
        const { waitedMs } = await bucket.take(link.signal);
        if (waitedMs > 0) metrics.rateLimited.inc(labels);
      } catch {
        return { verdict: 'none', result: signal?.aborted ? aborted() : stopped() };
      } finally {
        link.dispose();
      }
    }
    // One deadline for waiting until the server is up and for the call itself.
    const deadline = startDeadline(timeoutMs, clock, signal);
    try {
      let connection: McpConnection | null;
      try {
        connection = await Promise.race([deps.waitUp(deadline.signal), rejectOnAbort(deadline.signal)]);
      } catch {
        if (deadline.why() === 'aborted') return { verdict: 'none', result: aborted() };
        return { verdict: 'failure', result: fail('unavailable', `MCP server ${serverId} was not up within ${timeoutMs} ms`) };
      }
      if (!connection) return { verdict: 'none', result: stopped() };
      if (!connection.tools.some((t) => t.name === name)) return { verdict: 'none', result: unknownTool(name) };
      const call = Promise.race([connection.callTool(name, args, deadline.signal, timeoutMs), rejectOnAbort(deadline.signal)]);
      const settled = call.then(() => {}, () => {});
      inflight.add(settled);
      void settled.finally(() => inflight.delete(settled));
      let raw: RawToolResult;
      try {
        raw = await call;
      } catch (error) {
        const why = deadline.why();
        if (why === 'aborted') return { verdict: 'none', result: aborted() };
        if (why === 'timeout' || connection.errorKind(error) === 'timeout') return { verdict: 'failure', result: fail('timeout', `no answer within ${timeoutMs} ms`) };
        // close() killed the server after the drain: a shutdown, not a server failure for the circuit.
        const answered = connection.errorKind(error) === 'server';
        if (life.aborted && !answered) return { verdict: 'none', result: fail('unavailable', `MCP server ${serverId} stopped during the call`) };
        if (answered) {
          deps.onAnswer();
          return { verdict: 'success', result: fail('failed', `MCP server ${serverId} answered with an error: ${errorText(error)}`) };
        }
        return { verdict: 'failure', result: fail('failed', `MCP server ${serverId} failed during the call: ${errorText(error)}`) };
      }
      deps.onAnswer();
      return { verdict: 'success', result: { ok: true, isError: raw.isError, text: textOf(raw.content), content: raw.content } };
    } finally {
      deadline.dispose();
    }
  }

  return {
    async call(name, args, signal) {
      if (deps.upNow() === null) return stopped();
      if (signal?.aborted) return aborted();
      const up = deps.upNow();
      // While (re)starting the list may still change: the check is repeated once the server is up.
      if (up && !up.tools.some((t) => t.name === name)) return unknownTool(name);
      if (!breaker.tryPass()) return fail('circuit-open', `circuit of MCP server ${serverId} is open after repeated failures`);
      const startedAt = clock.now();
      let verdict: Verdict = 'none';
      try {
        const outcome = await passed(name, args, signal);
        verdict = outcome.verdict;
        if (verdict === 'failure' && !outcome.result.ok) {
          // Tool name, outcome and duration only: arguments may carry anything.
          log('warn', 'mcp.call_failed', { serverId, tool: name, outcome: outcome.result.reason, durationMs: clock.now() - startedAt });
        }
        return outcome.result;
      } catch (error) {
        // A bug, not an expected failure; still never let it escape to the caller.
        verdict = 'failure';
        return fail('failed', errorText(error));
      } finally {
        if (verdict === 'success') breaker.success();
        else if (verdict === 'failure') breaker.failure();
        else breaker.abandon();
      }
    },
    async drain(ms) {
      if (inflight.size === 0 || ms <= 0) return;
      await withDeadline(ms, clock, undefined, () => Promise.allSettled([...inflight]));
    },
  };
}

/** The text parts of a tool result, one per line. */
function textOf(content: unknown[]): string {
  return content
    .filter((c): c is { type: 'text'; text: string } => typeof c === 'object' && c !== null
      && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string')
    .map((c) => c.text)
    .join('\n');
}
