/**
 * The vendors' restrictions (Opsgenie's time-of-day and weekday-and-time-of-day, PagerDuty's daily and
 * weekly restrictions, Grafana OnCall's `by_day` events) all say "on call during these stretches of the
 * local week". This turns such stretches into svc `only` windows (§17: days a window starts on, from,
 * to; `to <= from` runs past midnight), exactly: a stretch from Monday 08:00 to Friday 18:00 becomes
 * Monday 08:00–24:00, Tuesday–Thursday all day and Friday 00:00–18:00; 22:00–06:00 every weekday stays
 * one overnight window. Minutes are local wall-clock minutes, as svc's windows are.
 */
import type { TimeWindow, Weekday } from '../oncall/oncall-config.js';

export const MINUTES_PER_DAY = 1440;
export const MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY;
const DAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** A stretch of the local week: from minute `start` (0 = Monday 00:00; any integer, taken modulo a week) for `minutes`. */
export interface WeekStretch {
  start: number;
  minutes: number;
}

export type WeekCoverage = { kind: 'always' } | { kind: 'never' } | { kind: 'windows'; windows: TimeWindow[] };

/** The union of the stretches as svc windows. */
export function weekWindows(stretches: readonly WeekStretch[]): WeekCoverage {
  // The stretches as [from, to) minutes of one week, cut at the week's end, sorted and merged.
  const parts: Array<[number, number]> = [];
  for (const s of stretches) {
    if (s.minutes >= MINUTES_PER_WEEK) return { kind: 'always' };
    if (s.minutes <= 0) continue;
    const from = ((s.start % MINUTES_PER_WEEK) + MINUTES_PER_WEEK) % MINUTES_PER_WEEK;
    const to = from + s.minutes;
    if (to <= MINUTES_PER_WEEK) parts.push([from, to]);
    else parts.push([from, MINUTES_PER_WEEK], [0, to - MINUTES_PER_WEEK]);
  }
  parts.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of parts) {
    const last = merged.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  if (merged.length === 0) return { kind: 'never' };
  if (merged.length === 1 && merged[0]?.[0] === 0 && merged[0][1] === MINUTES_PER_WEEK) return { kind: 'always' };

  // Each day's covered runs, as [from, to) minutes of that day.
  const runs: Array<Array<[number, number]>> = DAYS.map(() => []);
  for (const [from, to] of merged) {
    for (let d = Math.floor(from / MINUTES_PER_DAY); d * MINUTES_PER_DAY < to; d++) {
      const start = d * MINUTES_PER_DAY;
      runs[d]?.push([Math.max(from, start) - start, Math.min(to, start + MINUTES_PER_DAY) - start]);
    }
  }
  // First find the mornings that continue an evening, then emit every run once.
  const continued = new Map<number, number>();
  runs.forEach((day, d) => {
    const evening = day.at(-1);
    const morning = runs[(d + 1) % 7]?.[0];
    if (evening !== undefined && evening[1] === MINUTES_PER_DAY && evening[0] > 0
      && morning !== undefined && morning[0] === 0 && morning[1] < MINUTES_PER_DAY) continued.set(d, morning[1]);
  });
  const windows: Array<{ day: number; from: number; to: number }> = [];
  runs.forEach((day, d) => {
    for (const [from, to] of day) {
      if (from === 0 && continued.has((d + 6) % 7)) continue;
      const until = to === MINUTES_PER_DAY && from > 0 ? continued.get(d) : undefined;
      windows.push({ day: d, from, to: until ?? to });
    }
  });
  // Windows with the same hours share one entry listing their days.
  const byHours = new Map<string, TimeWindow & { days: Weekday[] }>();
  for (const w of windows) {
    const key = `${w.from}-${w.to}`;
    const entry = byHours.get(key) ?? { days: [], fromMinute: w.from, toMinute: w.to };
    entry.days.push(DAYS[w.day] as Weekday);
    byHours.set(key, entry);
  }
  return { kind: 'windows', windows: [...byHours.values()].map((w) => ({ ...w, days: DAYS.filter((d) => w.days.includes(d)) })) };
}

/** Monday = 0 … Sunday = 6 from the vendors' day names (`monday`, `MONDAY`, `MO`) or ISO numbers (1 = Monday). */
export function weekdayIndex(day: string | number): number | null {
  if (typeof day === 'number') return Number.isInteger(day) && day >= 1 && day <= 7 ? day - 1 : null;
  const i = DAYS.findIndex((d) => day.toLowerCase().startsWith(d.slice(0, 2)));
  return i < 0 ? null : i;
}

/** `09:30` from minutes after midnight (24:00 for the end of a day). */
export function clock(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The windows in words, for the report: `mon-fri 09:00–18:00; sat 10:00–14:00`. */
export function describeWindows(windows: readonly TimeWindow[]): string {
  return windows.map((w) => `${w.days.join(',')} ${clock(w.fromMinute)}–${clock(w.toMinute)}`).join('; ');
}
