/**
 * Text cut to what a vendor takes, ending in `…` when cut, never inside a character: Pushover counts
 * characters (a message 1,024, a title 250), ntfy bytes (a message over 4,096 becomes an attachment).
 */

/** At most `max` characters (code points). */
export function cutChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** At most `maxBytes` bytes of UTF-8. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength('…', 'utf8');
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (used + size > budget) break;
    out += ch;
    used += size;
  }
  return `${out}…`;
}

/** One line: control characters (a newline in an alert's title) become spaces, so the text can travel in a header or a title. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}
