/**
 * The MCP stdio transport of one server child process (newline-delimited JSON-RPC on stdin/stdout).
 *
 * Written here instead of using the SDK's StdioClientTransport, whose message encoding it reuses
 * (serializeMessage, deserializeMessage; the framing is line-framer.ts, linear where the SDK's
 * ReadBuffer copies its whole buffer per chunk), because that class (1) always merges HOME, LOGNAME, PATH, SHELL, TERM
 * and USER from the daemon's own process.env into the child's environment, while mcpServerSchema
 * promises the server only PATH and HOME plus its `env`; (2) stops the child on its own fixed 2 s + 2 s
 * timers and keeps neither the exit code nor the signal; (3) signals only the direct child, so a
 * launcher such as `npx`/`uvx` could leave the real server behind.
 *
 * The child leads its own process group (`detached`), and SIGTERM/SIGKILL go to the whole group.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../core/clock.js';
import { createLineFramer } from './line-framer.js';
import type { ChildExit } from './mcp-types.js';

/** How long the pipes of an exited server may stay open (held by its helpers) before they are destroyed. */
const PIPES_GRACE_MS = 1_000;

export interface ChildStdioTransport extends Transport {
  pid(): number | null;
  /** Resolves once the child has exited and its pipes are closed (also after a failed spawn, or if it never started). */
  readonly exited: Promise<ChildExit>;
  /** SIGTERM to the process group, SIGKILL after killGraceMs; resolves on exit. Idempotent. */
  kill(): Promise<ChildExit>;
}

export interface ChildStdioOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string>;
  killGraceMs: number;
  clock: Clock;
  onStderr: (chunk: Buffer, pid: number | null) => void;
  /** Bytes of stdout lines over MAX_MESSAGE_BYTES, dropped as they stream (the supervisor's flood budget). */
  onDropped: (bytes: number) => void;
}

/** Largest JSON-RPC message accepted from the server (the SDK's default, 10 MiB); a longer line is dropped. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export function createChildStdioTransport(options: ChildStdioOptions): ChildStdioTransport {
  const framer = createLineFramer({
    maxLineBytes: MAX_MESSAGE_BYTES,
    onLine(line) {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        transport.onerror?.(error as Error); // a line that is not JSON-RPC: skipped
        return;
      }
      transport.onmessage?.(message);
    },
    onDropped(bytes, first) {
      if (first) transport.onerror?.(new Error(`a message over ${MAX_MESSAGE_BYTES} bytes was dropped`));
      options.onDropped(bytes);
    },
  });
  let child: ChildProcess | null = null;
  let pid: number | null = null;
  let exitInfo: ChildExit | null = null;
  let killing: Promise<ChildExit> | null = null;
  let starting: Promise<void> | null = null;
  let resolveExited!: (exit: ChildExit) => void;
  const exited = new Promise<ChildExit>((r) => { resolveExited = r; });

  const signalGroup = (signal: NodeJS.Signals): void => {
    if (pid === null || exitInfo) return;
    try {
      process.kill(-pid, signal); // negative pid: the process group the detached child leads
    } catch {
      try { child?.kill(signal); } catch { /* already gone */ }
    }
  };

  const transport: ChildStdioTransport = {
    pid: () => (exitInfo ? null : pid),
    exited,

    start() {
      if (starting) return Promise.reject(new Error('transport already started'));
      starting = new Promise<void>((resolve, reject) => {
        const proc = spawn(options.command, [...options.args], {
          cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, shell: false,
        });
        child = proc;
        proc.once('spawn', () => {
          pid = proc.pid ?? null;
          resolve();
        });
        proc.on('error', (error) => {
          // Before 'spawn': the command could not start (ENOENT, EACCES, bad cwd); 'close' follows.
          if (pid === null) reject(error);
          else transport.onerror?.(error);
        });
        const pipesGrace = new AbortController();
        proc.once('exit', () => {
          // Helpers the server started may still hold its stdout open; 'close' waits for them.
          const leader = pid;
          if (leader !== null) try { process.kill(-leader, 'SIGKILL'); } catch { /* group already empty */ }
          // A helper in a session of its own escapes the group kill and can hold the pipes for ever:
          // after a grace period, let go of them so 'close' (and so `exited`) always comes.
          void options.clock.sleep(PIPES_GRACE_MS, pipesGrace.signal).then(() => {
            for (const stream of [proc.stdin, proc.stdout, proc.stderr]) stream?.destroy();
          }, () => undefined);
        });
        proc.once('close', (code, signal) => {
          pipesGrace.abort();
          exitInfo = { code, signal };
          framer.clear();
          resolveExited(exitInfo);
          transport.onclose?.();
        });
        // EPIPE after the child died: reported by 'close', not worth an exception.
        proc.stdin?.on('error', () => {});
        proc.stdout?.on('data', (chunk: Buffer) => framer.write(chunk));
        proc.stdout?.on('error', () => {});
        proc.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk, pid));
        proc.stderr?.on('error', () => {});
      });
      return starting;
    },

    send(message) {
      const stdin = child?.stdin;
      if (!stdin || exitInfo || !stdin.writable) return Promise.reject(new Error('Not connected'));
      return new Promise<void>((resolve) => {
        if (stdin.write(serializeMessage(message))) resolve();
        else {
          stdin.once('drain', resolve);
          void exited.then(() => resolve()); // a child that died with a full pipe never drains it
        }
      });
    },

    kill() {
      killing ??= (async () => {
        // A kill during spawn waits for the pid, so the group can be signalled.
        await starting?.catch(() => {});
        if (!child) {
          exitInfo ??= { code: null, signal: null };
          resolveExited(exitInfo);
          return exitInfo;
        }
        if (!exitInfo) {
          try { child.stdin?.end(); } catch { /* already closed */ }
          signalGroup('SIGTERM');
          const grace = new AbortController();
          const graceOver = options.clock.sleep(options.killGraceMs, grace.signal).then(() => true, () => false);
          const overdue = await Promise.race([exited.then(() => false), graceOver]);
          grace.abort(); // releases the grace timer when the child went in time
          if (overdue) signalGroup('SIGKILL');
        }
        return exited;
      })();
      return killing;
    },

    async close() {
      await transport.kill();
    },
  };
  return transport;
}
