/**
 * The one matcher of `=~` label patterns: silences (contract §17.8) and label routes (§24.3).
 *
 * A pattern is RE2 syntax (re2js, a port of Go's regexp: no backreferences, no lookaround) matched
 * against the whole label value (anchored at both ends, as Alertmanager's): `db.*` never matches
 * `mydb1`. RE2 matches in time linear in the value's length; what is left to bound is the constant,
 * which grows with the compiled program, and the length of the value:
 *
 * - a pattern is at most MAX_PATTERN_CHARS characters and compiles to at most MAX_PROGRAM_INSTRUCTIONS
 *   instructions (`(a?){1000}` is 7 characters and 2,000 instructions);
 * - a value longer than MAX_MATCHED_VALUE_CHARS never matches a pattern (a silence then does not
 *   silence, a route does not take it: the alert still pages). Equality (`=`) compares any length.
 *
 * So one pattern against one label costs at most about 1,024 × 300 steps of RE2's slowest engine, a
 * few milliseconds; in practice its DFA takes well under 0.1 ms (docs/performance.md, 2026-12 section).
 * A pattern that does not compile — a silence stored before patterns were RE2, in JavaScript syntax
 * RE2 refuses — matches nothing: it never stalls or crashes ingest, and `svc silence ls` says so.
 */
import { RE2JS } from 're2js';
import type { LabelMatcher } from './oncall-config.js';

/** Longest pattern (and longest exact value) of one matcher: enough for any label, too short to hide an attack. */
export const MAX_PATTERN_CHARS = 256;
/** Most instructions a pattern may compile to: counted repeats (`x{200}`) are the way past the length bound. */
export const MAX_PROGRAM_INSTRUCTIONS = 300;
/** Longest label value a pattern is matched against; longer values never match a pattern. */
export const MAX_MATCHED_VALUE_CHARS = 1024;

export type PatternResult = { ok: true; pattern: RE2JS } | { ok: false; error: string };

/**
 * Compiled patterns by text. Bounded: re2js keeps a lazily built DFA (up to 8 MB under a hostile
 * value) per compiled pattern, and stored silences are not bounded in number.
 */
const compiled = new Map<string, PatternResult>();
const MAX_COMPILED = 256;

function compileUncached(text: string): PatternResult {
  if (text.length > MAX_PATTERN_CHARS) return { ok: false, error: `is longer than ${MAX_PATTERN_CHARS} characters` };
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(text);
  } catch (err) {
    // re2js says `error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``: the part after the colon names the fault.
    const why = (err as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, error: `is not RE2 syntax (${why.slice(0, 120)}); lookarounds and backreferences are not supported` };
  }
  const size = pattern.programSize();
  if (size > MAX_PROGRAM_INSTRUCTIONS) {
    return { ok: false, error: `compiles to ${size} instructions, more than ${MAX_PROGRAM_INSTRUCTIONS} (write fewer or smaller counted repeats such as {n})` };
  }
  return { ok: true, pattern };
}

/** Compiles a label pattern, or says what is wrong with it (without quoting it: callers name the matcher). */
export function compileLabelPattern(text: string): PatternResult {
  let result = compiled.get(text);
  if (result === undefined) {
    result = compileUncached(text);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(text, result);
  }
  return result;
}

/** Whether the whole value matches the pattern; false for a pattern that does not compile and for a value past the bound. */
export function patternMatches(text: string, value: string): boolean {
  if (value.length > MAX_MATCHED_VALUE_CHARS) return false;
  const result = compileLabelPattern(text);
  return result.ok && result.pattern.testExact(value);
}

/** Whether one alert's labels match every matcher; as in Alertmanager, a label the alert lacks has the value "". */
export function labelsMatch(matchers: readonly LabelMatcher[], labels: Readonly<Record<string, string>>): boolean {
  return matchers.every((m) => {
    const value = labels[m.label] ?? '';
    return m.op === '=' ? value === m.value : patternMatches(m.value, value);
  });
}
