/**
 * Rows of many hosts as one list (contract §15): by time in the view's order, then by host name, then
 * by the row's id (`seq` for audit rows), in the view's order too.
 */

export interface HostRow<T> {
  host: string;
  item: T;
}

export type Order = 'asc' | 'desc';

/** Rows with the same ts format (ISO-8601 UTC with ms, as svc writes them) compare as text. */
function cmp(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function mergeRows<T>(perHost: ReadonlyArray<{ host: string; items: readonly T[] }>, order: Order,
  ts: (item: T) => string, key: (item: T) => string | number): Array<HostRow<T>> {
  const dir = order === 'asc' ? 1 : -1;
  const rows: Array<HostRow<T>> = [];
  for (const { host, items } of perHost) for (const item of items) rows.push({ host, item });
  return rows.sort((a, b) => dir * cmp(ts(a.item), ts(b.item)) || cmp(a.host, b.host) || dir * cmp(key(a.item), key(b.item)));
}
