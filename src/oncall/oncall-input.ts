/**
 * What an operator types for a schedule override or a silence, checked one way whether it came from
 * `svc oncall override add` / `svc silence add` or from a console form (`svc console`, the team
 * console). Each error names the field as the asker calls it — `--for` on the command line, `Duration`
 * in the browser — and never quotes more than a short piece of what was typed.
 *
 * Times (contract §24.5): on the command line a time without a zone is refused naming the form; a
 * console form shows the zone its times are read in (the browser's, or UTC without JavaScript), and a
 * time typed there without a zone is read in that zone — never silently as UTC.
 */
import { formatDuration, parseDuration } from '../core/duration.js';
import { instantError, localDateTimeFields, parseZonedInstant } from '../core/instant.js';
import { MAX_SILENCE_MS, parseSilenceMatcher } from './silence-match.js';
import { isKnownZone, zoneTime } from './zone-time.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * An instant: ISO-8601 with a zone, or integer ms. With `zone` (a console form's), a local date and
 * time without a zone (`2026-11-26 09:00`) is read in that IANA zone; without it, it is refused.
 */
export function parseInstant(name: string, raw: string, zone?: string): Checked<number> {
  const text = raw.trim();
  const parsed = parseZonedInstant(text);
  if (parsed.ok) return { ok: true, value: parsed.ms };
  if (parsed.reason === 'no-zone' && zone !== undefined) {
    const f = localDateTimeFields(text);
    if (f !== null) return { ok: true, value: zoneTime(zone).toInstant(Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second)) };
  }
  return { ok: false, error: instantError(name, text, parsed.reason) };
}

/** A console form's time zone field: an IANA zone name the tz database knows. */
export function checkZone(name: string, raw: string): Checked<string> {
  const zone = raw.trim();
  if (zone.length > 0 && zone.length <= 64 && /^[A-Za-z0-9_+\-/]+$/.test(zone) && isKnownZone(zone)) return { ok: true, value: zone };
  return { ok: false, error: `${name}: not a time zone the tz database knows (such as UTC or Europe/Berlin)` };
}

/** An override's window: both instants, the end after the start; `zone` as for parseInstant. */
export function checkOverrideWindow(names: { from: string; to: string }, from: string, to: string, zone?: string): Checked<{ fromMs: number; toMs: number }> {
  const fromMs = parseInstant(names.from, from, zone);
  if (!fromMs.ok) return fromMs;
  const toMs = parseInstant(names.to, to, zone);
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
