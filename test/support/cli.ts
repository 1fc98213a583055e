/** The CLI in-process (runCli with an injected CliContext), for unit tests of commands. */
import type { CliContext } from '../../src/cli/context.js';
import type { Clock } from '../../src/core/clock.js';
import { systemClock } from '../../src/core/clock.js';

export interface CliHarness {
  ctx: CliContext;
  out(): string;
  err(): string;
  /** Delivers SIGINT to a command waiting for one (logs -f). */
  interrupt(): void;
}

export function cliHarness(env: NodeJS.ProcessEnv, cwd: string, clock: Clock = systemClock): CliHarness {
  let out = '';
  let err = '';
  let fire: (sig: string) => void = () => undefined;
  const signal = new Promise<string>((resolve) => { fire = resolve; });
  return {
    ctx: {
      env, cwd, clock, pid: process.pid,
      stdout: (t) => { out += t; }, stderr: (t) => { err += t; },
      readStdin: () => Promise.resolve(''), waitForSignal: () => signal, mainScript: '',
    },
    out: () => out,
    err: () => err,
    interrupt: () => fire('SIGINT'),
  };
}
