/**
 * The report cache's checkpoint (contract §23.2; report/report-cache.ts): each kept page's folded facts
 * as the fold wrote them (JSON, opaque here), and one mark saying through which audit seq they are
 * folded and in which facts format. Derived data: the audit rows stay the truth, and a checkpoint that
 * is missing, stale or of another format is folded afresh from them. The fold decides what a page's
 * facts are; the stores only keep them (sqlite/report-facts.ts, postgres/report-facts.ts).
 *
 * Rows cross as text, one line per page, `pageId \t openedAtMs \t facts`: JSON text never holds a raw
 * tab or line feed (JSON.stringify escapes them inside strings), and page ids are ids.
 */

/** Through what a checkpoint is folded. */
export interface FactsMark {
  /** The last audit seq folded into the facts. */
  seq: number;
  /** The facts' format (report-cache.ts FACTS_VERSION): another format is not read. */
  version: number;
  writtenAtMs: number;
}

export interface FactsRow {
  pageId: string;
  openedAtMs: number;
  /** The page's facts as the fold encoded them. */
  facts: string;
}

export interface FactsSave {
  mark: FactsMark;
  /** The pages changed since this cache's last save (all of them when `full`). */
  pages: FactsRow[];
  /** Pages opened before this are deleted: no window the cache answers holds them. */
  keepFromMs: number;
  /** The pages are every page kept: the checkpoint is replaced whole (a first save, or over another format). */
  full: boolean;
}

/**
 * `saved`; `behind` when the stored mark's seq is at or past this one (another replica saved a newer
 * checkpoint: it is left whole); `other-version` when the stored checkpoint is of another format and
 * this save is not full (a part of one format over the rest of another would be read as one).
 */
export type FactsSaveOutcome = 'saved' | 'behind' | 'other-version';

export interface ReportFactsStore {
  /** Saves in one transaction, under the mark's lock: upserts, deletes and the mark, or nothing. */
  save(save: FactsSave): Promise<FactsSaveOutcome>;
  /** The stored facts, in chunks of lines (see above), and the mark they are folded through; null when none is stored. */
  load(onLines: (text: string, mark: FactsMark) => void): Promise<FactsMark | null>;
}

/** Pages per chunk read back. */
export const FACTS_CHUNK_ROWS = 20_000;
/** Pages per statement written (PostgreSQL's arrays; SQLite's prepared insert runs one a row). */
export const FACTS_WRITE_ROWS = 5_000;
/** A load read while saves kept landing is read again this often before it gives up (the cache then folds the rows). */
const LOAD_TRIES = 3;

/** What a store reads for `load`, each call on its own (chunks by page id, after `afterPageId`; '' first). */
export interface FactsReads {
  mark(): Promise<FactsMark | null>;
  chunk(afterPageId: string, limit: number): Promise<{ text: string; lastPageId: string | null }>;
}

const sameMark = (a: FactsMark | null, b: FactsMark | null): boolean =>
  a === null ? b === null : b !== null && a.seq === b.seq && a.version === b.version && a.writtenAtMs === b.writtenAtMs;

/**
 * The load both stores share: the mark, every chunk, and the mark again. Chunks are separate reads,
 * so a save landing between them could mix two checkpoints; an unchanged mark proves none did (each
 * save moves the mark in its own transaction). Otherwise they are read again; null after LOAD_TRIES.
 * The chunks are handed over once the mark is proved (held meanwhile: ≈20 MB at 100,000 pages).
 */
export async function loadFacts(reads: FactsReads, onLines: (text: string, mark: FactsMark) => void): Promise<FactsMark | null> {
  for (let attempt = 0; attempt < LOAD_TRIES; attempt++) {
    const mark = await reads.mark();
    if (mark === null) return null;
    const chunks: string[] = [];
    for (let after = ''; ;) {
      const chunk = await reads.chunk(after, FACTS_CHUNK_ROWS);
      if (chunk.lastPageId === null) break;
      chunks.push(chunk.text);
      after = chunk.lastPageId;
    }
    if (sameMark(mark, await reads.mark())) {
      for (const text of chunks) onLines(text, mark);
      return mark;
    }
  }
  return null;
}

/** The lines of `load`, as rows; a line without its three fields is skipped. */
export function decodeFactsLines(text: string, each: (row: FactsRow) => void): void {
  if (text === '') return;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const a = text.indexOf('\t', start);
    const b = a === -1 ? -1 : text.indexOf('\t', a + 1);
    if (a !== -1 && b !== -1 && b < end) each({ pageId: text.slice(start, a), openedAtMs: Number(text.slice(a + 1, b)), facts: text.slice(b + 1, end) });
    start = end + 1;
  }
}
