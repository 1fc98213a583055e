/**
 * `svc ps [--json] [--url URL] [--dir DIR]`: the daemon's /status as tables (or the JSON as served): every
 * listener it reports (contract §25.3), then each agent's sources, channels and MCP servers.
 */
import type { StatusSnapshot } from '../control-plane/routes/status-route.js';
import type { CliContext } from './context.js';
import { controlTarget, getJson } from './control-client.js';
import { checkOwnHome } from './own-home.js';
import { printTable } from './style.js';
import { idColumn } from './table.js';
import { listenerAuthority } from '../config/source-url.js';

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
  // Two lines, so that 80 columns hold them; on a narrow terminal a source's SUMMARY (its URL, in the listeners
  // already, and how it authenticates) gives way.
  ctx.stdout(`svc pid ${status.pid}, up ${status.uptimeSeconds} s since ${status.startedAt}; store ${status.store.kind}\n` +
    `control plane ${listenerAuthority(status.controlPlane.bind, status.controlPlane.port, false)}, ${auth}\n`);
  // A shadow run (§22.3) must never be taken for the live pager: said first, and again on each agent.
  const shadow = status.agents.filter((a) => a.shadow === true).map((a) => a.id);
  if (shadow.length > 0) {
    ctx.stdout(`\nSHADOW RUN: ${shadow.join(', ')} ${shadow.length === 1 ? 'pages' : 'page'} nobody: every round is recorded, `
      + 'nothing is sent (svc shadow report)\n', 'bold');
  }
  // Every listener the daemon reports, whatever its kind (a daemon from before the list has none).
  if (status.listeners !== undefined && status.listeners.length > 0) {
    ctx.stdout('\n');
    printTable(ctx, ['LISTENER', { header: 'AGENT', drop: 2 }, { header: 'SOURCE', drop: 1 }, { header: 'ADDRESS', drop: 3 }, idColumn('URL')],
      status.listeners.map((l) => [l.kind, l.agent ?? '-', l.source ?? '-', listenerAuthority(l.bind, l.port, false), l.url]));
  }
  for (const agent of status.agents) {
    ctx.stdout(`\nagent ${agent.id}  ${agent.state}  provider ${agent.provider}${agent.shadow === true ? '  SHADOW: sends nothing' : ''}\n`);
    printTable(ctx, ['SOURCE', 'TYPE', 'RECEIVED', 'PROCESSED', 'DLQ', 'INFLIGHT', { header: 'SUMMARY', drop: 1 }],
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
    printTable(ctx, ['EXPORTER', 'TYPE', 'LAST SEQ', 'FAILING', { header: 'LAST ERROR', wrap: true }],
      status.audit.exporters.map((e) => [e.id, e.type, String(e.lastSeq), e.failures > 0 ? `${e.failures}x` : 'no', e.lastError ?? '-']));
  }
  return 0;
}
