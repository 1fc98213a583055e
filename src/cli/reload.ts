/**
 * `svc reload`: asks the running daemon, through its admin socket, to load and validate its
 * configuration again and apply what can change live (daemon/config-reload.ts). Exit 0 when applied;
 * exit 1 when refused — the file:line:col of an invalid file, or the keys that need a restart —
 * while the old configuration keeps serving; exit 1 when no daemon runs in this $SVC_HOME.
 */
import { homePaths, svcHome } from '../config/paths.js';
import { EXIT } from '../core/errors.js';
import type { AdminResponse } from '../daemon/admin-protocol.js';
import { adminRequest } from './admin-client.js';
import type { CliContext } from './context.js';

/** Loading and validating every file takes well under a second; a busy machine gets room. */
const RELOAD_TIMEOUT_MS = 60_000;

export async function reloadCommand(opts: { json?: boolean }, ctx: CliContext): Promise<number> {
  const paths = homePaths(svcHome(ctx.env));
  const response = await adminRequest(paths.adminSocket, { op: 'config.reload' }, { clock: ctx.clock, timeoutMs: RELOAD_TIMEOUT_MS });
  if (response === null) {
    ctx.stderr(`svc reload: svc is not running in ${svcHome(ctx.env)} (no daemon answers on ${paths.adminSocket})\n`);
    return EXIT.runtime;
  }
  if (opts.json) ctx.stdout(`${JSON.stringify(response)}\n`);
  if (!response.ok) {
    if (!opts.json) ctx.stderr(`svc reload: refused; the running configuration stays.\n${response.error}\n`);
    return EXIT.runtime;
  }
  if (!opts.json) ctx.stdout(reloadText(response as Extract<AdminResponse, { op: 'config.reload' }>));
  return EXIT.ok;
}

/** What a person reads after a reload that applied: the files that changed, then what changed per agent. */
export function reloadText(r: Extract<AdminResponse, { op: 'config.reload' }>): string {
  if (r.files.length === 0 && r.agents.length === 0) return 'svc reload: applied; no file changed\n';
  const lines = [`svc reload: applied; ${r.files.length} file(s) changed`];
  for (const f of r.files) lines.push(`  ${f.path}${f.sha256 === null ? ' (removed)' : ''}`);
  for (const a of r.agents) {
    const parts = [
      a.channelsAdded.length > 0 ? `channels added: ${a.channelsAdded.join(', ')}` : null,
      a.channelsRemoved.length > 0 ? `channels removed: ${a.channelsRemoved.join(', ')}` : null,
      a.channelsChanged.length > 0 ? `channels changed: ${a.channelsChanged.join(', ')}` : null,
      a.keys.length > 0 ? `agent.yaml: ${a.keys.join(', ')}` : null,
    ].filter((p) => p !== null);
    lines.push(`  agent ${a.agentId}: ${parts.join('; ')}`);
  }
  return `${lines.join('\n')}\n`;
}
