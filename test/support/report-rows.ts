/**
 * Hand-built report rows (store/report-rows.ts) for the report's unit tests: a page, and its audit rows
 * written one after another in seq order, as a store hands them over.
 */
import type { ReportAuditRow, ReportPage, ReportRows } from '../../src/store/report-rows.js';

type Kind = ReportAuditRow['kind'];
type Fields = Partial<Omit<ReportAuditRow, 'seq' | 'kind' | 'pageId'>>;

export interface RowsBuilder {
  /** A page opened at `openedAtMs`. */
  page(id: string, openedAtMs: number, over?: Partial<Omit<ReportPage, 'id' | 'openedAtMs'>>): RowsBuilder;
  /** The page's next row (the next seq of the chain), at `tsMs`. */
  row(pageId: string, kind: Kind, tsMs: number, fields?: Fields): RowsBuilder;
  /** A `page.notified` row to a person on a channel. */
  notified(pageId: string, tsMs: number, person: string, channel: string, fields?: Fields): RowsBuilder;
  /** Leaves `n` seqs out: rows of other pages, or of kinds a report does not read, came between. */
  skip(n?: number): RowsBuilder;
  build(): ReportRows;
}

export function reportRows(): RowsBuilder {
  const pages: ReportPage[] = [];
  const rows: ReportAuditRow[] = [];
  let seq = 0;
  const b: RowsBuilder = {
    page(id, openedAtMs, over = {}) {
      pages.push({ id, agentId: 'agent-a', policy: 'default', alertname: null, openedAtMs, ...over });
      return b;
    },
    row(pageId, kind, tsMs, fields = {}) {
      seq += 1;
      rows.push({ seq, tsMs, kind, pageId, person: null, channel: null, reason: null, via: null, round: null, shadow: false, ...fields });
      return b;
    },
    notified: (pageId, tsMs, person, channel, fields = {}) => b.row(pageId, 'page.notified', tsMs, { person, channel, ...fields }),
    skip(n = 1) {
      seq += n;
      return b;
    },
    build: () => ({ pages: [...pages], rows: [...rows] }),
  };
  return b;
}
