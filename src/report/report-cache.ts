/**
 * The daemon's page facts for reports (contract §23.2: an answer in under 2 s at 100,000 pages). Every
 * page opened in the last MAX_REPORT_DAYS + 1 days, with what its audit rows say (page-facts.ts),
 * folded once and then kept current by folding only the rows appended since: the store's audit seq
 * read last is the change marker. A report of a window inside that span aggregates these facts
 * (≈100,000 small objects) instead of reading and folding ≈700,000 rows again; an older window is
 * read whole, as before.
 *
 * Why seq is enough: every store appends audit rows under the chain's head (SQLite's one writer,
 * PostgreSQL's head lock held to the commit), so rows commit in seq order and a read never sees a seq
 * while an earlier one is still to come. The rows are still the truth: the facts are what the same
 * fold makes of them, and the report store contract compares the two.
 *
 * The checkpoint (store/report-facts.ts): folding every row again after each start took 4.6 s on
 * SQLite and 29.9 s on PostgreSQL at 100,000 pages, so the facts are saved (the pages changed since the
 * last save, at most every FACTS_SAVE_EVERY_MS) and a start begins from them and folds only the rows
 * after their mark. A checkpoint of another FACTS_VERSION is ignored (the rows are folded, then saved
 * whole); a page whose saved facts do not decode is folded afresh from its rows (`refold`).
 */
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { FactsMark, FactsRow, ReportFactsStore } from '../store/report-facts.js';
import { decodeFactsLines } from '../store/report-facts.js';
import type { Opened, ReportAuditRow, ReportPage, ReportReads, ReportWindow } from '../store/report-rows.js';
import { decodeAuditLines, decodePageLines, nameAlerts, REPORT_CHUNK_ROWS } from '../store/report-rows.js';
import type { InterruptionMemo } from './aggregate-report.js';
import { interruptionMemo } from './aggregate-report.js';
import type { PageFacts } from './page-facts.js';
import { decodeFolding, encodeFolding, FACTS_VERSION, factsFolder } from './page-facts.js';
import { DAY_MS, MAX_REPORT_DAYS } from './report-query.js';

/** How far back facts are kept: the longest window ending now, and a day for a window's `until` a little ahead. */
export const KEPT_MS = (MAX_REPORT_DAYS + 1) * DAY_MS;
/** How often pages that no longer fit are let go. */
const PRUNE_EVERY_MS = 3_600_000;
/** A checkpoint is saved at most this often (a catch-up that changed nothing saves nothing). */
export const FACTS_SAVE_EVERY_MS = 5 * 60_000;

export type FactsLog = (level: 'info' | 'warn', event: string, fields: Record<string, unknown>) => void;

export interface ReportFacts {
  /** The facts of the window's pages as of the store's head; null when the window starts before what is kept. */
  windowFacts(window: ReportWindow): Promise<PageFacts[] | null>;
  /** Catches up with the store's head and saves a checkpoint when one is due (the daemon's warm-up and periodic run); a failed save is logged, not thrown. */
  refresh(): Promise<void>;
  /** Stops between chunks (a catch-up under way ends early, no save starts) and waits for a save under way (shutdown). */
  stop(): Promise<void>;
  /** What the kept pages' rounds came to as interruptions, for the next report over them. */
  readonly memo: InterruptionMemo;
}

export interface FactsCacheOptions {
  /** Where the checkpoint is kept; without it every start folds the rows. */
  checkpoints?: ReportFactsStore;
  log?: FactsLog;
}

/** The report lines (in seq order, each starting with its seq) up to and including `throughSeq`. */
function linesThrough(text: string, throughSeq: number): string {
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const tab = text.indexOf('\t', start);
    if (tab !== -1 && tab < end && Number(text.slice(start, tab)) > throughSeq) return text.slice(0, Math.max(0, start - 1));
    start = end + 1;
  }
  return text;
}

export function reportFactsCache(reads: ReportReads, clock: Pick<Clock, 'now'>, options: FactsCacheOptions = {}): ReportFacts {
  const { checkpoints } = options;
  const log: FactsLog = options.log ?? (() => undefined);
  const folder = factsFolder();
  /** Pages whose page.opened row was read (its alert name taken): a later one (a reopen) names nothing. */
  const named = new Set<string>();
  /** Pages changed since the last checkpoint saved. */
  const dirty = new Set<string>();
  let fromMs: number | null = null;
  /** The last seq folded; null until a row at or after `fromMs` exists. */
  let afterSeq: number | null = null;
  let prunedAtMs = 0;
  /** When the last checkpoint was saved or loaded; -Infinity: never (the first catch-up saves). */
  let savedAtMs = -Infinity;
  /** The next save replaces the checkpoint whole: none is stored that this cache wrote or read. */
  let saveFull = true;
  let saving: Promise<void> | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const addPages = (pages: ReadonlyMap<string, ReportPage>): void => {
    for (const page of pages.values()) {
      folder.addPage(page);
      dirty.add(page.id);
    }
  };

  async function fill(nowMs: number): Promise<void> {
    const since = nowMs - KEPT_MS;
    addPages(decodePageLines(await reads.pageLines({ sinceMs: since, untilMs: Number.MAX_SAFE_INTEGER, agent: null })));
    fromMs = since;
    prunedAtMs = nowMs;
  }

  /** Starts from the stored checkpoint; false (nothing taken) when there is none of this version. */
  async function restore(store: ReportFactsStore, nowMs: number): Promise<boolean> {
    const since = nowMs - KEPT_MS;
    const broken: FactsRow[] = [];
    let pages = 0;
    const mark: FactsMark | null = await store.load((text, m) => {
      if (m.version !== FACTS_VERSION) return;
      decodeFactsLines(text, (row) => {
        if (row.openedAtMs < since) return;
        const kept = decodeFolding(row.pageId, row.openedAtMs, row.facts);
        if (kept === null) {
          broken.push(row);
          return;
        }
        folder.restore(kept.folding);
        if (kept.named) named.add(row.pageId);
        pages += 1;
      });
    });
    if (mark === null) return false;
    if (mark.version !== FACTS_VERSION) {
      log('info', 'report.facts.ignored', { version: mark.version, expected: FACTS_VERSION, seq: mark.seq });
      return false;
    }
    fromMs = since;
    prunedAtMs = nowMs;
    afterSeq = mark.seq;
    saveFull = false;
    savedAtMs = nowMs;
    if (broken.length > 0) await refold(broken, mark.seq);
    log('info', 'report.facts.loaded', { pages, refolded: broken.length, seq: mark.seq, writtenAt: new Date(mark.writtenAtMs).toISOString() });
    return true;
  }

  /**
   * Pages whose saved facts did not decode, folded afresh: their lines read by id (a page no longer
   * stored is dropped), then every row from the first of them through the checkpoint's seq, only
   * theirs folded; the catch-up after the mark goes on as for every page, and the next save writes
   * them again.
   */
  async function refold(broken: readonly FactsRow[], throughSeq: number): Promise<void> {
    const pages = decodePageLines(await reads.pageLinesOf(broken.map((r) => r.pageId)));
    addPages(pages);
    for (const id of pages.keys()) named.delete(id);
    let firstMs = Infinity;
    for (const p of pages.values()) firstMs = Math.min(firstMs, p.openedAtMs);
    const first = Number.isFinite(firstMs) ? await reads.firstSeqSince(firstMs) : null;
    if (first === null) return;
    for (let after = first - 1; after < throughSeq;) {
      const chunk = await reads.auditLines(after, REPORT_CHUNK_ROWS);
      if (chunk.lastSeq === null) return;
      await foldChunk(linesThrough(chunk.text, throughSeq), (id) => pages.has(id));
      after = chunk.lastSeq;
    }
  }

  /** Folds one chunk's rows of the pages `keep` takes; pages opened in it that are not known yet are read first. */
  async function foldChunk(text: string, keep: (pageId: string) => boolean): Promise<void> {
    const opened = new Map<string, Opened>();
    const rows: ReportAuditRow[] = [];
    decodeAuditLines(text, keep, opened, rows);
    const fresh = [...opened.keys()].filter((id) => !named.has(id));
    const unknown = fresh.filter((id) => !folder.has(id));
    if (unknown.length > 0) addPages(decodePageLines(await reads.pageLinesOf(unknown)));
    const pages = new Map<string, ReportPage>();
    for (const id of fresh) {
      const f = folder.facts().get(id);
      if (f === undefined) continue;
      pages.set(id, f.page);
      dirty.add(id);
    }
    await nameAlerts(reads, opened, pages);
    for (const id of pages.keys()) named.add(id);
    for (const row of rows) {
      if (!folder.has(row.pageId)) continue;
      folder.fold(row);
      dirty.add(row.pageId);
    }
  }

  async function catchUp(): Promise<void> {
    const nowMs = clock.now();
    if (fromMs === null && !(checkpoints !== undefined && await restore(checkpoints, nowMs))) await fill(nowMs);
    if (nowMs - prunedAtMs >= PRUNE_EVERY_MS) prune(nowMs);
    if (afterSeq === null) {
      const first = await reads.firstSeqSince(fromMs as number);
      if (first === null) return;
      afterSeq = first - 1;
    }
    while (!stopped) {
      const chunk = await reads.auditLines(afterSeq, REPORT_CHUNK_ROWS);
      if (chunk.lastSeq === null) return;
      await foldChunk(chunk.text, () => true);
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
        dirty.delete(id);
      }
    }
  }

  /**
   * Saves the pages changed since the last save when one is due. Their facts are encoded now, so the
   * folds after this one cannot change what is saved; a save refused or failed leaves them to the next.
   */
  function saveWhenDue(): Promise<void> | null {
    const nowMs = clock.now();
    if (checkpoints === undefined || saving !== null || stopped || afterSeq === null || fromMs === null) return null;
    if (dirty.size === 0 || nowMs - savedAtMs < FACTS_SAVE_EVERY_MS) return null;
    const full = saveFull;
    const ids = full ? [...folder.facts().keys()] : [...dirty];
    const pages: FactsRow[] = [];
    for (const id of ids) {
      const f = folder.folding(id);
      if (f !== undefined) pages.push({ pageId: id, openedAtMs: f.page.openedAtMs, facts: encodeFolding(f, named.has(id)) });
    }
    dirty.clear();
    const mark: FactsMark = { seq: afterSeq, version: FACTS_VERSION, writtenAtMs: nowMs };
    const started = clock.now();
    const save = checkpoints.save({ mark, pages, keepFromMs: fromMs, full }).then((outcome) => {
      if (outcome === 'saved') {
        savedAtMs = nowMs;
        saveFull = false;
        log('info', 'report.facts.saved', { pages: pages.length, full, seq: mark.seq, ms: clock.now() - started });
        return;
      }
      // Another replica's newer checkpoint stands; another format's is replaced whole next time.
      if (outcome === 'other-version') saveFull = true;
      savedAtMs = nowMs;
      for (const p of pages) dirty.add(p.pageId);
      log('info', 'report.facts.not-saved', { reason: outcome, seq: mark.seq });
    }, (err: unknown) => {
      for (const p of pages) dirty.add(p.pageId);
      log('warn', 'report.facts.save-failed', { seq: mark.seq, error: errorText(err) });
    }).finally(() => { saving = null; });
    saving = save;
    return save;
  }

  /** One catch-up at a time: a second waits for the first's and then reads what is new. */
  function turn(): Promise<void> {
    const t = running.then(catchUp);
    running = t.catch(() => undefined);
    return t;
  }

  return {
    memo: interruptionMemo(),
    async windowFacts(window) {
      await turn();
      // A report does not wait for the checkpoint: the facts it reads are encoded before the save starts.
      void saveWhenDue();
      if (fromMs === null || window.sinceMs < fromMs) return null;
      const out: PageFacts[] = [];
      for (const f of folder.facts().values()) {
        const p = f.page;
        if (p.openedAtMs >= window.sinceMs && p.openedAtMs < window.untilMs && (window.agent === null || p.agentId === window.agent)) out.push(f);
      }
      return out;
    },
    async refresh() {
      await turn();
      await (saveWhenDue() ?? saving);
    },
    async stop() {
      stopped = true;
      await saving;
    },
  };
}
