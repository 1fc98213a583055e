/**
 * A store's report reads (store/report-rows.ts `ReportReads`) over fixed lines, recording what was
 * asked: for the unit tests of readReportRows and of the report cache. The arrays are read at each
 * call, so a test may append pages and rows between reads as a store's writes would.
 */
import type { ReportReads } from '../../src/store/report-rows.js';
import { reportLineOf } from '../../src/store/report-rows.js';

/** An audit row's report line, its ts 1000 + seq. */
export const reportLine = (seq: number, kind: string, data: Record<string, unknown>): string =>
  reportLineOf(seq, 1000 + seq, kind, JSON.stringify(data)) as string;

export function fixedReportReads(pageLines: string[], audit: string[], payloads: Record<string, string> = {}): ReportReads & { asked: unknown[][] } {
  const asked: unknown[][] = [];
  const seqOf = (l: string): number => Number(l.split('\t')[0]);
  return {
    asked,
    // A malformed line is handed over as it is, as a store could.
    pageLines: (w) => Promise.resolve(pageLines.filter((l) => {
      const [, agent, , ts] = l.split('\t');
      return ts === undefined || (Number(ts) >= w.sinceMs && Number(ts) < w.untilMs && (w.agent === null || agent === w.agent));
    }).join('\n')),
    pageLinesOf: (ids) => {
      asked.push(['pagesOf', [...ids]]);
      return Promise.resolve(pageLines.filter((l) => ids.includes(l.split('\t')[0] as string)).join('\n'));
    },
    firstSeqSince: (since) => {
      asked.push(['first', since]);
      const first = audit.find((l) => Number(l.split('\t')[1]) >= since);
      return Promise.resolve(first === undefined ? null : seqOf(first));
    },
    auditLines: (after, limit) => {
      asked.push(['lines', after, limit]);
      const rest = audit.filter((l) => seqOf(l) > after).slice(0, limit);
      return Promise.resolve({ text: rest.join('\n'), lastSeq: rest.length === 0 ? null : seqOf(rest.at(-1) as string) });
    },
    eventPayloads: (ids) => {
      asked.push(['payloads', ids.length]);
      return Promise.resolve(ids.filter((id) => payloads[id] !== undefined).map((id) => ({ id, payloadText: payloads[id] as string })));
    },
  };
}
