/** `svc ps [--json] [--url URL] [--dir DIR]`: the daemon's /status as a table (or the JSON as served). */
import type { StatusSnapshot } from '../control-plane/routes/status-route.js';
import type { CliContext } from './context.js';
import { controlTarget, getJson } from './control-client.js';
import { checkOwnHome } from './own-home.js';
import { printTable } from './style.js';

export interface PsOptions {
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
}

export async function psCommand(opts: PsOptions, ctx: CliContext): Promise<number> {
  const target = controlTarget(ctx, opts);
  const status = (await getJson(target, '/status')) as StatusSnapshot;
  await checkOwnHome(ctx, target, opts, status);
  if (opts.json) {
    ctx.stdout(JSON.stringify(status, null, 2) + '\n');
    return 0;
  }
  const auth = status.controlPlane.auth.enabled ? `auth ${status.controlPlane.auth.provider ?? 'on'}` : 'no auth';
  ctx.stdout(`svc pid ${status.pid}, up ${status.uptimeSeconds} s since ${status.startedAt}; store ${status.store.kind}; ` +
    `control plane ${status.controlPlane.bind}:${status.controlPlane.port} (${auth})\n`);
  for (const agent of status.agents) {
    ctx.stdout(`\nagent ${agent.id}  ${agent.state}  provider ${agent.provider}\n`);
    printTable(ctx, ['SOURCE', 'TYPE', 'RECEIVED', 'PROCESSED', 'DLQ', 'INFLIGHT', 'SUMMARY'],
      agent.sources.map((s) => [s.id, s.type, String(s.received), String(s.processed), String(s.dlq), String(s.inflight), s.summary]));
    printTable(ctx, ['CHANNEL', 'TYPE', 'DIRECTION', 'READY'], agent.channels.map((c) => [c.id, c.type, c.direction, c.ready ? 'yes' : 'no']));
    if (agent.mcpServers.length > 0) {
      printTable(ctx, ['MCP SERVER', 'STATE', 'CIRCUIT', 'RESTARTS'], agent.mcpServers.map((m) => [m.id, m.state, m.circuit, String(m.restarts)]));
    }
  }
  // A daemon from before SIEM export has no `audit` key: print nothing rather than fail.
  if (status.audit) {
    const bp = status.audit.backpressure;
    ctx.stdout(`\naudit export  back-pressure ${bp.active ? 'ACTIVE' : 'off'}, ${bp.backlogRows} row(s) unacknowledged\n`);
    printTable(ctx, ['EXPORTER', 'TYPE', 'LAST SEQ', 'FAILING', 'LAST ERROR'],
      status.audit.exporters.map((e) => [e.id, e.type, String(e.lastSeq), e.failures > 0 ? `${e.failures}x` : 'no', e.lastError ?? '-']));
  }
  return 0;
}
