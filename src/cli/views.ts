/**
 * `svc events`, `svc dlq`, `svc audit [--verify]`: the paginated views of the control plane, every page
 * followed, as a table or `--json` (`{"items": [...]}`, plus `"verify"` for audit --verify).
 * The view descriptions (path, filters, columns) are shared with `svc fleet` (cli/fleet/).
 */
import type { VerifyResult } from '../audit/chain.js';
import type { AuditRow } from '../audit/audit-row.js';
import type { Clock } from '../core/clock.js';
import type { DeadLetterRecord, EventRecord } from '../store/store.js';
import type { CliContext } from './context.js';
import { controlTarget, getAllPages } from './control-client.js';
import { intFlag } from './fleet/options.js';
import { printTable } from './style.js';
import { timeArg } from './time-arg.js';

export interface ViewOptions {
  json: boolean;
  url?: string;
  /** Agent directory whose controlPlane.auth says how to get a token (token-source.ts). */
  dir?: string;
  limit?: string;
  order?: string;
  since?: string;
  until?: string;
  agent?: string;
  source?: string;
  kind?: string;
  reason?: string;
  verify?: boolean;
}

export type ViewFilter = 'agent' | 'source' | 'kind' | 'reason';

/** One paginated view as the CLI shows it. */
export interface CliView<T> {
  name: 'events' | 'dlq' | 'audit';
  path: string;
  /** The view's exact-match filters (contract §5). */
  filters: readonly ViewFilter[];
  /** The listener's default order (contract §5). */
  defaultOrder: 'asc' | 'desc';
  /** `--verify` is accepted. */
  verify: boolean;
  columns: readonly string[];
  row: (item: T) => string[];
  /** What follows time (and host) when rows are merged: `id`, or `seq` for audit rows. */
  key: (item: T) => string | number;
}

export const eventsView: CliView<EventRecord> = {
  name: 'events', path: '/events', filters: ['agent', 'source', 'kind'], defaultOrder: 'desc', verify: false,
  columns: ['TS', 'ID', 'AGENT', 'SOURCE', 'KIND', 'STATUS', 'FINGERPRINT'],
  row: (e) => [e.ts, e.id, e.agentId, e.sourceId, e.kind, e.status, e.fingerprint ?? '-'],
  key: (e) => e.id,
};

export const dlqView: CliView<DeadLetterRecord> = {
  name: 'dlq', path: '/dlq', filters: ['agent', 'source', 'reason'], defaultOrder: 'desc', verify: false,
  columns: ['TS', 'ID', 'AGENT', 'SOURCE', 'EVENT', 'REASON', 'ATTEMPTS', 'ERROR'],
  row: (d) => [d.ts, d.id, d.agentId, d.sourceId, d.eventId, d.reason, String(d.attempts), d.error],
  key: (d) => d.id,
};

export const auditView: CliView<AuditRow> = {
  name: 'audit', path: '/audit', filters: ['agent', 'kind'], defaultOrder: 'asc', verify: true,
  columns: ['SEQ', 'TS', 'KIND', 'ACTOR', 'AGENT', 'HASH'],
  row: (r) => [String(r.seq), r.ts, r.kind, r.actor, r.agentId ?? '-', r.hash.slice(0, 16)],
  key: (r) => r.seq,
};

/** The query of a view from the command's options: paging, time bounds (relative ones resolved), filters. */
export function viewParams<T>(view: CliView<T>, opts: ViewOptions, clock: Clock): URLSearchParams {
  const p = new URLSearchParams();
  for (const key of ['limit', 'order', ...view.filters] as const) {
    const value = opts[key];
    if (typeof value === 'string') p.set(key, value);
  }
  for (const key of ['since', 'until'] as const) {
    const value = opts[key];
    if (typeof value === 'string') p.set(key, timeArg(`--${key}`, value, clock));
  }
  if (view.verify && opts.verify) p.set('verify', '1');
  return p;
}

/** The result of `verify=1` as one line. */
export function verifyLine(verify: VerifyResult): string {
  return verify.ok
    ? `chain ok: ${verify.checked} rows checked, head seq ${verify.headSeq} ${verify.headHash ?? ''}`.trimEnd()
    : `chain BROKEN at seq ${verify.firstBadSeq ?? '?'}: ${verify.problem ?? 'unknown'} (${verify.checked} rows checked)`;
}

/** The largest page the listener serves (contract §5). */
const MAX_PAGE = 1000;

/**
 * One view of the local (or `--url`) listener. `--limit N` is the number of rows printed (contract
 * §13): pages of at most N rows are followed until N are in hand. Exit 1 when --verify finds the
 * chain broken.
 */
async function viewCommand<T>(view: CliView<T>, opts: ViewOptions, ctx: CliContext): Promise<number> {
  const limit = intFlag('--limit', opts.limit, 1, 1_000_000_000);
  const params = viewParams(view, { ...opts, limit: String(Math.min(limit ?? MAX_PAGE, MAX_PAGE)) }, ctx.clock);
  const page = await getAllPages<T>(controlTarget(ctx, opts), view.path, params, limit === undefined ? {} : { maxItems: limit });
  const items = limit === undefined ? page.items : page.items.slice(0, limit);
  const verify = page.verify as VerifyResult | undefined;
  if (opts.json) {
    ctx.stdout(JSON.stringify(verify ? { items, verify } : { items }) + '\n');
  } else {
    printTable(ctx, view.columns, items.map((item) => view.row(item)));
    if (verify) {
      ctx.stdout(verifyLine(verify), verify.ok ? 'green' : 'red');
      ctx.stdout('\n');
    }
  }
  return verify && !verify.ok ? 1 : 0;
}

export const eventsCommand = (opts: ViewOptions, ctx: CliContext): Promise<number> => viewCommand(eventsView, opts, ctx);
export const dlqCommand = (opts: ViewOptions, ctx: CliContext): Promise<number> => viewCommand(dlqView, opts, ctx);
export const auditCommand = (opts: ViewOptions, ctx: CliContext): Promise<number> => viewCommand(auditView, opts, ctx);
