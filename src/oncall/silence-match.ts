/**
 * Silences (contract §17.8): `--match KEY=VALUE` and `--match KEY=~REGEX` matchers, and whether a
 * delivery is silenced. As in Alertmanager, a label an alert lacks has the value "" and a regular
 * expression must match the whole value (it is anchored: `db.*` never matches `mydb1`).
 *
 * An event is silenced only when it has alerts and every one of them matches some live silence (all
 * of that silence's matchers); a `resolved` notification is never silenced, so a page it would close
 * still closes.
 */
import type { Silence, SilenceMatcher } from './oncall-config.js';
import { LABEL_NAME, alertLabels, payloadStatus } from './label-name.js';

/** The longest silence (contract §17.8): a week; longer ones are forgotten, not meant. */
export const MAX_SILENCE_MS = 7 * 86_400_000;

/** Longest regular expression or value of one matcher: enough for any label, too short to hide an attack. */
export const MAX_MATCHER_VALUE = 256;

export type MatcherResult = { ok: true; matcher: SilenceMatcher } | { ok: false; error: string };

const compiled = new Map<string, RegExp>();

function anchored(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = new RegExp(`^(?:${pattern})$`, 'u');
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * Why a regular expression could take exponential time on a hostile label value, or null: a
 * quantified group that itself holds a quantifier or an alternative (`(a+)+`, `(x*y)*`, `(a|aa)+`), or
 * a backreference. Label values come from webhook bodies: a silence must not be a way to stall the
 * dispatcher. (A heuristic on top of the length bound, not a proof: keep matchers simple.)
 */
export function backtrackingRisk(pattern: string): string | null {
  const groups: boolean[] = [];
  let quantifiedInside = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return 'backreferences are not allowed';
      i++;
      continue;
    }
    if (c === '[') {
      // A character class: quantifier characters inside it are literals.
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      continue;
    }
    if (c === '(') {
      groups.push(quantifiedInside);
      quantifiedInside = false;
      // `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`: the `?` there is no quantifier.
      if (pattern[i + 1] === '?') {
        const head = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(pattern.slice(i));
        if (head) i += head[0].length - 1;
      }
      continue;
    }
    // A quantifier, or an alternative (`(a|aa)+` backtracks as badly as `(a+)+`).
    const quantifier = c === '+' || c === '*' || c === '{' || c === '?' || c === '|';
    if (c === ')') {
      const inner = quantifiedInside;
      quantifiedInside = groups.pop() ?? false;
      const next = pattern[i + 1];
      if (inner && (next === '+' || next === '*' || next === '{')) return 'a repeated group with a repeat or an alternative inside (such as (a+)+ or (a|aa)*) is not allowed';
      if (inner) quantifiedInside = true;
      continue;
    }
    if (quantifier) quantifiedInside = true;
  }
  return null;
}

/** Parses `KEY=VALUE` or `KEY=~REGEX`; the error says what is wrong without echoing long input. */
export function parseSilenceMatcher(text: string): MatcherResult {
  const m = /^([^=~!]*)(=~|=)(.*)$/s.exec(text);
  if (m === null) return { ok: false, error: 'expected KEY=VALUE or KEY=~REGEX' };
  const [label, op, value] = [m[1] as string, m[2] as '=' | '=~', m[3] as string];
  if (!LABEL_NAME.test(label)) return { ok: false, error: `"${label.slice(0, 64)}" is not a label name (letters, digits and _, not starting with a digit)` };
  if (value.length > MAX_MATCHER_VALUE) return { ok: false, error: `the ${op === '=' ? 'value' : 'regular expression'} of ${label} is longer than ${MAX_MATCHER_VALUE} characters` };
  if (op === '=~') {
    const risk = backtrackingRisk(value);
    if (risk !== null) return { ok: false, error: `the regular expression of ${label}: ${risk}` };
    try {
      anchored(value);
    } catch (err) {
      return { ok: false, error: `the regular expression of ${label} does not compile: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}` };
    }
  }
  return { ok: true, matcher: { label, op, value } };
}

/** `KEY=VALUE` / `KEY=~REGEX` again, for tables and audit rows. */
export function formatSilenceMatcher(matcher: SilenceMatcher): string {
  return `${matcher.label}${matcher.op}${matcher.value}`;
}

function matcherMatches(matcher: SilenceMatcher, labels: Readonly<Record<string, string>>): boolean {
  const value = labels[matcher.label] ?? '';
  return matcher.op === '=' ? value === matcher.value : anchored(matcher.value).test(value);
}

/** Whether the silence is in force at `nowMs` for `agentId` (a silence without an agent holds for all). */
export function silenceLive(silence: Silence, agentId: string, nowMs: number): boolean {
  return (silence.agentId === null || silence.agentId === agentId) && silence.startsAtMs <= nowMs && nowMs < silence.endsAtMs;
}

/**
 * The ids of the live silences that together cover every alert of the payload (the first matching
 * silence of each alert); empty when the event is not silenced.
 */
export function silencedBy(silences: readonly Silence[], agentId: string, payload: unknown, nowMs: number): string[] {
  if (payloadStatus(payload) === 'resolved') return [];
  const alerts = alertLabels(payload);
  if (alerts.length === 0) return [];
  const live = silences.filter((s) => silenceLive(s, agentId, nowMs) && s.matchers.length > 0);
  const ids = new Set<string>();
  for (const labels of alerts) {
    const hit = live.find((s) => s.matchers.every((m) => matcherMatches(m, labels)));
    if (!hit) return [];
    ids.add(hit.id);
  }
  return [...ids];
}

/** True only when every alert of the payload matches a live silence (and it is not a resolved notification). */
export function silenced(silences: readonly Silence[], agentId: string, payload: unknown, nowMs: number): boolean {
  return silencedBy(silences, agentId, payload, nowMs).length > 0;
}
