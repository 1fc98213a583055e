/** What the MCP supervisor offers its callers, and the shapes its parts share. */
import type { CircuitState } from '../../metrics/metric-names.js';

export interface McpToolInfo { name: string; description?: string; inputSchema: unknown }

export interface McpServerStatus {
  id: string;
  /** `stopped` before start() and after close(). */
  state: 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped';
  circuit: CircuitState;
  /** Respawns since start (the first spawn is not one). */
  restarts: number;
  pid: number | null;
  tools: string[];
}

export type ToolCallResult =
  /** `isError`: the tool itself reported an error (MCP isError) — not a server failure. */
  | { ok: true; isError: boolean; text: string; content: unknown[] }
  | { ok: false; reason: 'circuit-open' | 'unavailable' | 'timeout' | 'unknown-tool' | 'aborted' | 'failed'; error: string };

export interface McpSupervisor {
  readonly id: string;
  /**
   * Spawns the server and lists its tools. Resolves after the first attempt succeeds or fails (bounded); never rejects for a
   * failing server — it keeps restarting in the background.
   */
  start(): Promise<void>;
  status(): McpServerStatus;
  tools(): McpToolInfo[];
  /** Never throws, never hangs past callTimeoutMs (+ rate-limit wait). */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult>;
  /**
   * Drains in-flight calls (bounded by drainTimeoutMs, observed in mcp_server_drain_duration_ms), terminates the child (SIGTERM
   * then SIGKILL), releases every timer. Idempotent.
   */
  close(): Promise<void>;
}

export type McpLog = (level: 'info' | 'warn' | 'error', event: string, fields: Record<string, unknown>) => void;

/** How an MCP server's process ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function describeExit(exit: ChildExit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code ?? 'unknown'}`;
}
