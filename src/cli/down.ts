/**
 * `svc down`: SIGTERM to the daemon, then wait until it has drained and exited. It says `stopped` only
 * once the process is gone (its pid no longer runs), and otherwise that it is still running, exit 1 —
 * never what it merely expects. A daemon that has released its pid file but not yet exited (its last
 * output still being flushed) is found through up-state.json and waited for, not called "not running".
 */
import { homePaths, svcHome } from '../config/paths.js';
import type { CliContext } from './context.js';
import { processAlive, readState, runningPid, svcProcessAlive } from './daemon-files.js';

export const STOP_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export async function downCommand(ctx: CliContext): Promise<number> {
  const paths = homePaths(svcHome(ctx.env));
  const pid = runningPid(paths.pidFile);
  if (pid === null) {
    // The pid file goes just before the process exits: one still exiting is not "not running".
    const state = readState(paths.stateFile);
    const exiting = state !== null && (state.state === 'stopping' || state.state === 'stopped') && svcProcessAlive(state.pid);
    if (!exiting) {
      ctx.stdout('svc down: svc is not running\n');
      return 0;
    }
    ctx.stdout(`svc down: svc is already stopping (pid ${state.pid}); waiting for it to exit\n`);
    return waitForExit(state.pid, ctx, paths.upLog);
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPERM') {
      ctx.stderr(`svc down: not allowed to signal pid ${pid} (another user's daemon?); svc is still running\n`);
      return 1;
    }
    // ESRCH: it exited between the look and the signal; waitForExit sees it gone.
  }
  return waitForExit(pid, ctx, paths.upLog);
}

async function waitForExit(pid: number, ctx: CliContext, upLog: string): Promise<number> {
  const deadline = ctx.clock.monotonic() + STOP_TIMEOUT_MS;
  for (;;) {
    if (!processAlive(pid)) {
      ctx.stdout(`svc down: stopped (pid ${pid})\n`);
      return 0;
    }
    if (ctx.clock.monotonic() >= deadline) break;
    await ctx.clock.sleep(POLL_MS);
  }
  ctx.stderr(`svc down: svc is still running (pid ${pid}): it did not exit within ${STOP_TIMEOUT_MS / 1000} s; see ${upLog}\n`);
  return 1;
}
