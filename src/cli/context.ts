/** Everything a command touches outside itself, injected so tests can drive commands in-process. */
import { fstatSync, writeSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';
import type { TextStyle } from '../core/terminal-text.js';

export interface CliContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: Clock;
  pid: number;
  /**
   * Where output goes. Commands get these through the terminal-safe printer (style.ts
   * terminalContext): every control character shown, not obeyed, and `style` applied on a terminal.
   */
  stdout: (text: string, style?: TextStyle) => void;
  stderr: (text: string, style?: TextStyle) => void;
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
    stdout: safeWriter(process.stdout, 1),
    stderr: safeWriter(process.stderr, 2),
    readStdin: async () => {
      if (process.stdin.isTTY) return readHidden();
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

/**
 * One line typed on a terminal, never echoed (contract §13: `svc secret set` never shows a secret):
 * raw mode, a prompt on stderr, Enter ends it, Backspace edits, Ctrl-C or Ctrl-D gives up (empty).
 */
function readHidden(): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write('value (not echoed): ');
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve) => {
    let value = '';
    const done = (result: string): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(value);
        if (ch === '\u0003' || ch === '\u0004') return done('');
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * Writes to stdout or stderr that never take the process down. A file (`up.log` under `svc up -d`) is
 * written with writeSync, so a full disk loses the line and the next one goes out once space returns
 * (a stream would be destroyed by its first error, and an unhandled 'error' event would kill the
 * daemon); a pipe or terminal keeps its stream, with an error listener (EPIPE from `svc … | head`).
 */
function safeWriter(stream: NodeJS.WriteStream, fd: number): (text: string) => void {
  let isFile = false;
  try {
    isFile = fstatSync(fd).isFile();
  } catch {
    // no such descriptor: the stream decides
  }
  if (isFile) {
    return (text) => {
      try {
        writeSync(fd, text);
      } catch {
        // disk full or I/O error: the line is lost, the daemon goes on
      }
    };
  }
  stream.on('error', () => undefined);
  return (text) => void stream.write(text);
}
