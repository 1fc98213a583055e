/**
 * Grafana OnCall schedules (`api/v1/schedules`) and their shifts (`api/v1/on_call_shifts`) as svc
 * schedules and overrides. A shift's `start`, `until` and `rotation_start` are local date-times in its
 * `time_zone` (else the schedule's), recurring by RFC 5545 rules in that zone, so handoffs keep their
 * local time across DST, as svc's do.
 *
 * - `rolling_users`: the lists in `rolling_users` take turns, one turn per `interval` × `frequency`
 *   (starting from `start_rotation_from_user_index`); each turn is on call for `duration` from its start,
 *   or on the `by_day` days of its week. svc rotations hold one person per turn (a list of several is
 *   approximated by its first person).
 * - `recurrent_event`: the same `users` every occurrence — a rotation of one with `only` windows.
 * - `override`: an svc override. A `single_event` (a one-off shift) becomes an override too, which in svc
 *   wins over every rotation rather than only over lower levels.
 * - Shifts of a higher `level` win; svc keeps them first. Shifts of one level that overlap are all on
 *   call in OnCall; svc pages the first, and the report says where.
 */
import type { Rotation, TimeWindow } from '../../oncall/oncall-config.js';
import { formatDuration } from '../../core/duration.js';
import { DAY_MS, formatNaive, naiveDayAndMinute, parseLocalDateTime, zoneTime } from '../../oncall/zone-time.js';
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportOutcome } from '../import-result.js';
import { isoTime } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { fillTurns, naiveHandoff, rotate, shiftLength } from '../rotation-parts.js';
import type { WeekStretch } from '../week-windows.js';
import { MINUTES_PER_DAY, MINUTES_PER_WEEK, describeWindows, weekWindows, weekdayIndex } from '../week-windows.js';

const FREQUENCY_MS: Readonly<Record<string, number>> = { hourly: 3_600_000, daily: DAY_MS, weekly: 7 * DAY_MS, monthly: 28 * DAY_MS };

interface ShiftContext {
  scheduleId: string;
  scheduleName: string;
  zone: string;
}

/** A local date-time of the shift as an instant in its zone. */
function instantOf(field: JsonCursor, zone: string): number {
  const naive = parseLocalDateTime((naiveHandoff(field.str()) ?? field.fail('expected a local date-time yyyy-MM-ddTHH:mm:ss')).handoff);
  return naive === null ? field.fail('not a real date and time') : zoneTime(zone).toInstant(naive);
}

/** The `by_day` days as Monday-based indexes. */
function byDays(shift: JsonCursor): number[] {
  return shift.field('by_day').itemsOrNone().map((d) => weekdayIndex(d.str()) ?? d.fail('expected an iCal day such as MO'));
}

/** The occurrences of one turn as week stretches: on each of `days` at the start's time of day, for `minutes`. */
function stretches(days: readonly number[], minuteOfDay: number, minutes: number): WeekStretch[] {
  return days.map((d) => ({ start: d * MINUTES_PER_DAY + minuteOfDay, minutes }));
}

interface Coverage {
  everyMs: number;
  handoff: string;
  windows: WeekStretch[] | 'always';
  notes: string[];
}

/** When a rolling or recurring shift covers, as svc's turn length, handoff and windows. */
function coverage(shift: JsonCursor, type: string, start: { handoff: string; naive: number }, durationS: number): Coverage {
  const frequency = shift.field('frequency').oneOf(['hourly', 'daily', 'weekly', 'monthly'] as const);
  const interval = shift.optional('interval')?.int(1, 10_000) ?? 1;
  const days = byDays(shift);
  const { weekday, minute } = naiveDayAndMinute(start.naive);
  const minutes = Math.ceil(durationS / 60);
  const turnMs = interval * (FREQUENCY_MS[frequency] as number);
  const notes: string[] = [];
  if (shift.field('by_month').itemsOrNone().length > 0 || shift.field('by_monthday').itemsOrNone().length > 0) notes.push('by_month and by_monthday are not read: svc rotations repeat by days and weeks');
  if (frequency === 'monthly') notes.push(`a monthly turn is every ${formatDuration(turnMs)} in svc (calendar months differ)`);
  const single = type === 'recurrent_event';
  const every = single ? 7 * DAY_MS : turnMs;
  if (frequency === 'hourly' || frequency === 'monthly') {
    if (days.length > 0) notes.push('by_day is not read for an hourly or monthly shift');
    if (durationS * 1000 < turnMs) notes.push(`on call ${formatDuration(durationS * 1000)} of every ${formatDuration(turnMs)} in OnCall; the whole turn in svc`);
    return { everyMs: every, handoff: start.handoff, windows: 'always', notes };
  }
  if (frequency === 'daily') {
    if (days.length > 0 && !single) notes.push('a daily turn over by_day days takes the days in turn in OnCall; in svc every calendar day is a turn, by_day only limits when it is on call');
    if (interval > 1 && durationS * 1000 < turnMs) notes.push(`on call on the first day of every ${interval} days in OnCall; every day in svc`);
    if (durationS * 1000 >= turnMs && days.length === 0) {
      if (durationS * 1000 > turnMs) notes.push('shifts longer than the turn overlap the next in OnCall; svc hands over at the turn');
      return { everyMs: every, handoff: start.handoff, windows: 'always', notes };
    }
    const on = days.length > 0 ? days : [0, 1, 2, 3, 4, 5, 6];
    const windows = stretches(on, minute, Math.min(minutes, MINUTES_PER_DAY * interval));
    return { everyMs: single ? every : DAY_MS * interval, handoff: start.handoff, windows, notes };
  }
  // weekly
  if (interval > 1 && durationS * 1000 < turnMs) notes.push(`on call in the first week of every ${interval} weeks in OnCall; every week of the turn in svc`);
  if (days.length === 0) {
    if (durationS * 1000 >= turnMs) return { everyMs: every, handoff: start.handoff, windows: 'always', notes };
    return { everyMs: every, handoff: start.handoff, windows: stretches([weekday], minute, minutes), notes };
  }
  // Turns change at the start of the week (`week_start`, 00:00 local); the by_day days of that week are the turn's.
  const weekStart = weekdayIndex(shift.optional('week_start')?.str() ?? 'SU') ?? 6;
  const back = (weekday - weekStart + 7) % 7;
  const handoff = formatNaive(naiveDayAndMinute(start.naive).dayStartMs - back * DAY_MS).replace(' ', 'T');
  const crossing = days.some((d) => ((d - weekStart + 7) % 7) * MINUTES_PER_DAY + minute + minutes > MINUTES_PER_WEEK);
  if (crossing && !single) notes.push('an occurrence runs past the start of the next week, where svc already hands over');
  return { everyMs: every, handoff: single ? start.handoff : handoff, windows: stretches(days, minute, minutes), notes };
}

/** One rolling or recurring shift as a rotation (null when it has ended or has nobody). */
function mapShift(b: ImportBuilder, shift: JsonCursor, type: string, ctx: ShiftContext, index: number): Rotation | null {
  const name = shift.optional('name')?.str() ?? shift.field('id').str();
  const source = `${type} shift "${name}" of schedule "${ctx.scheduleName}"`;
  const target = `schedule ${ctx.scheduleId}, rotation ${index + 1}`;
  const zone = ImportBuilder.zone(shift.optional('time_zone')?.str() ?? null) ?? ctx.zone;
  const notes: string[] = [];
  let outcome: ImportOutcome = 'mapped';
  const until = shift.optional('until');
  if (until !== null && instantOf(until, zone) <= b.options.nowMs) {
    b.line('rotation', source, null, 'not-mapped', `ended ${isoTime(instantOf(until, zone))}`);
    return null;
  }
  const startField = shift.field('start');
  const start = naiveHandoff(startField.str()) ?? startField.fail('expected a local date-time yyyy-MM-ddTHH:mm:ss');
  const naive = parseLocalDateTime(start.handoff) ?? startField.fail('not a real date and time');
  const durationS = shift.field('duration').int(1);
  // Turns: the lists of rolling_users from start_rotation_from_user_index, or the one list of users.
  const groups = type === 'rolling_users'
    ? rotate(shift.field('rolling_users').itemsOrNone().map((g) => g.itemsOrNone().map((u) => u.str())), shift.optional('start_rotation_from_user_index')?.int(0) ?? 0)
    : [shift.field('users').itemsOrNone().map((u) => u.str())];
  if (groups.some((g) => g.length > 1)) notes.push('OnCall puts every user of a list on call together; svc takes the first of each');
  const turns = groups.map((g) => b.personOfUser.get(g[0] ?? ''));
  if (turns.some((t) => t === undefined)) notes.push('a turn with nobody imported goes to the person before it');
  const people = fillTurns(turns);
  if (people === null) {
    b.line('rotation', source, null, 'not-mapped', 'none of its users was imported');
    return null;
  }
  const cover = coverage(shift, type, { handoff: start.handoff, naive }, durationS);
  notes.push(...cover.notes);
  const every = shiftLength(cover.everyMs, people.length);
  if (every.note !== null) notes.push(every.note);
  if (start.cut) notes.push('its start has seconds; svc handoffs are to the minute');
  const startMs = zoneTime(zone).toInstant(naive);
  if (startMs > b.options.nowMs) notes.push(`starts ${isoTime(startMs)} in OnCall; svc rotations have no start date, so it applies already`);
  const rotationStart = shift.optional('rotation_start')?.str() ?? null;
  if (rotationStart !== null && naiveHandoff(rotationStart)?.handoff !== start.handoff) notes.push(`rotation_start ${rotationStart} differs from start: svc counts turns from start`);
  if (until !== null) notes.push(`ends ${isoTime(instantOf(until, zone))} in OnCall; svc rotations have no end date: remove it from oncall.yaml then`);
  if (notes.length > 0) outcome = 'approximated';
  let only: TimeWindow[] = [];
  if (cover.windows !== 'always') {
    const w = weekWindows(cover.windows);
    if (w.kind === 'never') {
      b.line('rotation', source, null, 'not-mapped', 'it is never on call');
      return null;
    }
    if (w.kind === 'windows') only = w.windows;
    b.line('restriction', `${shift.field('by_day').itemsOrNone().length > 0 ? 'by_day days' : 'duration'} of ${source}`,
      `${target} only: ${w.kind === 'always' ? 'always' : describeWindows(only)}`, 'mapped');
  }
  b.line('rotation', source, target, outcome, [`level ${shift.optional('level')?.int() ?? 0}, every ${formatDuration(every.everyMs)} from ${cover.handoff} ${zone}`, ...notes].join('; '));
  return { people, timeZone: zone, everyMs: every.everyMs, handoff: cover.handoff, only };
}

/** An override (or single event) shift as svc overrides, one per occurrence window. */
function mapOverride(b: ImportBuilder, shift: JsonCursor, type: string, ctx: ShiftContext): void {
  const name = shift.optional('name')?.str() ?? shift.field('id').str();
  const zone = ImportBuilder.zone(shift.optional('time_zone')?.str() ?? null) ?? ctx.zone;
  const fromMs = instantOf(shift.field('start'), zone);
  const toMs = fromMs + shift.field('duration').int(1) * 1000;
  const source = `${type} shift "${name}" of schedule "${ctx.scheduleName}" ${isoTime(fromMs)}–${isoTime(toMs)}`;
  if (toMs <= b.options.nowMs) {
    b.line('override', source, null, 'not-mapped', 'already over');
    return;
  }
  const users = (type === 'override' && shift.optional('rolling_users') !== null
    ? shift.field('rolling_users').items().flatMap((g) => g.items()) : shift.field('users').itemsOrNone()).map((u) => u.str());
  const personId = b.personOfUser.get(users[0] ?? '');
  if (personId === undefined) {
    b.line('override', source, null, 'not-mapped', 'its user was not imported');
    return;
  }
  const notes: string[] = [];
  if (users.length > 1) notes.push('OnCall puts every listed user on call; an svc override names one person');
  if (type === 'single_event') notes.push(`a one-off shift at level ${shift.optional('level')?.int() ?? 0}: an svc override wins over every rotation`);
  b.overrides.push({ scheduleId: ctx.scheduleId, personId, fromMs, toMs, source });
  b.line('override', source, `svc oncall override add --schedule ${ctx.scheduleId} --person ${personId}`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
}

export function mapOncallSchedules(b: ImportBuilder, answers: Answers): void {
  const shifts = new Map<string, JsonCursor>();
  for (const shift of answers.list('api/v1/on_call_shifts', 'results') ?? []) shifts.set(shift.field('id').str(), shift);
  const used = new Set<string>();
  for (const s of answers.requiredList('api/v1/schedules', 'results')) {
    const vendorId = s.field('id').str();
    const name = s.field('name').str();
    const type = s.optional('type')?.str() ?? 'web';
    const source = `${type} schedule "${name}" (${vendorId})`;
    if (type === 'ical') {
      b.line('schedule', source, null, 'not-mapped', 'its shifts come from an iCal feed svc does not read: build its rotations in oncall.yaml (or in OnCall as a web schedule) and import again');
      continue;
    }
    const zoneName = s.optional('time_zone')?.str() ?? 'UTC';
    const zone = ImportBuilder.zone(zoneName) ?? 'UTC';
    const id = b.scheduleIds.next(name, 'schedule');
    const ctx: ShiftContext = { scheduleId: id, scheduleName: name, zone };
    const own = s.field('shifts').itemsOrNone().map((ref): JsonCursor => {
      used.add(ref.str());
      return shifts.get(ref.str()) ?? ref.fail('names a shift that is not in api/v1/on_call_shifts');
    });
    if (s.optional('ical_url_overrides') !== null) {
      b.line('override', `iCal overrides feed of schedule "${name}"`, null, 'not-mapped', 'svc does not read iCal feeds: add its overrides with svc oncall override add');
    }
    // Higher levels first; the order within a level is OnCall's.
    const ranked = own.map((shift, i) => ({ shift, i, level: shift.optional('level')?.int() ?? 0, type: shift.field('type').str() }))
      .sort((x, y) => y.level - x.level || x.i - y.i);
    const rotations: Rotation[] = [];
    const levels: number[] = [];
    const names: string[] = [];
    for (const r of ranked) {
      if (r.type === 'override' || r.type === 'single_event') {
        mapOverride(b, r.shift, r.type, ctx);
        continue;
      }
      if (r.type !== 'rolling_users' && r.type !== 'recurrent_event') {
        b.line('rotation', `${r.type} shift of schedule "${name}"`, null, 'not-mapped', `unknown shift type ${r.type}`);
        continue;
      }
      const rotation = mapShift(b, r.shift, r.type, ctx, rotations.length);
      if (rotation === null) continue;
      rotations.push(rotation);
      levels.push(r.level);
      names.push(r.shift.optional('name')?.str() ?? '');
    }
    const notes: string[] = [];
    if (ImportBuilder.zone(zoneName) === null) notes.push(`time zone ${JSON.stringify(zoneName)} is not an IANA zone svc knows: UTC instead`);
    const line = b.line('schedule', source, `schedule ${id}`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
    b.addSchedule({ id, timeZone: zone, rotations, fallback: null, allowGaps: false }, vendorId, line, { groups: levels, names, label: 'Grafana OnCall' });
  }
  for (const [id, shift] of shifts) {
    if (!used.has(id)) b.line('rotation', `${shift.field('type').str()} shift "${shift.optional('name')?.str() ?? id}"`, null, 'not-mapped', 'it belongs to no schedule');
  }
}
