/**
 * Plain-text tables for the read commands: left-aligned columns, two spaces apart. On a terminal
 * (`width` set) a table wider than the screen has its widest columns cut with `…` until it fits, never
 * below their header; piped output is never cut. Each cell is one line made safe for a terminal
 * (core/terminal-text.ts: a line break or an escape sequence in a label is shown, never obeyed, and
 * measured as shown). style.ts printTable prints one with its header in bold.
 */
import { terminalLine } from '../core/terminal-text.js';

export interface TableOptions {
  /** Terminal columns, or null/undefined when stdout is not a terminal. */
  width?: number | null;
}

const MIN_CUT = 8;

function fit(widths: number[], minimums: number[], width: number): number[] {
  const out = [...widths];
  const total = (): number => out.reduce((a, b) => a + b, 0) + 2 * (out.length - 1);
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) {
      if ((out[i] ?? 0) > (minimums[i] ?? 0) && (widest < 0 || (out[i] ?? 0) >= (out[widest] ?? 0))) widest = i;
    }
    if (widest < 0) break; // cannot shrink further: let the terminal wrap
    out[widest] = Math.max(minimums[widest] ?? 0, (out[widest] ?? 0) - Math.max(1, total() - width));
  }
  return out;
}

function cut(cell: string, width: number): string {
  return cell.length <= width ? cell : `${cell.slice(0, Math.max(0, width - 1))}…`;
}

export function formatTable(headers: readonly string[], given: ReadonlyArray<readonly string[]>, opts: TableOptions = {}): string {
  const rows = given.map((row) => row.map((cell) => terminalLine(cell)));
  const natural = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const widths = opts.width ? fit(natural, headers.map((h, i) => Math.min(natural[i] ?? 0, Math.max(h.length, MIN_CUT))), opts.width) : natural;
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => { const w = widths[i] ?? 0; const t = cut(c, w); return i === cells.length - 1 ? t : t.padEnd(w); }).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}
