/** `svc down`: SIGTERM to the daemon, then wait until it has drained and exited. */
import { homePaths, svcHome } from '../config/paths.js';
import type { CliContext } from './context.js';
import { processAlive, runningPid } from './daemon-files.js';

const STOP_TIMEOUT_MS = 60_000;

export async function downCommand(ctx: CliContext): Promise<number> {
  const paths = homePaths(svcHome(ctx.env));
  const pid = runningPid(paths.pidFile);
  if (pid === null) {
    ctx.stdout('svc down: svc is not running\n');
    return 0;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = ctx.clock.now() + STOP_TIMEOUT_MS;
  while (ctx.clock.now() < deadline) {
    if (!processAlive(pid)) {
      ctx.stdout(`svc down: stopped (pid ${pid})\n`);
      return 0;
    }
    await ctx.clock.sleep(100);
  }
  ctx.stderr(`svc down: pid ${pid} did not stop within ${STOP_TIMEOUT_MS / 1000} s\n`);
  return 1;
}
