/**
 * `svc fleet ps`: GET /status of every selected host, one row per agent (a host without agents gets
 * one row of its own), in the order of fleet.yaml. `--json`: the snapshots, each with its `host`.
 */
import type { StatusSnapshot } from '../../control-plane/routes/status-route.js';
import type { CliContext } from '../context.js';
import { RuntimeError } from '../../core/errors.js';
import { getJson } from '../control-client.js';
import { printTable } from '../style.js';
import type { Column } from '../table.js';
import { FLEET_CONCURRENCY, fanOut } from './fan-out.js';
import type { FleetOptions } from './hosts.js';
import { fleetTargets } from './hosts.js';
import { withinHostDeadline } from './host-limits.js';
import type { HostReport } from './report.js';
import { completenessText, failureBrief, isComplete, writeEnvelope } from './report.js';

/** On a narrow terminal the columns that say least about an agent's health give way first: the store kind, then pid, uptime, provider, inflight. */
export const FLEET_PS_COLUMNS: Column[] = [{ header: 'HOST' }, { header: 'PID', drop: 4 }, { header: 'UPTIME', drop: 3 }, { header: 'AGENT' }, { header: 'STATE' },
  { header: 'PROVIDER', drop: 2 }, { header: 'RECEIVED' }, { header: 'PROCESSED' }, { header: 'DLQ' }, { header: 'INFLIGHT', drop: 1 },
  { header: 'STORE', drop: 5 }];

export async function fleetPsCommand(opts: FleetOptions, ctx: CliContext): Promise<number> {
  const targets = fleetTargets(opts, ctx);
  const settled = await fanOut(targets, FLEET_CONCURRENCY, ({ host, target }) =>
    withinHostDeadline(host, ctx.clock, undefined, async (signal) => asSnapshot(await getJson(target, '/status', undefined, signal))));
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
    printTable(ctx, FLEET_PS_COLUMNS, snapshots.flatMap(({ host, status }) => {
      const head = [host, String(status.pid), `${status.uptimeSeconds}s`];
      const store = status.store.kind;
      if (status.agents.length === 0) return [[...head, '-', '-', '-', '-', '-', '-', '-', store]];
      return status.agents.map((a) => {
        const sum = (k: 'received' | 'processed' | 'dlq' | 'inflight'): string => String(a.sources.reduce((n, src) => n + src[k], 0));
        return [...head, a.id, a.state, a.provider, sum('received'), sum('processed'), sum('dlq'), sum('inflight'), store];
      });
    }));
  }
  ctx.stderr(completenessText(reports));
  return isComplete(reports) ? 0 : 1;
}

/**
 * Every part of /status the table and the envelope read, checked for each host on its own: one odd
 * host (no `store.kind`, an agent without `id`) is that host's failure, never the whole command's.
 */
function asSnapshot(body: unknown): StatusSnapshot {
  if (!isStatus(body)) throw new RuntimeError('EBADRESPONSE', '/status: the answer is not a status snapshot', 'not a status snapshot');
  return body as StatusSnapshot;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isStatus(s: unknown): boolean {
  return isObject(s) && isCount(s.pid) && typeof s.uptimeSeconds === 'number' && Number.isFinite(s.uptimeSeconds)
    && isObject(s.store) && typeof s.store.kind === 'string'
    && Array.isArray(s.agents) && s.agents.every((a: unknown) => isObject(a)
      && typeof a.id === 'string' && typeof a.state === 'string' && typeof a.provider === 'string'
      && Array.isArray(a.sources) && a.sources.every((src: unknown) => isObject(src)
        && isCount(src.received) && isCount(src.processed) && isCount(src.dlq) && isCount(src.inflight)));
}
