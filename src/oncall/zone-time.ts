/**
 * Local time in an IANA zone, the one place svc converts between instants and wall-clock time. The
 * zone rules come from luxon (the platform's tz database through Intl); this file only decides what a
 * local time that does not exist, or exists twice, means:
 *
 * - a local time in a spring-forward gap (02:30 on the night clocks jump from 02:00 to 03:00) is read
 *   with the offset in effect before the gap, so it lands as far past the jump as it was written past
 *   the last valid minute: 02:30 → 03:30 summer time (RFC 5545 §3.3.5 reads DTSTART the same way);
 * - a local time in a fall-back overlap (02:30 on the night 03:00 returns to 02:00) is its first
 *   occurrence, the summer-time one.
 *
 * "Naive" milliseconds are a local date-time written as if it were UTC (`Date.UTC(y, m, d, h, min)`):
 * adding days or hours to them is wall-clock arithmetic, which is what keeps handoffs at their local
 * time across DST.
 */
import { IANAZone } from 'luxon';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Every offset change of the tz database falls on a quarter hour: an offset is constant within one. */
const QUARTER_MS = 15 * MINUTE_MS;
/** Days of offsets cached per zone; the cache is dropped when it grows past this. */
const MAX_CACHED_DAYS = 20_000;

export interface ZoneTime {
  readonly name: string;
  /** Offset from UTC in minutes at `instantMs`. */
  offsetMinutes(instantMs: number): number;
  /** The naive local milliseconds of `instantMs`. */
  toNaive(instantMs: number): number;
  /** The instant of a naive local time (gap and overlap as described above). */
  toInstant(naiveMs: number): number;
}

const zones = new Map<string, ZoneTime>();

/** True when luxon (the platform's tz database) knows the zone. */
export function isKnownZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** The zone's time functions; throws on an unknown zone (the loader has checked it). */
export function zoneTime(name: string): ZoneTime {
  const known = zones.get(name);
  if (known) return known;
  if (!IANAZone.isValidZone(name)) throw new RangeError(`unknown time zone ${JSON.stringify(name)}`);
  const zone = IANAZone.create(name);
  // Intl answers one offset in ~50 µs; schedules ask for thousands when they enumerate four weeks.
  // Offsets are cached per UTC day: its offset at the start, and where it changes (found by bisection
  // over quarter hours) when the end of the day differs. A day holds at most one change in the tz database.
  let cache = new Map<number, { start: number; changeMs: number; end: number }>();
  const offsetMinutes = (instantMs: number): number => {
    const day = Math.floor(instantMs / DAY_MS);
    let known = cache.get(day);
    if (known === undefined) {
      const dayStart = day * DAY_MS;
      const start = zone.offset(dayStart);
      const end = zone.offset(dayStart + DAY_MS - QUARTER_MS);
      let changeMs = Infinity;
      if (start !== end) {
        // The first quarter hour with the new offset.
        let lo = 0;
        let hi = DAY_MS / QUARTER_MS - 1;
        while (lo + 1 < hi) {
          const mid = (lo + hi) >> 1;
          if (zone.offset(dayStart + mid * QUARTER_MS) === start) lo = mid;
          else hi = mid;
        }
        changeMs = dayStart + hi * QUARTER_MS;
      }
      known = { start, changeMs, end };
      if (cache.size >= MAX_CACHED_DAYS) cache = new Map();
      cache.set(day, known);
    }
    return instantMs < known.changeMs ? known.start : known.end;
  };
  const toInstant = (naiveMs: number): number => {
    // Offsets a day either side bracket the one transition a local day can hold.
    const before = offsetMinutes(naiveMs - DAY_MS);
    const after = offsetMinutes(naiveMs + DAY_MS);
    const first = naiveMs - before * MINUTE_MS;
    const second = naiveMs - after * MINUTE_MS;
    const fitsFirst = first + offsetMinutes(first) * MINUTE_MS === naiveMs;
    const fitsSecond = second + offsetMinutes(second) * MINUTE_MS === naiveMs;
    if (fitsFirst && fitsSecond) return Math.min(first, second);
    if (fitsFirst) return first;
    if (fitsSecond) return second;
    // In the gap: read with the offset before it.
    return first;
  };
  const made: ZoneTime = { name, offsetMinutes, toNaive: (instantMs) => instantMs + offsetMinutes(instantMs) * MINUTE_MS, toInstant };
  zones.set(name, made);
  return made;
}

/** Local weekday (0 = Monday … 6 = Sunday) and minute of the day of naive milliseconds. */
export function naiveDayAndMinute(naiveMs: number): { weekday: number; minute: number; dayStartMs: number } {
  const dayStartMs = Math.floor(naiveMs / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday (3 with Monday = 0).
  const weekday = (((Math.floor(naiveMs / DAY_MS) + 3) % 7) + 7) % 7;
  return { weekday, minute: Math.floor((naiveMs - dayStartMs) / MINUTE_MS), dayStartMs };
}

/** `YYYY-MM-DDTHH:mm` as naive milliseconds; null when it is not a real date and time. */
export function parseLocalDateTime(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text);
  if (m === null) return null;
  const [y, mo, d, h, mi] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59) return null;
  return ms;
}

/** Naive milliseconds as `YYYY-MM-DD HH:mm` (for messages; of a UTC instant, its UTC minute). */
export function formatNaive(naiveMs: number): string {
  return new Date(naiveMs).toISOString().slice(0, 16).replace('T', ' ');
}

export { DAY_MS, MINUTE_MS };
