/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 §6.2.1): what one SMS part of 160 characters holds.
 * A single character outside it makes the whole message UCS-2 — 70 characters a part — so a 160-character
 * text with one curly quote would be billed as three parts. Text for an SMS is therefore made GSM-7
 * here first: characters of the basic table count 1, those of the extension table (`^ { } \ [ ~ ] | €`)
 * count 2 (an escape and the character), anything else is transliterated (accents dropped, typographic
 * quotes and dashes made plain, whitespace made a space) or, when nothing fits, replaced by `?`.
 */

/** The basic table, in table order; ESC (0x1B, the extension's escape) is not a character of text. */
const BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table's characters (each sent as ESC + code); the form feed is left out: a space stands for it. */
const EXTENSION = '^{}\\[~]|€';

const basic = new Set(BASIC);
const extension = new Set(EXTENSION);

/** One SMS part in GSM-7: 160 septets (TS 23.038; a concatenated message's parts hold 153 each). */
export const SMS_SEPTETS = 160;

/** Non-GSM characters with a plain stand-in; the rest lose their accents (NFD) or become `?`. */
const STAND_INS: Readonly<Record<string, string>> = {
  '\u2018': '\'', '\u2019': '\'', '\u201A': '\'', '\u201B': '\'', '\u2032': '\'', '`': '\'', '´': '\'',
  '\u201C': '"', '\u201D': '"', '\u201E': '"', '\u201F': '"', '\u2033': '"', '«': '"', '»': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '…': '...', '•': '*', '·': '.', '×': 'x', '÷': '/', '≤': '<=', '≥': '>=', '≠': '!=', '→': '->', '←': '<-', '⇒': '=>',
  '©': '(c)', '®': '(R)', '™': 'TM', '°': 'o', 'µ': 'u', '¢': 'c', '½': '1/2', '¼': '1/4', '¾': '3/4',
  'ç': 'c', 'ł': 'l', 'Ł': 'L', 'đ': 'd', 'Đ': 'D', 'ı': 'i', 'œ': 'oe', 'Œ': 'OE', 'þ': 'th', 'Þ': 'Th', 'ð': 'd',
  'ĸ': 'k', 'ŋ': 'n', 'Ŋ': 'N', 'ſ': 's',
};

/** Septets one character of GSM text takes: 1 (basic), 2 (extension). */
export function septetsOf(char: string): number {
  return extension.has(char) ? 2 : 1;
}

/** Whether every character of `text` is in the GSM-7 alphabet (basic or extension). */
export function isGsm7(text: string): boolean {
  for (const char of text) if (!basic.has(char) && !extension.has(char)) return false;
  return true;
}

/** Septets `text` takes; only meaningful for GSM text (see toGsm7). */
export function septetCount(text: string): number {
  let n = 0;
  for (const char of text) n += septetsOf(char);
  return n;
}

/** One character as GSM text: itself, its stand-in, its letter without accents, or `?`. */
function transliterate(char: string): string {
  if (basic.has(char) || extension.has(char)) return char;
  const stand = STAND_INS[char];
  if (stand !== undefined) return stand;
  if (/^\s$/u.test(char) || /^\p{Cc}$/u.test(char)) return ' ';
  // Accented letters: the base letter when it is GSM (á → a, Ś → S); é, ü, ñ … are GSM already.
  const base = char.normalize('NFD').replace(/\p{M}/gu, '');
  if (base !== '' && [...base].every((c) => basic.has(c))) return base;
  return '?';
}

/** `text` in the GSM-7 alphabet, every character transliterated (see the file's comment). */
export function toGsm7(text: string): string {
  let out = '';
  for (const char of text) out += transliterate(char);
  return out;
}

/**
 * GSM text cut to at most `max` septets, ending in `...` when cut (when `max` leaves room for it);
 * never half an extension character.
 */
export function cutGsm7(text: string, max: number): string {
  if (septetCount(text) <= max) return text;
  const room = max >= 4 ? max - 3 : Math.max(0, max);
  let out = '';
  let used = 0;
  for (const char of text) {
    const n = septetsOf(char);
    if (used + n > room) break;
    out += char;
    used += n;
  }
  return max >= 4 ? `${out.trimEnd()}...` : out;
}
