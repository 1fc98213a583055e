/**
 * One life of an MCP server: the child process, the SDK Client speaking to it, and the tools it listed.
 * openMcpConnection never leaves a child behind: when the handshake or the tool listing fails or is
 * aborted, it kills the child before it returns.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../core/clock.js';
import { rejectOnAbort } from '../../core/deadline.js';
import { errorText } from '../../core/errors.js';
import type { ChildExit } from './mcp-types.js';
import { createChildStdioTransport } from './child-stdio-transport.js';
import type { McpToolInfo } from './mcp-types.js';
import { describeExit } from './mcp-types.js';

export interface RawToolResult {
  content: unknown[];
  isError: boolean;
}

/**
 * How a failed request ended: `closed` (the transport closed under it), `timeout` (the SDK's own
 * request timer), `server` (a JSON-RPC error the server itself sent: it is alive and answering),
 * `other`. Asked of the connection so that the callers never load the SDK themselves.
 */
export type McpErrorKind = 'closed' | 'timeout' | 'server' | 'other';

export interface McpConnection {
  /** null once the child has exited. */
  pid(): number | null;
  /** Lines read from the server's stdout in this life. */
  stdoutLines(): number;
  readonly tools: readonly McpToolInfo[];
  /** Resolves when the child has exited (crash, kill or a transport failure that killed it). */
  readonly exited: Promise<ChildExit>;
  /** Rejects on transport failure or when `signal` aborts; tool errors resolve with isError. */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<RawToolResult>;
  ping(signal: AbortSignal, timeoutMs: number): Promise<void>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the child is gone. Idempotent. */
  kill(): Promise<ChildExit>;
  errorKind(error: unknown): McpErrorKind;
}

export interface OpenOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  clientVersion: string;
  killGraceMs: number;
  clock: Clock;
  /** Aborting it (deadline, close) fails the attempt and kills the child. */
  signal: AbortSignal;
  /** Upper bound for the SDK's own request timers; the signal is what normally ends a wait. */
  timeoutMs: number;
  onStderr: (chunk: Buffer, pid: number | null) => void;
  /** Messages the server sent that are not valid JSON-RPC, and similar protocol noise. */
  onProtocolError: (message: string) => void;
  /** Noise on stdout, not asked for (child-stdio-transport.ts): for the flood budget. */
  onNoise: (bytes: number, lines: number) => void;
  /** Aborted when the server floods: nothing more of it is read. */
  mute: AbortSignal;
}

export type OpenResult = { ok: true; connection: McpConnection } | { ok: false; error: string };

/** Guards against a server whose cursors never end. */
const MAX_TOOL_PAGES = 100;
/** The SDK arms its own timer per request; ours (the signal) should fire first. */
const SDK_TIMER_SLACK_MS = 1_000;

export async function openMcpConnection(o: OpenOptions): Promise<OpenResult> {
  const transport = createChildStdioTransport({
    command: o.command, args: o.args, cwd: o.cwd, env: o.env, killGraceMs: o.killGraceMs, clock: o.clock, onStderr: o.onStderr,
    onNoise: o.onNoise, mute: o.mute,
  });
  const client = new Client({ name: 'svc', version: o.clientVersion }, { capabilities: {} });
  client.onerror = (error) => o.onProtocolError(error.message);
  const sdkTimeout = o.timeoutMs + SDK_TIMER_SLACK_MS;
  try {
    const tools = await Promise.race([
      (async () => {
        await client.connect(transport, { signal: o.signal, timeout: sdkTimeout });
        return listAllTools(client, o.signal, sdkTimeout);
      })(),
      rejectOnAbort(o.signal),
      // A server that exits during the handshake: fail now rather than at the deadline.
      transport.exited.then((exit) => Promise.reject(new Error(`exited during start (${describeExit(exit)})`))),
    ]);
    return { ok: true, connection: connection(client, transport, tools) };
  } catch (error) {
    await transport.kill();
    return { ok: false, error: errorText(error) };
  }
}

function connection(client: Client, transport: ReturnType<typeof createChildStdioTransport>, tools: McpToolInfo[]): McpConnection {
  return {
    pid: () => transport.pid(),
    stdoutLines: () => transport.stdoutLines(),
    tools,
    exited: transport.exited,
    async callTool(name, args, signal, timeoutMs) {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs + SDK_TIMER_SLACK_MS });
      return { content: Array.isArray(result.content) ? (result.content as unknown[]) : [], isError: result.isError === true };
    },
    async ping(signal, timeoutMs) {
      await client.ping({ signal, timeout: timeoutMs + SDK_TIMER_SLACK_MS });
    },
    kill: () => transport.kill(),
    errorKind,
  };
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout });
    for (const t of result.tools) {
      tools.push(t.description === undefined ? { name: t.name, inputSchema: t.inputSchema }
        : { name: t.name, description: t.description, inputSchema: t.inputSchema });
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

/** The SDK rejects pending requests with McpError ConnectionClosed when the transport closes. */
function errorKind(error: unknown): McpErrorKind {
  if (!(error instanceof McpError)) return 'other';
  if (error.code === Number(ErrorCode.ConnectionClosed)) return 'closed';
  if (error.code === Number(ErrorCode.RequestTimeout)) return 'timeout';
  return 'server';
}
