/**
 * Output for people (contract §13): every text a command writes goes through the one terminal-safe
 * printer (core/terminal-text.ts), so nothing a remote host, an alert or a model wrote can drive the
 * terminal; colour and width only when stdout is a terminal, and never when NO_COLOR is set to
 * anything non-empty (https://no-color.org) or TERM is `dumb`. Piped output and `--json` carry no
 * escape codes.
 */
import { terminalWriter } from '../core/terminal-text.js';
import type { CliContext } from './context.js';
import type { Column } from './table.js';
import { formatTable } from './table.js';

export function colourOn(ctx: CliContext): boolean {
  const tty = (ctx.columns?.() ?? null) !== null;
  const noColor = ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '';
  return tty && !noColor && ctx.env.TERM !== 'dumb';
}

/** The context the commands run with: its stdout and stderr write through the terminal-safe printer. */
export function terminalContext(ctx: CliContext): CliContext {
  return { ...ctx, stdout: terminalWriter(ctx.stdout, () => colourOn(ctx)), stderr: terminalWriter(ctx.stderr, () => false) };
}

/** A table cut to this terminal's width (none when piped), its header in bold. */
export function printTable(ctx: CliContext, headers: ReadonlyArray<string | Column>, rows: ReadonlyArray<readonly string[]>): void {
  const text = formatTable(headers, rows, { width: ctx.columns?.() ?? null });
  const eol = text.indexOf('\n');
  ctx.stdout(text.slice(0, eol), 'bold');
  ctx.stdout(text.slice(eol));
}
