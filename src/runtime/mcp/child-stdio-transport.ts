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
 *
 * What the server sends that the daemon did not ask for is noise, counted for the supervisor's flood
 * budget (flood-budget.ts): every stdout line but the answer to a request it sent — a line that is not
 * JSON-RPC, a blank line, a notification, a request of the server's own, an answer to no pending
 * request — and the bytes of a dropped over-long line. Answers are bounded by what the daemon sends;
 * noise only by the budget. Once `mute` aborts (the server floods), nothing more is read: its pipes
 * are cut, so a flood costs a bounded number of lines, not a core for as long as it lasts.
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
  /** Lines read from the server's stdout so far (every line framed: asked for or not, blank, malformed). */
  stdoutLines(): number;
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
  /**
   * Noise on stdout, for the supervisor's flood budget: `lines` lines not asked for, or bytes of a line
   * over MAX_MESSAGE_BYTES dropped as it streams (`lines` 1 when such a line begins, then 0).
   */
  onNoise: (bytes: number, lines: number) => void;
  /** Aborted when the server floods: stop reading it (its pipes are cut; it is killed next). */
  mute?: AbortSignal;
}

/** Largest JSON-RPC message accepted from the server (the SDK's default, 10 MiB); a longer line is dropped. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/**
 * Ids of requests sent and still unanswered that are remembered (the SDK cancels, and says so, a
 * request that times out: far fewer are ever pending); past this the oldest is forgotten, and its
 * late answer counts as noise.
 */
const MAX_AWAITED = 10_000;

export function createChildStdioTransport(options: ChildStdioOptions): ChildStdioTransport {
  /** Ids of the requests sent and not yet answered or cancelled: their answers are the only lines asked for. */
  const awaited = new Set<string | number>();
  let lines = 0;
  const muted = (): boolean => options.mute?.aborted === true;
  const framer = createLineFramer({
    maxLineBytes: MAX_MESSAGE_BYTES,
    onLine(line, bytes) {
      lines += 1;
      let message: JSONRPCMessage | null = null;
      let error: Error | null = null;
      if (line !== '') {
        try {
          message = deserializeMessage(line);
        } catch (err) {
          error = err as Error;
        }
      }
      // Counted before it is handled: the line that makes a flood is the last one handled.
      if (message === null || !answersAwaited(message)) options.onNoise(bytes, 1);
      if (muted()) return;
      if (error !== null) transport.onerror?.(error); // a line that is not JSON-RPC: skipped
      else if (message !== null) transport.onmessage?.(message);
    },
    onDropped(bytes, first) {
      if (first) transport.onerror?.(new Error(`a message over ${MAX_MESSAGE_BYTES} bytes was dropped`));
      options.onNoise(bytes, first ? 1 : 0);
    },
  });
  /** An answer (no method) to a request this side sent and that is still pending; it is pending no more. */
  const answersAwaited = (message: JSONRPCMessage): boolean =>
    'id' in message && !('method' in message) && message.id !== undefined && awaited.delete(message.id);
  const remember = (message: JSONRPCMessage): void => {
    if ('method' in message && 'id' in message) {
      awaited.add(message.id);
      if (awaited.size > MAX_AWAITED) awaited.delete(awaited.values().next().value as string | number);
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') awaited.delete(id);
    }
  };
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

  /** Cuts the pipes the server writes to: it blocks or fails on its next write, and is killed next. */
  const stopReading = (): void => {
    framer.stop();
    child?.stdout?.destroy();
    child?.stderr?.destroy();
  };
  options.mute?.addEventListener('abort', stopReading, { once: true });

  const transport: ChildStdioTransport = {
    pid: () => (exitInfo ? null : pid),
    stdoutLines: () => lines,
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
          if (muted()) stopReading();
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
          options.mute?.removeEventListener('abort', stopReading);
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
      remember(message);
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
