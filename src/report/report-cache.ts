/**
 * The daemon's page facts for reports (contract §23.2: an answer in under 2 s at 100,000 pages). Every
 * page opened in the last MAX_REPORT_DAYS + 1 days, with what its audit rows say (page-facts.ts),
 * folded once on the first report and then kept current by folding only the rows appended since: the
 * store's audit seq read last is the change marker. A report of a window inside that span aggregates
 * these facts (≈100,000 small objects) instead of reading and folding ≈700,000 rows again; an older
 * window is read whole, as before.
 *
 * Why seq is enough: every store appends audit rows under the chain's head (SQLite's one writer,
 * PostgreSQL's head lock held to the commit), so rows commit in seq order and a read never sees a seq
 * while an earlier one is still to come. The rows are still the truth: the facts are what the same
 * fold makes of them, and the report store contract compares the two.
 */
import type { Clock } from '../core/clock.js';
import type { Opened, ReportAuditRow, ReportPage, ReportReads, ReportWindow } from '../store/report-rows.js';
import { decodeAuditLines, decodePageLines, nameAlerts, REPORT_CHUNK_ROWS } from '../store/report-rows.js';
import type { InterruptionMemo } from './aggregate-report.js';
import { interruptionMemo } from './aggregate-report.js';
import type { PageFacts } from './page-facts.js';
import { factsFolder } from './page-facts.js';
import { DAY_MS, MAX_REPORT_DAYS } from './report-query.js';

/** How far back facts are kept: the longest window ending now, and a day for a window's `until` a little ahead. */
export const KEPT_MS = (MAX_REPORT_DAYS + 1) * DAY_MS;
/** How often pages that no longer fit are let go. */
const PRUNE_EVERY_MS = 3_600_000;

export interface ReportFacts {
  /** The facts of the window's pages as of the store's head; null when the window starts before what is kept. */
  windowFacts(window: ReportWindow): Promise<PageFacts[] | null>;
  /** What the kept pages' rounds came to as interruptions, for the next report over them. */
  readonly memo: InterruptionMemo;
}

export function reportFactsCache(reads: ReportReads, clock: Pick<Clock, 'now'>): ReportFacts {
  const folder = factsFolder();
  /** Pages whose page.opened row was read (its alert name taken): a later one (a reopen) names nothing. */
  const named = new Set<string>();
  let fromMs: number | null = null;
  /** The last seq folded; null until a row at or after `fromMs` exists. */
  let afterSeq: number | null = null;
  let prunedAtMs = 0;
  let running: Promise<void> = Promise.resolve();

  const addPages = (pages: ReadonlyMap<string, ReportPage>): void => {
    for (const page of pages.values()) folder.addPage(page);
  };

  async function fill(nowMs: number): Promise<void> {
    const since = nowMs - KEPT_MS;
    addPages(decodePageLines(await reads.pageLines({ sinceMs: since, untilMs: Number.MAX_SAFE_INTEGER, agent: null })));
    fromMs = since;
    prunedAtMs = nowMs;
  }

  /** Folds one chunk's rows; pages opened in it that are not known yet are read first. */
  async function foldChunk(text: string): Promise<void> {
    const opened = new Map<string, Opened>();
    const rows: ReportAuditRow[] = [];
    decodeAuditLines(text, () => true, opened, rows);
    const fresh = [...opened.keys()].filter((id) => !named.has(id));
    const unknown = fresh.filter((id) => !folder.has(id));
    if (unknown.length > 0) addPages(decodePageLines(await reads.pageLinesOf(unknown)));
    const pages = new Map<string, ReportPage>();
    for (const id of fresh) {
      const f = folder.facts().get(id);
      if (f === undefined) continue;
      pages.set(id, f.page);
    }
    await nameAlerts(reads, opened, pages);
    for (const id of pages.keys()) named.add(id);
    for (const row of rows) folder.fold(row);
  }

  async function catchUp(): Promise<void> {
    const nowMs = clock.now();
    if (fromMs === null) await fill(nowMs);
    if (nowMs - prunedAtMs >= PRUNE_EVERY_MS) prune(nowMs);
    if (afterSeq === null) {
      const first = await reads.firstSeqSince(fromMs as number);
      if (first === null) return;
      afterSeq = first - 1;
    }
    for (;;) {
      const chunk = await reads.auditLines(afterSeq, REPORT_CHUNK_ROWS);
      if (chunk.lastSeq === null) return;
      await foldChunk(chunk.text);
      afterSeq = chunk.lastSeq;
    }
  }

  function prune(nowMs: number): void {
    fromMs = nowMs - KEPT_MS;
    prunedAtMs = nowMs;
    for (const [id, f] of folder.facts()) {
      if (f.page.openedAtMs < fromMs) {
        folder.remove(id);
        named.delete(id);
      }
    }
  }

  return {
    memo: interruptionMemo(),
    async windowFacts(window) {
      // One catch-up at a time: a second report waits for the first's and then reads what is new.
      const turn = running.then(catchUp);
      running = turn.catch(() => undefined);
      await turn;
      if (fromMs === null || window.sinceMs < fromMs) return null;
      const out: PageFacts[] = [];
      for (const f of folder.facts().values()) {
        const p = f.page;
        if (p.openedAtMs >= window.sinceMs && p.openedAtMs < window.untilMs && (window.agent === null || p.agentId === window.agent)) out.push(f);
      }
      return out;
    },
  };
}
