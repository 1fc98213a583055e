/**
 * What an operator types for a schedule override or a silence, checked one way whether it came from
 * `svc oncall override add` / `svc silence add` or from a console form (`svc console`). Each error
 * names the field as the asker calls it — `--for` on the command line, `Duration` in the browser — and
 * never quotes more than a short piece of what was typed.
 */
import { formatDuration, parseDuration } from '../core/duration.js';
import { MAX_SILENCE_MS, parseSilenceMatcher } from '../oncall/silence-match.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** An instant: ISO-8601 with a zone, or integer ms. */
export function parseInstant(name: string, raw: string): Checked<number> {
  if (/^\d{1,16}$/.test(raw)) return { ok: true, value: Number(raw) };
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}.*(Z|[+-]\d{2}:?\d{2})$/.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) return { ok: false, error: `${name}: expected an ISO-8601 time with a zone (2026-11-25T09:00+01:00) or integer milliseconds` };
  return { ok: true, value: ms };
}

/** An override's window: both instants, the end after the start. */
export function checkOverrideWindow(names: { from: string; to: string }, from: string, to: string): Checked<{ fromMs: number; toMs: number }> {
  const fromMs = parseInstant(names.from, from);
  if (!fromMs.ok) return fromMs;
  const toMs = parseInstant(names.to, to);
  if (!toMs.ok) return toMs;
  if (toMs.value <= fromMs.value) return { ok: false, error: `${names.to} must be after ${names.from}` };
  return { ok: true, value: { fromMs: fromMs.value, toMs: toMs.value } };
}

export interface SilenceInput {
  matchers: readonly string[];
  duration: string;
  reason: string;
}

/** A silence: at least one matcher the daemon's parser accepts, a duration of at most a week, a reason. */
export function checkSilence(names: { match: string; duration: string; reason: string }, input: SilenceInput):
  Checked<{ matchers: string[]; durationMs: number; reason: string }> {
  if (input.matchers.length === 0) return { ok: false, error: `give at least one ${names.match} KEY=VALUE or KEY=~REGEX` };
  for (const text of input.matchers) {
    const parsed = parseSilenceMatcher(text);
    if (!parsed.ok) return { ok: false, error: `${names.match} ${JSON.stringify(text.slice(0, 64))}: ${parsed.error}` };
  }
  const durationMs = parseDuration(input.duration);
  if (durationMs === null || durationMs <= 0) return { ok: false, error: `${names.duration} must be a duration such as 30m, 2h or 3d` };
  if (durationMs > MAX_SILENCE_MS) {
    return { ok: false, error: `${names.duration} ${input.duration.slice(0, 32)} is longer than ${formatDuration(MAX_SILENCE_MS)}; silence at most a week at a time` };
  }
  if (input.reason.trim().length === 0 || input.reason.length > 1000) return { ok: false, error: `${names.reason} must be 1 to 1000 characters` };
  return { ok: true, value: { matchers: [...input.matchers], durationMs, reason: input.reason } };
}
