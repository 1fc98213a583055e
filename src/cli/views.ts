/**
 * `svc events`, `svc dlq`, `svc audit [--verify]`: the paginated views of the control plane, every page
 * followed, as a table or `--json` (`{"items": [...]}`, plus `"verify"` for audit --verify).
 * The view descriptions (path, filters, columns) are shared with `svc fleet` (cli/fleet/).
 */
import { existsSync } from 'node:fs';
import type { VerifyResult } from '../audit/chain.js';
import type { NewestCheckpointsVerdict } from '../audit/check-checkpoints.js';
import type { AuditRow } from '../audit/audit-row.js';
import type { Clock } from '../core/clock.js';
import type { DeadLetterRecord } from '../store/store.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { homePaths, svcHome } from '../config/paths.js';
import type { CliContext } from './context.js';
import type { ControlTarget } from './control-client.js';
import { getAllPages } from './control-client.js';
import { ownTarget } from './own-home.js';
import { intFlag } from './fleet/options.js';
import type { EventSummary } from '../store/event-summary.js';
import { summaryOfPayload, summaryOfTriage } from '../store/event-summary.js';
import { printTable } from './style.js';
import type { Column } from './table.js';
import { idColumn } from './table.js';
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
  /** Events: the stored state (`accepted`, `processing`, `processed`, `dead-lettered`, `suppressed`). */
  status?: string;
  verify?: boolean;
  /** With --verify: the rows too. */
  rows?: boolean;
}

export type ViewFilter = 'agent' | 'source' | 'kind' | 'reason' | 'status';

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
  /** How each column gives way on a narrow terminal (table.ts): ids never, optional ones first. */
  columns: ReadonlyArray<string | Column>;
  row: (item: T) => string[];
  /** What follows time (and host) when rows are merged: `id`, or `seq` for audit rows. */
  key: (item: T) => string | number;
}

/** A time cell gives way down to the second (`2026-11-25T18:21:52…`), never further. */
export const TIME_COLUMN: Column = { header: 'TS', min: 20 };

/**
 * An event as /events lists it (store/record-json.ts), and, when the CLI read it, what triage decided
 * (the `triage.decision` audit row: event-summary.ts).
 */
export interface EventItem {
  id: string; ts: string; agentId: string; sourceId: string; kind: string; fingerprint?: string; status: string; payload?: unknown;
  corrupt?: true; triage?: EventSummary;
}

export const eventsView: CliView<EventItem> = {
  name: 'events', path: '/events', filters: ['agent', 'source', 'kind', 'status'], defaultOrder: 'desc', verify: false,
  columns: [TIME_COLUMN, idColumn('ID'), { header: 'STATUS' }, { header: 'SEV', drop: 1 }, { header: 'TITLE', give: 24 }, { header: 'TRIAGED BY', drop: 2 },
    { header: 'AGENT', drop: 3 }, { header: 'SOURCE', drop: 4 }, { header: 'STATE', drop: 5 }, { header: 'FINGERPRINT', drop: 6 }],
  row: (e) => {
    const s = e.triage ?? summaryOfPayload(e.payload);
    // A silenced event paged nobody: STATUS says so first, as STATE (the stored state) is the first column a narrow terminal drops.
    const status = e.status === 'suppressed' ? 'suppressed' : s.status ?? '-';
    return [e.ts, e.id, status, s.severity ?? '-', s.title ?? '-', s.triagedBy ?? '-', e.agentId, e.sourceId, e.status, e.fingerprint ?? '-'];
  },
  key: (e) => e.id,
};

/** A dead letter as /dlq lists it. */
export type DeadLetterItem = Omit<DeadLetterRecord, 'payloadText'> & { payload?: unknown };

export const dlqView: CliView<DeadLetterItem> = {
  name: 'dlq', path: '/dlq', filters: ['agent', 'source', 'reason'], defaultOrder: 'desc', verify: false,
  columns: [TIME_COLUMN, idColumn('ID'), { header: 'REASON' }, { header: 'REPLAYED', give: 24 }, { header: 'TRIES', drop: 2 }, { header: 'ERROR', give: 16, drop: 1 },
    { header: 'EVENT', whole: true, drop: 3 }, { header: 'AGENT', drop: 4 }, { header: 'SOURCE', drop: 5 }],
  row: (d) => [d.ts, d.id, d.reason, d.replayedAt === null ? 'no' : `yes ${d.replayedAt.replace(/\.\d{3}Z$/, 'Z')}`, String(d.attempts), d.error, d.eventId, d.agentId, d.sourceId],
  key: (d) => d.id,
};

export const auditView: CliView<AuditRow> = {
  name: 'audit', path: '/audit', filters: ['agent', 'kind'], defaultOrder: 'asc', verify: true,
  columns: [{ header: 'SEQ', whole: true }, TIME_COLUMN, { header: 'KIND' }, { header: 'ACTOR' }, { header: 'AGENT', drop: 1 }, { header: 'HASH', whole: true }],
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
    if (typeof value === 'string') p.set(key, timeArg(`svc ${view.name}: --${key}`, value, clock));
  }
  if (view.verify && opts.verify) p.set('verify', '1');
  return p;
}

/** The `verify` of `verify=1`: the chain's own verdict, and the checkpoint verdict a daemon adds (contract §20.2). */
export type VerifyAnswer = VerifyResult & { checkpoints?: NewestCheckpointsVerdict };

/** Whether a `verify` answer passes: the chain intact, and no signed checkpoint contradicted. */
export function verifyPassed(verify: VerifyAnswer): boolean {
  return verify.ok && verify.checkpoints?.ok !== false;
}

/** The result of `verify=1` as one line. */
export function verifyLine(verify: VerifyAnswer): string {
  const chain = verify.ok
    ? `chain ok: ${verify.checked} rows checked, head seq ${verify.headSeq} ${verify.headHash ?? ''}`.trimEnd()
    : `chain BROKEN at seq ${verify.firstBadSeq ?? '?'}: ${verify.problem ?? 'unknown'} (${verify.checked} rows checked)`;
  const cp = verify.checkpoints;
  if (cp === undefined || cp.checked.length === 0) return chain;
  if (cp.contradiction !== null) return `${chain}; checkpoint CONTRADICTED: ${cp.contradiction.message}`;
  return `${chain}; the newest checkpoint holds (seq ${Math.max(...cp.checked.map((c) => c.seq))})`;
}

/** The largest page the listener serves (contract §5). */
const MAX_PAGE = 1000;

/**
 * One view of the local (or `--url`) listener. `--limit N` is the number of rows printed (contract
 * §13): pages of at most N rows are followed until N are in hand. `--verify` prints the verdict only
 * (the listener verifies the whole chain whatever the page size), the rows too with `--rows` or
 * `--json`. Exit 1 when --verify finds the chain broken.
 */
async function viewCommand<T>(view: CliView<T>, opts: ViewOptions, ctx: CliContext,
  enrich?: (items: T[], target: ControlTarget) => Promise<T[]>): Promise<number> {
  if (opts.rows && !opts.verify) throw new UsageError(`svc ${view.name}: --rows goes with --verify`);
  const verdictOnly = view.verify && opts.verify === true && !opts.rows && !opts.json;
  const limit = verdictOnly ? 1 : intFlag('--limit', opts.limit, 1, 1_000_000_000);
  const params = viewParams(view, { ...opts, limit: String(Math.min(limit ?? MAX_PAGE, MAX_PAGE)) }, ctx.clock);
  const target = await ownTarget(ctx, opts);
  const page = await getAllPages<T>(target, view.path, params, limit === undefined ? {} : { maxItems: limit });
  const listed = limit === undefined ? page.items : page.items.slice(0, limit);
  const verify = page.verify as VerifyAnswer | undefined;
  if (opts.json) {
    ctx.stdout(JSON.stringify(verify ? { items: listed, verify } : { items: listed }) + '\n');
  } else {
    if (!verdictOnly) {
      const items = enrich ? await enrich(listed, target) : listed;
      printTable(ctx, view.columns, items.map((item) => view.row(item)));
    }
    if (verify) {
      ctx.stdout(verifyLine(verify), verifyPassed(verify) ? 'green' : 'red');
      ctx.stdout('\n');
    }
  }
  return verify && !verifyPassed(verify) ? 1 : 0;
}

/**
 * Each listed event with what its `triage.decision` row says (one walk over those rows since the
 * oldest event listed; an event not triaged yet keeps what its payload says).
 */
async function withTriage(items: EventItem[], target: ControlTarget): Promise<EventItem[]> {
  if (items.length === 0) return items;
  const oldest = items.reduce((min, e) => (e.ts < min ? e.ts : min), items[0]?.ts ?? '');
  const params = new URLSearchParams({ kind: 'triage.decision', since: oldest, limit: String(MAX_PAGE) });
  const wanted = new Set(items.map((e) => e.id));
  const found = new Map<string, EventSummary>();
  const rows = await getAllPages<{ data?: unknown }>(target, '/audit', params);
  for (const row of rows.items) {
    const t = summaryOfTriage(row.data);
    if (t !== null && wanted.has(t.eventId)) found.set(t.eventId, t.summary);
  }
  return items.map((e) => {
    const triage = found.get(e.id);
    return triage === undefined ? e : { ...e, triage };
  });
}

export const eventsCommand = (opts: ViewOptions, ctx: CliContext): Promise<number> => viewCommand(eventsView, opts, ctx, withTriage);
export const dlqCommand = (opts: ViewOptions, ctx: CliContext): Promise<number> => viewCommand(dlqView, opts, ctx);
export async function auditCommand(opts: ViewOptions, ctx: CliContext): Promise<number> {
  try {
    return await viewCommand(auditView, opts, ctx);
  } catch (err) {
    // Right after a crash is when the chain is checked: say how to check it without the daemon.
    const db = homePaths(svcHome(ctx.env)).db;
    if (!(err instanceof RuntimeError) || err.code !== 'EUNREACHABLE' || opts.verify !== true || opts.url !== undefined || !existsSync(db)) throw err;
    throw new RuntimeError('EUNREACHABLE', `${err.message}; with svc stopped, verify its store file: svc audit --verify --db ${db}`);
  }
}
