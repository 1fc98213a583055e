/**
 * Plain-text tables for the read commands: left-aligned columns, two spaces apart. On a terminal
 * (`width` set) a table wider than the screen gives way until it fits:
 *   1. columns with a `drop` rank are left out, the highest first, while the table would not fit with
 *      every column whole except those willing to `give` (cut down to that);
 *   2. then those are cut with `…` down to it, and after them the widest columns, never below their
 *      `min` (default: their header, at least MIN_CUT).
 * A `whole` column (an id a person copies into the next command) is never cut: the other columns give
 * way, and when they cannot the terminal wraps. A `wrap` column (the last one: a sentence) is not cut
 * either: what does not fit continues on the next lines under it, broken between words. Piped output
 * is never cut. Each cell is one line made
 * safe for a terminal (core/terminal-text.ts: a line break or an escape sequence in a label is shown,
 * never obeyed, and measured as shown). style.ts printTable prints one with its header in bold.
 */
import { terminalLine } from '../core/terminal-text.js';

export interface TableOptions {
  /** Terminal columns, or null/undefined when stdout is not a terminal. */
  width?: number | null;
}

/** A column: its header, and how it gives way on a narrow terminal. */
export interface Column {
  header: string;
  /** Never cut (ids). */
  whole?: boolean;
  /** Left out when the table does not fit otherwise, the highest rank first. */
  drop?: number;
  /** Cut no narrower than this (default: its header, at least MIN_CUT). */
  min?: number;
  /**
   * Willing to be cut to this width (default: `min` when set, else none) before a column is left out
   * for it; a time cut to the second, a long title.
   */
  give?: number;
  /** The last column only: continued on further lines under itself instead of cut (a sentence). */
  wrap?: boolean;
}

/** A column that holds ids: shown whole at every width. */
export const idColumn = (header: string): Column => ({ header, whole: true });

const MIN_CUT = 8;
const GAP = 2;

const spanOf = (widths: readonly number[]): number => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);

function fit(widths: number[], minimums: number[], width: number): number[] {
  const out = [...widths];
  while (spanOf(out) > width) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      if ((out[i] ?? 0) > (minimums[i] ?? 0) && (widest < 0 || (out[i] ?? 0) >= (out[widest] ?? 0))) widest = i;
    }
    if (widest < 0) break; // cannot shrink further: let the terminal wrap
    out[widest] = Math.max(minimums[widest] ?? 0, (out[widest] ?? 0) - Math.max(1, spanOf(out) - width));
  }
  return out;
}

function cut(cell: string, width: number): string {
  return cell.length <= width ? cell : `${cell.slice(0, Math.max(0, width - 1))}…`;
}

/** `cell` in lines of at most `width`, broken after a space where one is near enough, else mid-word. */
function wrapped(cell: string, width: number): string[] {
  const lines: string[] = [];
  let rest = cell;
  while (rest.length > width && width > 0) {
    const space = rest.lastIndexOf(' ', width);
    const at = space > width / 2 ? space : width;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  return [...lines, rest];
}

const asColumn = (c: string | Column): Column => (typeof c === 'string' ? { header: c } : c);

export function formatTable(given: ReadonlyArray<string | Column>, cells: ReadonlyArray<readonly string[]>, opts: TableOptions = {}): string {
  const columns = given.map(asColumn);
  const rows = cells.map((row) => row.map((cell) => terminalLine(cell)));
  const natural = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const minimums = columns.map((c, i) => (c.whole ? natural[i] ?? 0 : Math.min(natural[i] ?? 0, c.min ?? Math.max(c.header.length, MIN_CUT))));
  let shown = columns.map((_, i) => i);
  let widths = natural;
  if (opts.width) {
    const width = opts.width;
    const wanted = columns.map((c, i) => Math.max(minimums[i] ?? 0, Math.min(natural[i] ?? 0, c.give ?? c.min ?? Infinity)));
    const droppable = columns.map((c, i) => ({ i, rank: c.drop })).filter((d) => d.rank !== undefined).sort((a, b) => (b.rank ?? 0) - (a.rank ?? 0));
    for (const { i } of droppable) {
      if (spanOf(shown.map((j) => wanted[j] ?? 0)) <= width) break;
      shown = shown.filter((j) => j !== i);
    }
    // Columns with a `min` give way first (a time cut to the second), then the widest of all.
    const willing = fit(shown.map((j) => natural[j] ?? 0), shown.map((j) => wanted[j] ?? 0), width);
    const fitted = fit(willing, shown.map((j) => minimums[j] ?? 0), width);
    widths = columns.map((_, i) => fitted[shown.indexOf(i)] ?? 0);
  }
  const last = shown[shown.length - 1];
  const wrapLast = last !== undefined && columns[last]?.wrap === true;
  const line = (row: readonly string[]): string => {
    const lead = shown.slice(0, -1).map((i) => cut(row[i] ?? '', widths[i] ?? 0).padEnd(widths[i] ?? 0));
    const tail = last === undefined ? [''] : wrapLast ? wrapped(row[last] ?? '', widths[last] ?? 0) : [cut(row[last] ?? '', widths[last] ?? 0)];
    const indent = ' '.repeat(spanOf(shown.slice(0, -1).map((i) => widths[i] ?? 0)) + (lead.length > 0 ? GAP : 0));
    return tail.map((t, k) => (k === 0 ? [...lead, t].join('  ') : indent + t).trimEnd()).join('\n');
  };
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join('\n') + '\n';
}
