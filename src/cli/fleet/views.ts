/**
 * `svc fleet events | dlq | audit [--verify]`: the paginated views of every selected host, asked in
 * parallel (at most 16 requests at once), every page followed, rows merged by time with a HOST column;
 * replicas of one store list each row once (replicas.ts).
 *
 * `--limit N` is the number of rows printed (contract §13): each host is asked for its first N rows
 * in the view's order, which always hold the first N of the merge. `--page-size` is the rows asked per
 * request (default 1000, the listener's maximum: fewer round trips per host).
 */
import type { CliContext } from '../context.js';
import type { ControlTarget } from '../control-client.js';
import { getAllPages, getJson } from '../control-client.js';
import { printTable } from '../style.js';
import type { CliView, ViewOptions } from '../views.js';
import type { VerifyAnswer } from '../views.js';
import { verifyLine, verifyPassed, viewParams } from '../views.js';
import { FLEET_CONCURRENCY, fanOut } from './fan-out.js';
import { createSemaphore } from '../../core/semaphore.js';
import type { FleetOptions } from './hosts.js';
import { fleetTargets } from './hosts.js';
import { MAX_HOST_BYTES, MAX_HOST_PAGES, withinHostDeadline } from './host-limits.js';
import { mergeRows } from './merge.js';
import { onePerStore } from './replicas.js';
import { intFlag, orderFlag } from './options.js';
import type { HostReport } from './report.js';
import { completenessText, failureBrief, isComplete, writeEnvelope } from './report.js';

export interface FleetViewOptions extends FleetOptions, Omit<ViewOptions, 'json' | 'url' | 'dir'> {
  pageSize?: string;
}

const MAX_PAGE = 1000;

/** The host's `store.id` from /status; null when it has none or /status fails (the view itself decides the host's fate). */
async function storeIdOf(target: ControlTarget, signal: AbortSignal, gate: <R>(request: () => Promise<R>) => Promise<R>): Promise<string | null> {
  try {
    const status = await gate(() => getJson(target, '/status', new URLSearchParams(), signal)) as { store?: { id?: unknown } } | null;
    const id = status?.store?.id;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    if (signal.aborted) throw signal.reason;
    return null;
  }
}

export async function fleetViewCommand<T extends { ts: string }>(view: CliView<T>, opts: FleetViewOptions, ctx: CliContext): Promise<number> {
  const limit = intFlag('--limit', opts.limit, 1, 1_000_000_000);
  const pageSize = Math.min(intFlag('--page-size', opts.pageSize, 1, MAX_PAGE) ?? MAX_PAGE, limit ?? MAX_PAGE);
  const order = orderFlag(opts.order, view.defaultOrder);
  const params = viewParams(view, { ...opts, json: opts.json, limit: String(pageSize), order }, ctx.clock);
  const targets = fleetTargets(opts, ctx);

  // The cap is on requests, not on whole hosts: a host's next page queues behind the pages of the
  // others, so a slow host with many pages never holds a slot while fast hosts wait (bench/fleet-events.ts).
  const limiter = createSemaphore(FLEET_CONCURRENCY);
  const settled = await fanOut(targets, targets.length, ({ host, target }) => withinHostDeadline(host, ctx.clock, undefined,
    async (signal) => {
      const gate = <R>(request: () => Promise<R>): Promise<R> => limiter.run(request);
      const store = await storeIdOf(target, signal, gate);
      const page = await getAllPages<T>(target, view.path, params, { maxItems: limit, gate, signal, maxPages: MAX_HOST_PAGES, maxBytes: MAX_HOST_BYTES });
      return { ...page, store };
    }));

  const reports: Array<HostReport & { verify?: VerifyAnswer | null }> = [];
  const perHost: Array<{ host: string; items: T[] }> = [];
  const storeOf = new Map<string, string | null>();
  settled.forEach((s, i) => {
    const name = targets[i]?.host.name ?? '?';
    const report: HostReport & { verify?: VerifyAnswer | null } = s.ok
      ? { name, ok: true, error: null }
      : { name, ok: false, error: failureBrief(s.error) };
    if (view.verify && opts.verify) report.verify = s.ok ? (s.value.verify as VerifyAnswer | undefined) ?? null : null;
    reports.push(report);
    if (s.ok) {
      perHost.push({ host: name, items: limit === undefined ? s.value.items : s.value.items.slice(0, limit) });
      storeOf.set(name, s.value.store);
    }
  });
  let rows = onePerStore(mergeRows(perHost, order, (item) => item.ts, view.key), storeOf, view.key);
  if (limit !== undefined) rows = rows.slice(0, limit);

  if (opts.json) {
    writeEnvelope(ctx, rows, reports);
  } else {
    printTable(ctx, ['HOST', ...view.columns], rows.map((r) => [r.host, ...view.row(r.item)]));
    for (const r of reports) if (r.verify) ctx.stdout(`${r.name}: ${verifyLine(r.verify)}\n`);
  }
  ctx.stderr(completenessText(reports));
  // A host that answered without a verification (a listener that ignores verify=1) has not verified its chain.
  const verified = reports.every((r) => r.verify === undefined || !r.ok || (r.verify !== null && verifyPassed(r.verify)));
  return isComplete(reports) && verified ? 0 : 1;
}
