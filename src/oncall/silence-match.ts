/**
 * Silences (contract §17.8): `--match KEY=VALUE` and `--match KEY=~REGEX` matchers, and whether a
 * delivery is silenced. As in Alertmanager, a label an alert lacks has the value "" and a regular
 * expression must match the whole value (it is anchored: `db.*` never matches `mydb1`). Patterns are
 * RE2, matched in time linear in the label's length with bounded constants (label-pattern.ts): a
 * silence is no way to stall the store's writer, which runs this for every event it ingests.
 *
 * An event is silenced only when it has alerts and every one of them matches some live silence (all
 * of that silence's matchers); a `resolved` notification is never silenced, so a page it would close
 * still closes.
 */
import type { Silence, SilenceMatcher } from './oncall-config.js';
import { LABEL_NAME, alertLabels, payloadStatus } from './label-name.js';
import { MAX_PATTERN_CHARS, compileLabelPattern, labelsMatch } from './label-pattern.js';

/** The longest silence (contract §17.8): a week; longer ones are forgotten, not meant. */
export const MAX_SILENCE_MS = 7 * 86_400_000;

/** Longest regular expression or value of one matcher: enough for any label, too short to hide an attack. */
export const MAX_MATCHER_VALUE = MAX_PATTERN_CHARS;

export type MatcherResult = { ok: true; matcher: SilenceMatcher } | { ok: false; error: string };

/**
 * Parses `KEY=VALUE` or `KEY=~REGEX` (RE2 syntax, label-pattern.ts); the error names the matcher's
 * label and what is wrong, without echoing long input. The CLI, the admin socket and the console's
 * silence form all check with this one parser.
 */
export function parseSilenceMatcher(text: string): MatcherResult {
  const m = /^([^=~!]*)(=~|=)(.*)$/s.exec(text);
  if (m === null) return { ok: false, error: 'expected KEY=VALUE or KEY=~REGEX' };
  const [label, op, value] = [m[1] as string, m[2] as '=' | '=~', m[3] as string];
  if (!LABEL_NAME.test(label)) return { ok: false, error: `"${label.slice(0, 64)}" is not a label name (letters, digits and _, not starting with a digit)` };
  if (value.length > MAX_MATCHER_VALUE) return { ok: false, error: `the ${op === '=' ? 'value' : 'regular expression'} of ${label} is longer than ${MAX_MATCHER_VALUE} characters` };
  if (op === '=~') {
    const compiled = compileLabelPattern(value);
    if (!compiled.ok) return { ok: false, error: `the regular expression of ${label} ${compiled.error}` };
  }
  return { ok: true, matcher: { label, op, value } };
}

/** `KEY=VALUE` / `KEY=~REGEX` again, for tables and audit rows. */
export function formatSilenceMatcher(matcher: SilenceMatcher): string {
  return `${matcher.label}${matcher.op}${matcher.value}`;
}

/**
 * The matchers of a stored silence that match nothing because their pattern no longer passes the
 * parser — one stored in JavaScript syntax before patterns were RE2 (`(?=…)`, `\\1`) — with why:
 * `svc silence ls` warns of them, ingest just finds them not matching.
 */
export function refusedMatchers(matchers: readonly SilenceMatcher[]): Array<{ matcher: string; error: string }> {
  return matchers.flatMap((m) => {
    const parsed = parseSilenceMatcher(formatSilenceMatcher(m));
    return parsed.ok ? [] : [{ matcher: formatSilenceMatcher(m), error: parsed.error }];
  });
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
    const hit = live.find((s) => labelsMatch(s.matchers, labels));
    if (!hit) return [];
    ids.add(hit.id);
  }
  return [...ids];
}

/** True only when every alert of the payload matches a live silence (and it is not a resolved notification). */
export function silenced(silences: readonly Silence[], agentId: string, payload: unknown, nowMs: number): boolean {
  return silencedBy(silences, agentId, payload, nowMs).length > 0;
}
