/**
 * The one bounded check JSON from outside passes before anything builds it: a webhook body before it
 * is stored (contract §11.1), a model's answer before it is parsed (runtime/providers/llm-http.ts). It
 * is JSON (RFC 8259), its top-level value is an object, and nothing nests deeper than MAX_DEPTH (the
 * top-level value is level 1). One pass over the text with an explicit stack and no values built:
 * linear in the size, a megabyte in a few milliseconds, no recursion to overflow and no garbage for
 * the collector — where JSON.parse of a megabyte of tiny objects allocates hundreds of thousands of
 * them, and a deep enough nesting overflows the stack of every later reader. The scanners are plain
 * functions of (text, index) returning the index after what they read (−1: not JSON): closures over a
 * shared index put it in a heap context, and each webhook paid for that (≈5 % of the ingest thread).
 */

/** Deepest nesting accepted (contract §11.1); a model's answer gets the same bound. */
export const MAX_DEPTH = 64;

export type ShapeCheck = { ok: true } | { ok: false; reason: 'not-json' | 'not-object' | 'too-deep' };

// Character codes the scanner compares against.
const TAB = 0x09, LF = 0x0a, CR = 0x0d, SPACE = 0x20, QUOTE = 0x22, PLUS = 0x2b, COMMA = 0x2c, MINUS = 0x2d, DOT = 0x2e,
  ZERO = 0x30, NINE = 0x39, COLON = 0x3a, OPEN_BRACKET = 0x5b, BACKSLASH = 0x5c, CLOSE_BRACKET = 0x5d,
  OPEN_BRACE = 0x7b, CLOSE_BRACE = 0x7d, LOWER_E = 0x65, UPPER_E = 0x45;

const isWs = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB;
const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** What the scanner expects next inside the innermost container. */
const enum Expect { Value, ValueOrClose, KeyOrClose, Key, Colon, CommaOrClose }

/** Index of the first non-whitespace character at or after `i`. */
function skipWs(text: string, i: number): number {
  const n = text.length;
  while (i < n && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** A string starting at the quote at `i`: the index after its closing quote, or −1. */
function scanString(text: string, i: number): number {
  const n = text.length;
  i++;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) { // \uXXXX
        if (!(isHex(text.charCodeAt(i + 2)) && isHex(text.charCodeAt(i + 3)) && isHex(text.charCodeAt(i + 4)) && isHex(text.charCodeAt(i + 5)))) return -1;
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (e !== 0x22 && e !== 0x5c && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) return -1;
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/** A number starting at `i`: the index after it, or −1. */
function scanNumber(text: string, i: number): number {
  if (text.charCodeAt(i) === MINUS) i++;
  if (text.charCodeAt(i) === ZERO) i++;
  else if (isDigit(text.charCodeAt(i))) { while (isDigit(text.charCodeAt(i))) i++; } else return -1;
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === LOWER_E || e === UPPER_E) {
    i++;
    const s = text.charCodeAt(i);
    if (s === PLUS || s === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** `true`, `false` or `null` at `i`: the index after it, or −1. */
function scanLiteral(text: string, i: number): number {
  for (const word of LITERALS) if (text.startsWith(word, i)) return i + word.length;
  return -1;
}
const LITERALS = ['true', 'false', 'null'] as const;

/** After the one top-level value, ending at `i`: only whitespace may follow, and it must have been an object. */
function topLevel(text: string, i: number, topIsObject: boolean): ShapeCheck {
  if (skipWs(text, i) !== text.length) return { ok: false, reason: 'not-json' };
  return topIsObject ? { ok: true } : { ok: false, reason: 'not-object' };
}

export function checkJsonShape(text: string, maxDepth = MAX_DEPTH): ShapeCheck {
  const n = text.length;
  let i = skipWs(text, 0);
  const topIsObject = text.charCodeAt(i) === OPEN_BRACE;
  // The stack of open containers: true for an object, false for an array.
  const stack: boolean[] = [];
  let expect: Expect = Expect.Value;
  for (;;) {
    i = skipWs(text, i);
    if (i >= n) return { ok: false, reason: 'not-json' };
    const c = text.charCodeAt(i);
    switch (expect) {
      case Expect.Value:
      case Expect.ValueOrClose: {
        if (expect === Expect.ValueOrClose && c === CLOSE_BRACKET) { i++; stack.pop(); break; }
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (stack.length >= maxDepth) return { ok: false, reason: 'too-deep' };
          stack.push(c === OPEN_BRACE);
          i++;
          expect = c === OPEN_BRACE ? Expect.KeyOrClose : Expect.ValueOrClose;
          continue;
        }
        if (c === QUOTE) i = scanString(text, i);
        else if (c === MINUS || isDigit(c)) i = scanNumber(text, i);
        else i = scanLiteral(text, i);
        if (i < 0) return { ok: false, reason: 'not-json' };
        if (stack.length === 0) return topLevel(text, i, topIsObject); // a scalar at the top
        expect = Expect.CommaOrClose;
        continue;
      }
      case Expect.KeyOrClose:
      case Expect.Key:
        if (expect === Expect.KeyOrClose && c === CLOSE_BRACE) { i++; stack.pop(); break; }
        if (c !== QUOTE) return { ok: false, reason: 'not-json' };
        i = scanString(text, i);
        if (i < 0) return { ok: false, reason: 'not-json' };
        expect = Expect.Colon;
        continue;
      case Expect.Colon:
        if (c !== COLON) return { ok: false, reason: 'not-json' };
        i++;
        expect = Expect.Value;
        continue;
      case Expect.CommaOrClose: {
        const inObject = stack[stack.length - 1];
        if (c === COMMA) { i++; expect = inObject ? Expect.Key : Expect.Value; continue; }
        if (c === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) { i++; stack.pop(); break; }
        return { ok: false, reason: 'not-json' };
      }
    }
    // A container just closed.
    if (stack.length === 0) return topLevel(text, i, topIsObject);
    expect = Expect.CommaOrClose;
  }
}
