/**
 * Hours on call (contract §23.1): the current schedules of oncall.yaml with the stored overrides, over
 * the window — the same timeline `svc oncall` and the pager follow (oncall/schedule.ts
 * `scheduleShifts`). A person on call in two schedules at once carries one pager: their hours are the
 * union of their shifts. The same timeline says who was on call in a schedule when a round reached them.
 */
import type { OncallConfig, Override } from '../oncall/oncall-config.js';
import type { Shift } from '../oncall/schedule.js';
import { scheduleShifts, usableOverrides } from '../oncall/schedule.js';

const HOUR_MS = 3_600_000;

export interface Coverage {
  /** Hours each person was on call in the window, overlapping schedules counted once. */
  personHours: ReadonlyMap<string, number>;
  /** Hours each schedule had someone on call in the window. */
  scheduleHours: ReadonlyMap<string, number>;
  /** Who was on call in the schedule at the instant (from the window's start to `lookupUntilMs`); null: nobody, or not known. */
  onCallAt(scheduleId: string, instantMs: number): string | null;
}

/** The total length of `spans` clipped to [fromMs, toMs), overlaps counted once. */
function unionMs(spans: ReadonlyArray<{ startMs: number; endMs: number }>, fromMs: number, toMs: number): number {
  const clipped = spans.map((s) => [Math.max(s.startMs, fromMs), Math.min(s.endMs, toMs)] as const).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/** The shift holding the instant (shifts are consecutive and sorted), by bisection. */
function shiftAt(shifts: readonly Shift[], instantMs: number): Shift | null {
  let lo = 0;
  let hi = shifts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = shifts[mid] as Shift;
    if (instantMs < s.startMs) hi = mid - 1;
    else if (instantMs >= s.endMs) lo = mid + 1;
    else return s;
  }
  return null;
}

/**
 * One agent's coverage in [fromMs, toMs); `lookupUntilMs` (≥ toMs) extends the timeline `onCallAt`
 * answers from, for rounds of the window's pages that came after it.
 */
export function coverage(config: Pick<OncallConfig, 'people' | 'schedules'>, stored: readonly Override[], fromMs: number, toMs: number,
  lookupUntilMs: number): Coverage {
  const overrides = usableOverrides(config, stored);
  const shifts = new Map<string, Shift[]>();
  const personSpans = new Map<string, Shift[]>();
  const scheduleHours = new Map<string, number>();
  for (const schedule of config.schedules) {
    const all = scheduleShifts(schedule, overrides, fromMs, Math.max(toMs, lookupUntilMs));
    shifts.set(schedule.id, all);
    const staffed = all.filter((s) => s.person !== null);
    scheduleHours.set(schedule.id, unionMs(staffed, fromMs, toMs) / HOUR_MS);
    for (const s of staffed) {
      const list = personSpans.get(s.person as string);
      if (list === undefined) personSpans.set(s.person as string, [s]);
      else list.push(s);
    }
  }
  const personHours = new Map([...personSpans].map(([person, spans]) => [person, unionMs(spans, fromMs, toMs) / HOUR_MS] as const));
  return {
    personHours,
    scheduleHours,
    onCallAt: (scheduleId, instantMs) => shiftAt(shifts.get(scheduleId) ?? [], instantMs)?.person ?? null,
  };
}
