/**
 * Text for a terminal that cannot drive it (issue 19). Alert labels, model summaries, log records and
 * whole answers of remote hosts reach the CLI's output; written raw, an `ESC ] 52` sequence writes the
 * clipboard, `ESC [ 2 K` or a carriage return erases what was printed, and a right-to-left override
 * reorders a line. So every character that controls a terminal is shown instead of obeyed:
 *
 * - C0 controls (U+0000–U+001F) but the line break, DEL (U+007F) and C1 controls (U+0080–U+009F):
 *   ESC among them, so no escape sequence can start; a tab becomes a space;
 * - bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 *
 * Each is written as a `\u001b`-style escape: visible, unambiguous, and exactly how JSON writes the
 * same character, so JSON text passed through stays JSON with the same values (those characters only
 * occur inside its strings). The CLI's own colours are added after this, never passed through it.
 */

/** Every character that is neutralised, the line break and the tab included (see terminalLine). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is neutralised here
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- the same set without the line break
const CONTROL_TEST = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function escape(ch: string): string {
  if (ch === '\t') return ' ';
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

// eslint-disable-next-line no-control-regex -- a CRLF line break, or one control character
const CONTROL_OR_CRLF = /\r\n|[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text of any number of lines: line breaks stay — CRLF too, which formats such as iCalendar require
 * (`svc oncall export`) and which erases nothing, the line feed following at once — and every other
 * control is shown as an escape.
 */
export function terminalText(text: string): string {
  // Most output has nothing to neutralise: one test, no copy.
  if (!CONTROL_TEST.test(text)) return text;
  return text.replace(CONTROL_OR_CRLF, (ch) => (ch === '\n' || ch === '\r\n' ? ch : escape(ch)));
}

/** One line (a table cell, a field of a log record): a line break in it is shown too, never obeyed. */
export function terminalLine(text: string): string {
  return text.replace(CONTROL, escape);
}

/** The styles the CLI's own output uses (Select Graphic Rendition codes). */
export type TextStyle = 'bold' | 'red' | 'green';
const SGR: Record<TextStyle, [string, string]> = { bold: ['\x1b[1m', '\x1b[22m'], red: ['\x1b[31m', '\x1b[39m'], green: ['\x1b[32m', '\x1b[39m'] };

/** Writes output made safe (terminalText), then styled when `colour()` says so. */
export type TerminalWriter = (text: string, style?: TextStyle) => void;

/** The one printer: every text the CLI writes goes through a writer made here. */
export function terminalWriter(write: (text: string) => void, colour: () => boolean): TerminalWriter {
  return (text, style) => {
    const safe = terminalText(text);
    if (style === undefined || !colour()) {
      write(safe);
      return;
    }
    const [on, off] = SGR[style];
    write(`${on}${safe}${off}`);
  };
}
