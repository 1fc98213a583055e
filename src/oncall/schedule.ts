/**
 * Who is on call: pure functions of a schedule, its overrides and an instant (contract §17, §17.6).
 *
 * - An override of the schedule covering the instant decides; of several, the one that started last
 *   (then the later one in the list, i.e. the newer), so a short swap inside a long one wins.
 * - Else the first rotation that covers the instant: rotation shifts start at `handoff` and repeat every
 *   `every` both ways, in wall-clock time of the rotation's zone — its own `timeZone`, else the schedule's
 *   (§24.5) — so a daily handoff at 09:00 stays at 09:00 across DST (zone-time.ts says what a handoff in a
 *   DST gap or overlap means), and a New York rotation of a Berlin schedule keeps New York's hours. Shift k belongs to
 *   `people[k mod n]`. A rotation with `only` windows covers an instant only inside one of them.
 * - Else `fallback`; else nobody.
 *
 * The answer's `untilMs` is when it next changes (a different person or source); consecutive shifts of
 * the same person are one. Shifts (`scheduleShifts`) are the same timeline cut into spans, for the
 * coverage check, the iCalendar export and handoff notices.
 */
import type { OnCallAnswer, OncallConfig, Override, Rotation, Schedule, TimeWindow, Weekday } from './oncall-config.js';
import { DAY_MS, MINUTE_MS, naiveDayAndMinute, parseLocalDateTime, zoneTime } from './zone-time.js';
import type { ZoneTime } from './zone-time.js';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** One span of a schedule's timeline with one answer; `person` null where nobody is on call. */
export interface Shift {
  startMs: number;
  endMs: number;
  person: string | null;
  source: OnCallAnswer['source'];
}

/** How far `untilMs` looks for the next change: beyond the longest shift (4 w), plus a week. */
export const UNTIL_HORIZON_MS = 35 * DAY_MS;

/** The instant shift `k` of a rotation starts. */
function shiftStart(rotation: Rotation, zone: ZoneTime, handoffNaive: number, k: number): number {
  return zone.toInstant(handoffNaive + k * rotation.everyMs);
}

function handoffNaiveOf(rotation: Rotation): number {
  const naive = parseLocalDateTime(rotation.handoff);
  if (naive === null) throw new RangeError(`handoff ${JSON.stringify(rotation.handoff)} is not a local date-time`);
  return naive;
}

/** The index of the shift holding `instantMs`: the largest k whose start is at or before it. */
export function shiftIndexAt(rotation: Rotation, zone: ZoneTime, instantMs: number): number {
  const handoff = handoffNaiveOf(rotation);
  let k = Math.floor((zone.toNaive(instantMs) - handoff) / rotation.everyMs);
  // The estimate is off by at most the offset change between the instant and the handoff.
  while (shiftStart(rotation, zone, handoff, k) > instantMs) k--;
  while (shiftStart(rotation, zone, handoff, k + 1) <= instantMs) k++;
  return k;
}

function inWindow(window: TimeWindow, weekday: number, minute: number): boolean {
  const day = WEEKDAYS[weekday] as Weekday;
  if (window.toMinute > window.fromMinute) {
    return window.days.includes(day) && minute >= window.fromMinute && minute < window.toMinute;
  }
  // Past midnight: from `from` on a listed day to `to` on the next.
  const previous = WEEKDAYS[(weekday + 6) % 7] as Weekday;
  return (window.days.includes(day) && minute >= window.fromMinute) || (window.days.includes(previous) && minute < window.toMinute);
}

/** Whether the rotation's `only` windows (none = always) hold the instant. */
export function rotationCovers(rotation: Rotation, zone: ZoneTime, instantMs: number): boolean {
  if (rotation.people.length === 0) return false;
  if (rotation.only.length === 0) return true;
  const { weekday, minute } = naiveDayAndMinute(zone.toNaive(instantMs));
  return rotation.only.some((w) => inWindow(w, weekday, minute));
}

function overrideAt(schedule: Schedule, overrides: readonly Override[], instantMs: number): Override | null {
  let best: Override | null = null;
  for (const o of overrides) {
    if (o.scheduleId !== schedule.id || o.fromMs > instantMs || o.toMs <= instantMs) continue;
    if (best === null || o.fromMs >= best.fromMs) best = o;
  }
  return best;
}

/**
 * The overrides that may decide who is on call: those naming a person the file has. An override is
 * stored, the people are in oncall.yaml: one naming a person since renamed or removed would page
 * nobody while `svc oncall` named them (issue 33.4), so it never wins over the rotation. Every
 * caller that hands the store's overrides to this file's functions filters them here first.
 */
export function usableOverrides(config: Pick<OncallConfig, 'people'>, overrides: readonly Override[]): Override[] {
  return overrides.filter((o) => config.people.some((p) => p.id === o.personId));
}

/** Who is on call at the instant and why, without `untilMs` (what sending a page needs). */
export function onCallAt(schedule: Schedule, overrides: readonly Override[], instantMs: number): Pick<OnCallAnswer, 'person' | 'source'> {
  const override = overrideAt(schedule, overrides, instantMs);
  if (override) return { person: override.personId, source: 'override' };
  for (const rotation of schedule.rotations) {
    const zone = zoneTime(rotation.timeZone);
    if (!rotationCovers(rotation, zone, instantMs)) continue;
    const k = shiftIndexAt(rotation, zone, instantMs);
    const n = rotation.people.length;
    return { person: rotation.people[((k % n) + n) % n] as string, source: 'rotation' };
  }
  if (schedule.fallback !== null) return { person: schedule.fallback, source: 'fallback' };
  return { person: null, source: null };
}

/**
 * Every instant in [fromMs, toMs) where the answer may change: override edges, shift starts and the
 * local window edges of every rotation. A superset: evaluating at each and merging equal neighbours
 * gives the timeline.
 */
function candidateEdges(schedule: Schedule, overrides: readonly Override[], fromMs: number, toMs: number): number[] {
  const edges = new Set<number>([fromMs]);
  const add = (ms: number): void => { if (ms > fromMs && ms < toMs) edges.add(ms); };
  for (const o of overrides) {
    if (o.scheduleId !== schedule.id) continue;
    add(o.fromMs);
    add(o.toMs);
  }
  for (const rotation of schedule.rotations) {
    const zone = zoneTime(rotation.timeZone);
    const handoff = handoffNaiveOf(rotation);
    // One person's shifts follow each other without a change.
    for (let k = shiftIndexAt(rotation, zone, fromMs) + 1; rotation.people.length > 1; k++) {
      const start = shiftStart(rotation, zone, handoff, k);
      if (start >= toMs) break;
      add(start);
    }
    if (rotation.only.length === 0) continue;
    const minutes = new Set(rotation.only.flatMap((w) => [w.fromMinute, w.toMinute % 1440]));
    const firstDay = naiveDayAndMinute(zone.toNaive(fromMs)).dayStartMs - DAY_MS;
    const lastDay = naiveDayAndMinute(zone.toNaive(toMs)).dayStartMs + DAY_MS;
    for (let day = firstDay; day <= lastDay; day += DAY_MS) {
      for (const minute of minutes) add(zone.toInstant(day + minute * MINUTE_MS));
    }
  }
  return [...edges].sort((a, b) => a - b);
}

/**
 * The schedule's timeline in [fromMs, toMs): consecutive spans, each with one answer (equal
 * neighbours merged), covering the range exactly. Spans where nobody is on call are included.
 */
export function scheduleShifts(schedule: Schedule, overrides: readonly Override[], fromMs: number, toMs: number): Shift[] {
  const shifts: Shift[] = [];
  if (toMs <= fromMs) return shifts;
  for (const edge of candidateEdges(schedule, overrides, fromMs, toMs)) {
    const answer = onCallAt(schedule, overrides, edge);
    const last = shifts.at(-1);
    if (last && last.person === answer.person && last.source === answer.source) continue;
    if (last) last.endMs = edge;
    shifts.push({ startMs: edge, endMs: toMs, person: answer.person, source: answer.source });
  }
  return shifts;
}

/** Looks for the next change a day ahead first, then further: most answers change within a day. */
const LOOK_AHEAD_MS = [DAY_MS, 8 * DAY_MS, UNTIL_HORIZON_MS];
/** Farthest `untilMs` looks when an override lies beyond the horizon: a year (an override further out is not looked for). */
const OVERRIDE_HORIZON_MS = 366 * DAY_MS;

/** Who is on call at the instant, why, and until when (null: no change within the horizon). */
export function whoIsOnCall(schedule: Schedule, overrides: readonly Override[], instantMs: number): OnCallAnswer {
  const lastOverrideEdge = overrides.reduce((max, o) => (o.scheduleId === schedule.id ? Math.max(max, o.toMs) : max), 0);
  let shifts: Shift[] = [];
  const toLastOverride = Math.min(OVERRIDE_HORIZON_MS, lastOverrideEdge + 1 - instantMs);
  for (const ahead of [...LOOK_AHEAD_MS, ...(toLastOverride > UNTIL_HORIZON_MS ? [toLastOverride] : [])]) {
    shifts = scheduleShifts(schedule, overrides, instantMs, instantMs + ahead);
    if (shifts.length > 1) break;
  }
  const [current, next] = shifts;
  return { person: current?.person ?? null, source: current?.source ?? null, untilMs: next ? next.startMs : null };
}

/** When the person on call next changes after the instant (to someone, or to nobody); null within the horizon. */
export function nextHandoff(schedule: Schedule, overrides: readonly Override[], instantMs: number): { atMs: number; person: string | null } | null {
  for (const ahead of LOOK_AHEAD_MS) {
    const shifts = scheduleShifts(schedule, overrides, instantMs, instantMs + ahead);
    const first = shifts[0];
    const next = shifts.find((s) => s.person !== first?.person);
    if (next) return { atMs: next.startMs, person: next.person };
  }
  return null;
}
