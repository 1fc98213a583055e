/**
 * Colour and width for people (contract §13): only when stdout is a terminal, and never when
 * NO_COLOR is set to anything non-empty (https://no-color.org) or TERM is `dumb`. Piped output and
 * `--json` carry no escape codes.
 */
import type { CliContext } from './context.js';

export type Style = 'bold' | 'red' | 'green';
/** SGR codes written directly: util.styleText decides on its own (by process.stdout), not by the context. */
const SGR: Record<Style, [string, string]> = { bold: ['\x1b[1m', '\x1b[22m'], red: ['\x1b[31m', '\x1b[39m'], green: ['\x1b[32m', '\x1b[39m'] };

export function colourOn(ctx: CliContext): boolean {
  const tty = (ctx.columns?.() ?? null) !== null;
  const noColor = ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '';
  return tty && !noColor && ctx.env.TERM !== 'dumb';
}

export function paint(ctx: CliContext, style: Style, text: string): string {
  const [on, off] = SGR[style];
  return colourOn(ctx) ? `${on}${text}${off}` : text;
}

/** formatTable options for this terminal: cut to its width, header in bold. */
export function tableOptions(ctx: CliContext): { width: number | null; header: (line: string) => string } {
  return { width: ctx.columns?.() ?? null, header: (line) => paint(ctx, 'bold', line) };
}
