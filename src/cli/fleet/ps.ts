/**
 * `svc fleet ps`: GET /status of every selected host, one row per agent (a host without agents gets
 * one row of its own), in the order of fleet.yaml. `--json`: the snapshots, each with its `host`.
 */
import type { StatusSnapshot } from '../../control-plane/routes/status-route.js';
import type { CliContext } from '../context.js';
import { RuntimeError } from '../../core/errors.js';
import { getJson } from '../control-client.js';
import { formatTable } from '../table.js';
import { FLEET_CONCURRENCY, fanOut } from './fan-out.js';
import type { FleetOptions } from './hosts.js';
import { fleetTargets } from './hosts.js';
import type { HostReport } from './report.js';
import { completenessText, failureBrief, isComplete, writeEnvelope } from './report.js';

const COLUMNS = ['HOST', 'PID', 'UPTIME', 'AGENT', 'STATE', 'PROVIDER', 'RECEIVED', 'PROCESSED', 'DLQ', 'INFLIGHT', 'STORE'];

export async function fleetPsCommand(opts: FleetOptions, ctx: CliContext): Promise<number> {
  const targets = fleetTargets(opts, ctx);
  const settled = await fanOut(targets, FLEET_CONCURRENCY, async ({ target }) => asSnapshot(await getJson(target, '/status')));
  const reports: HostReport[] = [];
  const snapshots: Array<{ host: string; status: StatusSnapshot }> = [];
  settled.forEach((s, i) => {
    const name = targets[i]?.host.name ?? '?';
    reports.push(s.ok ? { name, ok: true, error: null } : { name, ok: false, error: failureBrief(s.error) });
    if (s.ok) snapshots.push({ host: name, status: s.value });
  });
  if (opts.json) {
    writeEnvelope(ctx, snapshots.map((s) => ({ host: s.host, item: s.status })), reports);
  } else {
    ctx.stdout(formatTable(COLUMNS, snapshots.flatMap(({ host, status }) => {
      const head = [host, String(status.pid), `${status.uptimeSeconds}s`];
      const store = status.store.kind;
      if (status.agents.length === 0) return [[...head, '-', '-', '-', '-', '-', '-', '-', store]];
      return status.agents.map((a) => {
        const sum = (k: 'received' | 'processed' | 'dlq' | 'inflight'): string => String(a.sources.reduce((n, src) => n + src[k], 0));
        return [...head, a.id, a.state, a.provider, sum('received'), sum('processed'), sum('dlq'), sum('inflight'), store];
      });
    })));
  }
  ctx.stderr(completenessText(reports));
  return isComplete(reports) ? 0 : 1;
}

/** The parts of /status the table reads; an answer without them is not svc's. */
function asSnapshot(body: unknown): StatusSnapshot {
  const s = body as Partial<StatusSnapshot> | null;
  const fine = s !== null && typeof s === 'object' && Array.isArray(s.agents) && typeof s.store === 'object' && s.store !== null
    && s.agents.every((a) => a !== null && typeof a === 'object' && Array.isArray(a.sources));
  if (!fine) throw new RuntimeError('EBADRESPONSE', '/status: the answer is not a status snapshot', 'not a status snapshot');
  return s as StatusSnapshot;
}
