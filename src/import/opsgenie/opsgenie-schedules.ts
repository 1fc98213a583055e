/**
 * Opsgenie schedules (`v2/schedules?expand=rotation`) and their overrides (`v2/schedules/<id>/overrides`)
 * as svc schedules and `svc oncall override add` commands.
 *
 * - A rotation is `length` hours, days or weeks per participant from `startDate`, in the schedule's
 *   time zone (handoffs keep their local time across DST, as svc's do); participants rotate in order.
 * - Both kinds of `timeRestriction` become `only` windows: `time-of-day` every day, `weekday-and-time-of-day`
 *   as stretches from a start day and time to an end day and time (week-windows.ts).
 * - Opsgenie notifies every participant on call in any rotation at once; svc answers with the first
 *   rotation that covers an instant. Rotations are kept in Opsgenie's order, and where two of them are on
 *   call at the same time the report says so (svc pages the first).
 * - An override replaces whoever is on call for its time; one limited to some rotations replaces only
 *   their participant in Opsgenie, the whole schedule in svc.
 */
import type { Rotation, Schedule, TimeWindow } from '../../oncall/oncall-config.js';
import { formatDuration } from '../../core/duration.js';
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportOutcome } from '../import-result.js';
import { isoTime } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { fillTurns, localHandoff, shiftLength } from '../rotation-parts.js';
import type { WeekStretch } from '../week-windows.js';
import { MINUTES_PER_DAY, MINUTES_PER_WEEK, describeWindows, weekWindows, weekdayIndex } from '../week-windows.js';

const ROTATION_UNIT_MS: Readonly<Record<string, number>> = { hourly: 3_600_000, daily: 86_400_000, weekly: 604_800_000 };

/** The restriction as week stretches; `note` when it had to be read one way of two. */
function restrictionStretches(tr: JsonCursor): { stretches: WeekStretch[]; note: string | null } {
  const type = tr.field('type').oneOf(['time-of-day', 'weekday-and-time-of-day'] as const);
  const minute = (r: JsonCursor, side: 'start' | 'end'): number =>
    r.field(`${side}Hour`).int(0, 24) * 60 + (r.optional(`${side}Min`)?.int(0, 59) ?? 0);
  if (type === 'time-of-day') {
    const r = tr.field('restriction');
    const start = minute(r, 'start');
    const length = (minute(r, 'end') - start + MINUTES_PER_DAY) % MINUTES_PER_DAY;
    const minutes = length === 0 ? MINUTES_PER_DAY : length;
    return {
      stretches: Array.from({ length: 7 }, (_, d) => ({ start: d * MINUTES_PER_DAY + start, minutes })),
      note: length === 0 ? 'its start and end are the same time of day: read as the whole day' : null,
    };
  }
  const stretches = tr.field('restrictions').items().map((r) => {
    const day = (side: 'start' | 'end'): number => {
      const name = r.field(`${side}Day`);
      const index = weekdayIndex(name.str());
      return index === null ? name.fail('expected a day of the week such as monday') : index;
    };
    const start = day('start') * MINUTES_PER_DAY + minute(r, 'start');
    const length = (day('end') * MINUTES_PER_DAY + minute(r, 'end') - start + MINUTES_PER_WEEK) % MINUTES_PER_WEEK;
    return { start, minutes: length === 0 ? MINUTES_PER_WEEK : length };
  });
  return { stretches, note: null };
}

interface Built {
  rotation: Rotation | null;
  name: string;
}

function mapRotation(b: ImportBuilder, r: JsonCursor, index: number, schedule: { id: string; name: string; zone: string },
  byUsername: ReadonlyMap<string, string>): Built {
  const name = r.optional('name')?.str() ?? `rotation ${index + 1}`;
  const source = `rotation "${name}" of schedule "${schedule.name}"`;
  const target = `schedule ${schedule.id}, rotation ${index + 1}`;
  const notes: string[] = [];
  let outcome: ImportOutcome = 'mapped';
  const approximate = (note: string): void => { outcome = ImportBuilder.worst(outcome, 'approximated'); notes.push(note); };

  if (r.optional('enabled')?.bool() === false) {
    b.line('rotation', source, null, 'not-mapped', 'disabled in Opsgenie');
    return { rotation: null, name };
  }
  const type = r.field('type').oneOf(['hourly', 'daily', 'weekly'] as const);
  const length = r.optional('length')?.int(1, 10_000) ?? 1;
  const startMs = r.field('startDate').instant();
  const endMs = r.optional('endDate')?.instant() ?? null;
  if (endMs !== null && endMs <= b.options.nowMs) {
    b.line('rotation', source, null, 'not-mapped', `ended ${isoTime(endMs)}`);
    return { rotation: null, name };
  }
  // Participants in order; a turn svc cannot give to a person goes to the one before it (rotation-parts.ts).
  const turns = r.field('participants').items().map((p, i) => {
    const kind = p.optional('type')?.str() ?? 'user';
    const person = kind === 'user' ? (b.personOfUser.get(p.optional('id')?.str() ?? '') ?? byUsername.get(p.optional('username')?.str() ?? '')) : undefined;
    if (person === undefined) {
      const what = kind === 'none' ? 'a turn with nobody (none)' : kind === 'user' ? 'a user not among the imported users' : `a ${kind} as participant`;
      approximate(`participant ${i + 1} is ${what}: svc rotations take people, so that turn goes to the participant before it`);
    }
    return person;
  });
  const people = fillTurns(turns);
  if (people === null) {
    b.line('rotation', source, null, 'not-mapped', 'no participant is an imported user: add people to it in oncall.yaml');
    return { rotation: null, name };
  }
  const every = shiftLength(length * (ROTATION_UNIT_MS[type] as number), people.length);
  if (every.note !== null) approximate(every.note);
  const handoff = localHandoff(startMs, schedule.zone);
  if (handoff.cut) approximate('its start has seconds; svc handoffs are to the minute');
  if (startMs > b.options.nowMs) approximate(`starts ${isoTime(startMs)} in Opsgenie; svc rotations have no start date, so it applies already`);
  if (endMs !== null) approximate(`ends ${isoTime(endMs)} in Opsgenie; svc rotations have no end date: remove it from oncall.yaml then`);

  let only: TimeWindow[] = [];
  const tr = r.optional('timeRestriction');
  if (tr !== null) {
    const { stretches, note } = restrictionStretches(tr);
    const coverage = weekWindows(stretches);
    const rsource = `${tr.field('type').str()} restriction of ${source}`;
    if (coverage.kind === 'never') {
      b.line('restriction', rsource, null, 'not-mapped', 'covers no time at all');
      b.line('rotation', source, null, 'not-mapped', 'its restriction leaves it no time on call');
      return { rotation: null, name };
    }
    if (coverage.kind === 'windows') only = coverage.windows;
    b.line('restriction', rsource, `${target} only: ${coverage.kind === 'always' ? 'always' : describeWindows(only)}`,
      note === null ? 'mapped' : 'approximated', note ?? '');
  }
  const rotation: Rotation = { people, timeZone: schedule.zone, everyMs: every.everyMs, handoff: handoff.handoff, only };
  b.line('rotation', source, target, outcome,
    [`every ${formatDuration(every.everyMs)} from ${handoff.handoff} ${schedule.zone}`, ...notes].join('; '));
  return { rotation, name };
}

function mapOverrides(b: ImportBuilder, answers: Answers, vendorId: string, schedule: Schedule & { name: string },
  byUsername: ReadonlyMap<string, string>): void {
  const overrides = answers.list(`v2/schedules/${vendorId}/overrides`, 'data');
  if (overrides === null) {
    b.line('override', `overrides of schedule "${schedule.name}"`, null, 'approximated', `v2/schedules/${vendorId}/overrides.json was not saved: overrides were not read`);
    return;
  }
  for (const o of overrides) {
    const user = o.field('user');
    const username = user.optional('username')?.str() ?? user.optional('name')?.str() ?? '?';
    const fromMs = o.field('startDate').instant();
    const toMs = o.field('endDate').instant();
    const source = `override ${o.optional('alias')?.str() ?? ''} of schedule "${schedule.name}" for ${username} ${isoTime(fromMs)}–${isoTime(toMs)}`.replace('override  ', 'override ');
    if (toMs <= b.options.nowMs) {
      b.line('override', source, null, 'not-mapped', 'already over');
      continue;
    }
    const kind = user.optional('type')?.str() ?? 'user';
    const personId = kind === 'user' ? (b.personOfUser.get(user.optional('id')?.str() ?? '') ?? byUsername.get(username)) : undefined;
    if (personId === undefined) {
      b.line('override', source, null, 'not-mapped', kind === 'user' ? 'its user was not imported' : `overrides by a ${kind} have no svc form: override with a person`);
      continue;
    }
    b.overrides.push({ scheduleId: schedule.id, personId, fromMs, toMs, source });
    const limited = o.optional('rotations')?.items() ?? [];
    if (limited.length > 0 && schedule.rotations.length > 1) {
      b.line('override', source, `svc oncall override add --schedule ${schedule.id} --person ${personId}`, 'approximated',
        'applies to some rotations only in Opsgenie; an svc override takes the whole schedule for its time');
    } else {
      b.line('override', source, `svc oncall override add --schedule ${schedule.id} --person ${personId}`, 'mapped');
    }
  }
}

/** Maps `v2/schedules` (rotations expanded) and each schedule's overrides. */
export function mapOpsgenieSchedules(b: ImportBuilder, answers: Answers, byUsername: ReadonlyMap<string, string>): void {
  for (const s of answers.requiredList('v2/schedules', 'data')) {
    const vendorId = s.field('id').str();
    const name = s.field('name').str();
    const source = `schedule "${name}" (${vendorId})`;
    const rotations = s.field('rotations').itemsOrNone();
    if (s.optional('enabled')?.bool() === false) {
      b.line('schedule', source, null, 'not-mapped', 'disabled in Opsgenie: enable it there and import again, or add it by hand');
      rotations.forEach((r, i) => b.line('rotation', `rotation "${r.optional('name')?.str() ?? i + 1}" of schedule "${name}"`, null, 'not-mapped', 'its schedule is disabled'));
      continue;
    }
    const zoneName = s.optional('timezone')?.str() ?? 'UTC';
    const known = ImportBuilder.zone(zoneName);
    const zone = known ?? 'UTC';
    const id = b.scheduleIds.next(name, 'schedule');
    const built = rotations.map((r, i) => mapRotation(b, r, i, { id, name, zone }, byUsername));
    const kept = built.filter((x): x is { rotation: Rotation; name: string } => x.rotation !== null);
    const notes: string[] = [];
    let outcome: ImportOutcome = 'mapped';
    if (known === null) {
      outcome = 'approximated';
      notes.push(`time zone ${JSON.stringify(zoneName)} is not an IANA zone svc knows: UTC instead`);
    }
    const schedule: Schedule & { name: string } = { id, name, timeZone: zone, rotations: kept.map((k) => k.rotation), fallback: null, allowGaps: false };
    const line = b.line('schedule', source, `schedule ${id}`, outcome, notes.join('; '));
    b.addSchedule({ id, timeZone: zone, rotations: schedule.rotations, fallback: null, allowGaps: false }, vendorId, line,
      { groups: kept.map(() => 0), names: kept.map((k) => k.name), label: 'Opsgenie' });
    mapOverrides(b, answers, vendorId, schedule, byUsername);
  }
}
