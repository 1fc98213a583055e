/**
 * An instant as people type it (contract §24.5): ISO-8601 with a zone (`Z` or `±HH:MM`), or integer
 * milliseconds since the epoch. A date and time without a zone is not guessed at — it is neither UTC
 * nor the machine's zone, it is refused with the form expected — unless the caller names the zone it
 * is read in (a console form that shows its zone: oncall/zone-time.ts `instantInZone`). This is the
 * one parser of typed instants: query parameters, CLI flags and console forms all use it.
 */

/** What a zoned instant looks like, for error messages. */
export const ZONED_FORM = 'ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds';

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/;
/** A date and time with a space or a T and no zone: what a person types first. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

export type InstantParse = { ok: true; ms: number } | { ok: false; reason: 'no-zone' | 'malformed' };

/** Whether year, month and day name a real date (Date.parse rolls Feb 30 over to Mar 1; this refuses it). */
function realDate(year: number, month: number, day: number, hour: number, minute: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59;
}

export function parseZonedInstant(raw: string): InstantParse {
  if (/^\d{1,16}$/.test(raw)) return { ok: true, ms: Number(raw) };
  if (ZONELESS.test(raw)) return { ok: false, reason: 'no-zone' };
  const m = ISO.exec(raw);
  if (m === null || m[8] === undefined) return { ok: false, reason: 'malformed' };
  const ms = Date.parse(raw);
  if (!Number.isFinite(ms) || !realDate(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]))) return { ok: false, reason: 'malformed' };
  return { ok: true, ms };
}

/** The error text of a refused instant, naming the field and the form expected; quotes at most 40 characters of what was typed. */
export function instantError(name: string, raw: string, reason: 'no-zone' | 'malformed'): string {
  const shown = JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  return reason === 'no-zone'
    ? `${name}: ${shown} has no time zone; write ${ZONED_FORM}`
    : `${name}: expected ${ZONED_FORM}`;
}

/** `YYYY-MM-DD HH:MM[:SS]` (space or T, no zone) as its fields; null when it is not such a local time or not a real one. */
export function localDateTimeFields(raw: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(raw);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [number, number, number, number, number, number];
  return realDate(year, month, day, hour, minute) && second <= 59 ? { year, month, day, hour, minute, second } : null;
}
