/**
 * What one keyset page reads (contract §5, §11.4), the same for both stores' pagers
 * (sqlite/pages.ts, postgres/pages.ts): the table, its columns, equality filters and the column
 * whose text counts against the page's byte budget.
 */

/** The tables paged by seq (each has `seq` and the `ts_ms` index the since/until bounds use). */
export type PagedTable = 'events' | 'dead_letters' | 'audit' | 'pages';

export interface PageSpec<T> {
  table: PagedTable;
  /** The columns read, `a, b, c`: fixed names, never input. */
  cols: string;
  /** [column, value]: rows where column = value, when the value is given. Columns are fixed names. */
  filters: Array<[column: string, value: string | undefined]>;
  /** The column whose text length counts against the byte budget. */
  bytesColumn: string;
  map(row: Record<string, unknown>): T;
}
