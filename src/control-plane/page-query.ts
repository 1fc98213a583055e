/**
 * The query of a paginated view (contract §5): `limit`, `cursor`, `order`, `since`, `until`, the
 * view's filters and, on /audit, `verify`. Strict on purpose: an unknown parameter (a typo such as
 * `limt`) or a repeated one is a 400 naming it, never a silently different page. Every error is
 * `invalid <param>: <why>`.
 */
import type { AuditFilter, DeadLetterFilter, EventFilter, Order, PageQuery } from '../store/store.js';
import type { QueryResult } from './query.js';
import { paramLabel, parseFilterParam, parseTimeParam, singleParam } from './query.js';

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 1000;

export interface ViewSpec<F extends string> {
  /** Exact-match filters the view accepts. */
  filters: readonly F[];
  defaultOrder: Order;
  /** Whether `verify=1` is accepted (/audit only). */
  verify: boolean;
}

export const EVENTS_VIEW: ViewSpec<keyof EventFilter> = { filters: ['agent', 'source', 'kind', 'status'], defaultOrder: 'desc', verify: false };
export const DEAD_LETTERS_VIEW: ViewSpec<keyof DeadLetterFilter> = { filters: ['agent', 'source', 'reason'], defaultOrder: 'desc', verify: false };
export const AUDIT_VIEW: ViewSpec<keyof AuditFilter> = { filters: ['kind', 'agent'], defaultOrder: 'asc', verify: true };

export interface ViewQuery<F extends string> {
  page: PageQuery;
  filter: Partial<Record<F, string>>;
  /** `verify=1` was given (only ever true for a view whose spec allows it). */
  verify: boolean;
}

const PAGING_PARAMS = ['limit', 'cursor', 'order', 'since', 'until'] as const;

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error });

/** Parses a view's query string; the first problem found is the error. */
export function parseViewQuery<F extends string>(params: URLSearchParams, spec: ViewSpec<F>): QueryResult<ViewQuery<F>> {
  const known: string[] = [...PAGING_PARAMS, ...spec.filters, ...(spec.verify ? ['verify'] : [])];
  const values = new Map<string, string>();
  for (const name of new Set(params.keys())) {
    if (!known.includes(name)) return fail(`invalid ${paramLabel(name)}: unknown parameter (expected ${known.join(', ')})`);
    const single = singleParam(params, name);
    if (!single.ok) return single;
    if (single.value !== null) values.set(name, single.value);
  }

  let limit = PAGE_LIMIT_DEFAULT;
  const rawLimit = values.get('limit');
  if (rawLimit !== undefined) {
    limit = /^\d{1,7}$/.test(rawLimit) ? Number(rawLimit) : 0;
    if (limit < 1 || limit > PAGE_LIMIT_MAX) return fail(`invalid limit: expected an integer from 1 to ${PAGE_LIMIT_MAX}`);
  }

  // The cursor is opaque here: the store decodes it and rejects one that is not its own.
  const cursor = values.get('cursor') ?? null;
  if (cursor === '') return fail('invalid cursor: empty');

  let order = spec.defaultOrder;
  const rawOrder = values.get('order');
  if (rawOrder !== undefined) {
    if (rawOrder !== 'asc' && rawOrder !== 'desc') return fail('invalid order: expected asc or desc');
    order = rawOrder;
  }

  const bounds: Record<'since' | 'until', number | null> = { since: null, until: null };
  for (const name of ['since', 'until'] as const) {
    const raw = values.get(name);
    if (raw === undefined) continue;
    const parsed = parseTimeParam(name, raw);
    if (!parsed.ok) return parsed;
    bounds[name] = parsed.value;
  }
  if (bounds.since !== null && bounds.until !== null && bounds.until < bounds.since) {
    return fail('invalid until: earlier than since');
  }

  const filter: Partial<Record<F, string>> = {};
  for (const name of spec.filters) {
    const raw = values.get(name);
    if (raw === undefined) continue;
    const parsed = parseFilterParam(name, raw);
    if (!parsed.ok) return parsed;
    filter[name] = parsed.value;
  }

  const rawVerify = values.get('verify');
  if (rawVerify !== undefined && rawVerify !== '1') return fail('invalid verify: expected 1');

  return {
    ok: true,
    value: {
      page: { limit, cursor, order, sinceMs: bounds.since, untilMs: bounds.until },
      filter,
      verify: rawVerify === '1',
    },
  };
}
