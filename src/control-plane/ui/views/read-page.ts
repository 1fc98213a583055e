/**
 * One keyset page of a view for the console, read exactly as the JSON view reads it (contract §19.1:
 * no second query path): the same query parser (page-query.ts), a turn at the same read gate, the same
 * `Store.listJson` page. A form leaves empty fields in the query; they mean "no filter" and are dropped
 * before parsing. The page's items are decoded here (a console page is small: its limit is at most
 * CONSOLE_PAGE_LIMIT unless the URL asks otherwise).
 */
import { InvalidCursorError } from '../../../store/cursor.js';
import type { Store, View, ViewFilter } from '../../../store/store.js';
import type { ViewQuery, ViewSpec } from '../../page-query.js';
import { parseViewQuery } from '../../page-query.js';
import type { ReadGate } from '../../read-gate.js';
import { takeTurn } from '../../read-gate.js';

/** Rows a console page shows by default: a screen's worth, cheap to render. */
export const CONSOLE_PAGE_LIMIT = 50;

export type PageRead<T, F extends string> =
  | { ok: true; query: ViewQuery<F>; params: Record<string, string>; items: T[]; nextCursor: string | null }
  | { ok: false; status: 400; error: string }
  | { ok: false; status: 0 };

export async function readPage<T, V extends View, F extends string>(opts: {
  store: Store; gate: ReadGate; view: V; spec: ViewSpec<F>; url: URL; signal: AbortSignal;
  /** Parameters of the console's own (an action's outcome), not of the view. */
  ignore?: readonly string[];
}): Promise<PageRead<T, F>> {
  const params: Record<string, string> = {};
  const search = new URLSearchParams();
  for (const [k, v] of opts.url.searchParams) {
    if (v === '' || opts.ignore?.includes(k)) continue;
    search.append(k, v);
    params[k] = v;
  }
  if (!search.has('limit')) search.set('limit', String(CONSOLE_PAGE_LIMIT));
  const parsed = parseViewQuery(search, opts.spec);
  if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
  const leave = await takeTurn(opts.gate, opts.signal);
  if (leave === null) return { ok: false, status: 0 }; // the client left while waiting its turn
  try {
    const page = await opts.store.listJson(opts.view, parsed.value.page, parsed.value.filter as ViewFilter<V>);
    const items = JSON.parse(new TextDecoder().decode(page.items)) as T[];
    return { ok: true, query: parsed.value, params, items, nextCursor: page.nextCursor };
  } catch (err) {
    if (err instanceof InvalidCursorError) return { ok: false, status: 400, error: `invalid cursor: ${err.message}` };
    throw err;
  } finally {
    leave();
  }
}
