/**
 * A store's report reads (store/report-rows.ts `ReportReads`) over fixed lines, recording what was
 * asked: for the unit tests of readReportRows and of the report cache. The arrays are read at each
 * call, so a test may append pages and rows between reads as a store's writes would.
 */
import type { FactsMark, FactsRow, FactsSave, FactsSaveOutcome, ReportFactsStore } from '../../src/store/report-facts.js';
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

/**
 * A checkpoint store (store/report-facts.ts `ReportFactsStore`) in memory, for the report cache's unit
 * tests: the stores' rule (a save at or behind the stored seq refused, another format only whole), the
 * saves it was asked for, and `fail` to make the next saves fail as a store that went away would.
 */
export function keptReportFacts(): ReportFactsStore & { saves: FactsSave[]; mark: FactsMark | null; rows: Map<string, FactsRow>; fail: number } {
  const kept = {
    saves: [] as FactsSave[],
    mark: null as FactsMark | null,
    rows: new Map<string, FactsRow>(),
    fail: 0,
    save(save: FactsSave): Promise<FactsSaveOutcome> {
      kept.saves.push(save);
      if (kept.fail > 0) {
        kept.fail -= 1;
        return Promise.reject(new Error('the store is closed'));
      }
      if (kept.mark !== null && kept.mark.seq >= save.mark.seq) return Promise.resolve('behind');
      if (kept.mark !== null && kept.mark.version !== save.mark.version && !save.full) return Promise.resolve('other-version');
      if (save.full) kept.rows.clear();
      for (const p of save.pages) kept.rows.set(p.pageId, p);
      for (const [id, p] of kept.rows) if (p.openedAtMs < save.keepFromMs) kept.rows.delete(id);
      kept.mark = save.mark;
      return Promise.resolve('saved');
    },
    load(onLines: (text: string, mark: FactsMark) => void): Promise<FactsMark | null> {
      if (kept.mark !== null) onLines([...kept.rows.values()].map((r) => `${r.pageId}\t${r.openedAtMs}\t${r.facts}`).join('\n'), kept.mark);
      return Promise.resolve(kept.mark);
    },
  };
  return kept;
}
