/**
 * The one matcher of `=~` label patterns: silences (contract §17.8) and label routes (§24.3).
 *
 * A pattern is RE2 syntax (re2js, a port of Go's regexp: no backreferences, no lookaround) matched
 * against the whole label value (anchored at both ends, as Alertmanager's): `db.*` never matches
 * `mydb1`. RE2 matches in time linear in the value's length — JavaScript's RegExp took O(n⁴) on
 * `.*-.*-.*-.*-prod` (issue 33.1). What is left to bound is the constant:
 *
 * - a pattern is at most MAX_PATTERN_CHARS characters and compiles to at most MAX_PROGRAM_INSTRUCTIONS
 *   instructions (`(a?){1000}` is 10 characters and 4,000 instructions);
 * - a value longer than MAX_MATCHED_VALUE_CHARS never matches a pattern (a silence then does not
 *   silence, a route does not take it: the alert still pages). Equality (`=`) compares any length;
 * - re2js runs a lazily built DFA, fast while its states are few; a pattern whose DFA grows with the
 *   value (`.*a.{20}`: a state per position of the last `a`) costs ~0.1 ms per character that way. A
 *   pattern is refused when a seeded probe of such values makes its DFA pass MAX_DFA_STATES states, and
 *   each compiled pattern's DFA keeps at most DFA_BUDGET_BYTES, past which re2js falls back to its
 *   bit-state backtracker: O(instructions × characters), ≤ 200 × 256 steps, whatever gets through.
 *
 * A pattern that does not compile — a silence stored before patterns were RE2, in JavaScript syntax
 * RE2 refuses — matches nothing: it never stalls or crashes ingest, and `svc silence ls` says so.
 * Measured: docs/performance.md, "2026-11-29: silences and label routes at their worst pattern".
 * The DFA cap and the probe read re2js 2.10.0's DFA (`re2().dfa`, typed in its declarations); label-pattern.test.ts
 * fails if an upgrade moves them.
 */
import { RE2JS } from 're2js';
import type { LabelMatcher } from './oncall-config.js';

/** Longest pattern (and longest exact value) of one matcher: enough for any label, too short to hide an attack. */
export const MAX_PATTERN_CHARS = 256;
/** Most instructions a pattern may compile to: counted repeats (`x{200}`) are the way past the length bound. */
export const MAX_PROGRAM_INSTRUCTIONS = 200;
/** Longest label value a pattern is matched against (Kubernetes names stop at 253); longer values never match a pattern. */
export const MAX_MATCHED_VALUE_CHARS = 256;
/** Most DFA states the probe may see: `[a-z0-9-]{1,63}` needs 65, `.*a.{20}` thousands. */
export const MAX_DFA_STATES = 200;
/** DFA cache per compiled pattern (re2js's default is 8 MB, and stored silences are not bounded in number). */
const DFA_BUDGET_BYTES = 256 * 1024;
/** Most probe values (of MAX_MATCHED_VALUE_CHARS characters each). */
const MAX_PROBES = 400;

export type PatternResult = { ok: true; pattern: RE2JS } | { ok: false; error: string };

/** Caps the pattern's DFA cache: past it re2js clears it, and falls back to its backtracker when that does not help. */
function capped(pattern: RE2JS): RE2JS {
  const dfa = pattern.re2().dfa;
  dfa.stateBudget = DFA_BUDGET_BYTES;
  dfa.memBudget = DFA_BUDGET_BYTES;
  return pattern;
}

/**
 * The most DFA states a probe builds, on a fresh compile with re2js's own budget. A DFA grows on
 * values that stay alive in it, so each probe value is drawn from a few of the pattern's own
 * character classes (a representative rune of each class its DFA tells apart): every class at once,
 * then every pair and every triple of them (at most MAX_PROBES values of MAX_MATCHED_VALUE_CHARS
 * characters). Seeded: a pattern always gets the same answer. It stops at the first value past
 * MAX_DFA_STATES; a small DFA is built once and then costs little per probe.
 */
function probeStates(text: string): number {
  const probe = RE2JS.compile(text);
  const dfa = probe.re2().dfa;
  const printable = (r: number): boolean => r >= 0x20 && r <= 0xfffd && (r < 0xd800 || r > 0xdfff) && r !== 0x7f;
  const reps = [...new Set([...dfa.classBounds].flatMap((b) => [b, b - 1]).concat([0x61, 0x2d, 0x30]).filter(printable))]
    .map((r) => String.fromCharCode(r));
  const sets: string[][] = [reps];
  for (let i = 0; i < reps.length; i++) {
    for (let j = i + 1; j < reps.length; j++) {
      sets.push([reps[i] as string, reps[j] as string]);
      for (let k = j + 1; k < reps.length; k++) sets.push([reps[i] as string, reps[j] as string, reps[k] as string]);
    }
  }
  let seed = 0x2545f491;
  const next = (): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed >>> 8; };
  let most = 0;
  for (const chars of sets.slice(0, MAX_PROBES)) {
    let value = '';
    for (let i = 0; i < MAX_MATCHED_VALUE_CHARS; i++) value += chars[next() % chars.length] as string;
    probe.testExact(value);
    most = Math.max(most, dfa.stateCount);
    if (most > MAX_DFA_STATES) break;
  }
  return most;
}

/**
 * Compiled patterns by text. Bounded in number; each pattern's DFA cache is capped (capped()).
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
  if (probeStates(text) > MAX_DFA_STATES) {
    return { ok: false, error: 'needs an automaton that grows with the label (such as .*a.{20}: a counted or long repeat after a wildcard); '
      + 'anchor it on a literal or shorten the repeat' };
  }
  return { ok: true, pattern: capped(pattern) };
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
