/** Everything a command touches outside itself, injected so tests can drive commands in-process. */
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';

export interface CliContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: Clock;
  pid: number;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string>;
  /** Resolves with the name of the first SIGINT/SIGTERM received. */
  waitForSignal: () => Promise<string>;
  /** Calls `fn` on every SIGHUP (which then no longer stops the process); returns the unsubscribe. */
  onHangup?: (fn: () => void) => () => void;
  /** Terminal width of stdout, or null when stdout is not a terminal (tables, contract §13). */
  columns?: () => number | null;
  /** Path of the CLI entry script, to spawn the detached daemon. */
  mainScript: string;
  /** Present in a daemon spawned by `svc up -d`: tells the waiting parent it is ready or failed. */
  notifyParent?: (message: unknown) => void;
}

export function systemContext(mainScript: string): CliContext {
  return {
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
    pid: process.pid,
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    waitForSignal: () =>
      new Promise((resolve) => {
        const on = (sig: string) => () => resolve(sig);
        process.once('SIGINT', on('SIGINT'));
        process.once('SIGTERM', on('SIGTERM'));
      }),
    onHangup: (fn) => {
      process.on('SIGHUP', fn);
      return () => void process.off('SIGHUP', fn);
    },
    columns: () => (process.stdout.isTTY ? process.stdout.columns : null),
    mainScript,
    notifyParent: process.send ? (message) => void process.send?.(message) : undefined,
  };
}
