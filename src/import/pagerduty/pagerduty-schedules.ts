/**
 * PagerDuty schedules (`schedules`, then each `schedules/<id>` with its `schedule_layers`) and their
 * overrides (`schedules/<id>/overrides`) as svc schedules and `svc oncall override add` commands.
 *
 * - A layer is a rotation: turns of `rotation_turn_length_seconds` from `rotation_virtual_start` through
 *   its `users` in order, counted in the schedule's time zone; `daily_restriction` and
 *   `weekly_restriction` become `only` windows.
 * - One person is on call at a time, from the highest layer that covers the instant (PagerDuty: "the
 *   last layer acts as an override for all layers it overlaps"). `GET schedules/<id>` lists the layers
 *   highest first (PagerDuty's Terraform provider reverses them to get the order they were written in),
 *   which is svc's order: the first rotation that covers decides. `--verify` proves the order against
 *   PagerDuty's own final schedule.
 * - An override takes the whole schedule for its time, as in svc.
 */
import type { Rotation, TimeWindow } from '../../oncall/oncall-config.js';
import { formatDuration } from '../../core/duration.js';
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportOutcome } from '../import-result.js';
import { isoTime } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { fillTurns, localHandoff, shiftLength } from '../rotation-parts.js';
import type { WeekStretch } from '../week-windows.js';
import { MINUTES_PER_DAY, describeWindows, weekWindows } from '../week-windows.js';

/** A restriction as week stretches, and whether seconds had to be dropped. */
function restriction(r: JsonCursor): { stretches: WeekStretch[]; cut: boolean } {
  const type = r.field('type').oneOf(['daily_restriction', 'weekly_restriction'] as const);
  const tod = r.field('start_time_of_day');
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(tod.str());
  if (m === null || Number(m[1]) > 23 || Number(m[2]) > 59) return tod.fail('expected a time of day HH:mm:ss');
  const seconds = r.field('duration_seconds').int(1, 7 * 86_400);
  const start = Number(m[1]) * 60 + Number(m[2]);
  const minutes = Math.round(seconds / 60);
  const cut = (m[3] !== undefined && m[3] !== '00') || seconds % 60 !== 0;
  if (type === 'daily_restriction') return { stretches: Array.from({ length: 7 }, (_, d) => ({ start: d * MINUTES_PER_DAY + start, minutes })), cut };
  const day = r.field('start_day_of_week').int(1, 7);
  return { stretches: [{ start: (day - 1) * MINUTES_PER_DAY + start, minutes }], cut };
}

function mapLayer(b: ImportBuilder, layer: JsonCursor, index: number, schedule: { id: string; name: string; zone: string }): Rotation | null {
  const name = layer.optional('name')?.str() ?? `Layer ${index + 1}`;
  const source = `layer "${name}" of schedule "${schedule.name}"`;
  const target = `schedule ${schedule.id}, rotation ${index + 1}`;
  const notes: string[] = [];
  let outcome: ImportOutcome = 'mapped';
  const approximate = (note: string): void => { outcome = 'approximated'; notes.push(note); };
  const endMs = layer.optional('end')?.instant() ?? null;
  if (endMs !== null && endMs <= b.options.nowMs) {
    b.line('rotation', source, null, 'not-mapped', `ended ${isoTime(endMs)}`);
    return null;
  }
  const startMs = layer.field('start').instant();
  const turns = layer.field('users').items().map((entry, i) => {
    const person = b.personOfUser.get(entry.field('user').field('id').str());
    if (person === undefined) approximate(`turn ${i + 1} is a user who was not imported: it goes to the person before it`);
    return person;
  });
  const people = fillTurns(turns);
  if (people === null) {
    b.line('rotation', source, null, 'not-mapped', 'none of its users was imported');
    return null;
  }
  const every = shiftLength(layer.field('rotation_turn_length_seconds').int(1) * 1000, people.length);
  if (every.note !== null) approximate(every.note);
  const handoff = localHandoff(layer.field('rotation_virtual_start').instant(), schedule.zone);
  if (handoff.cut) approximate('its rotation start has seconds; svc handoffs are to the minute');
  if (startMs > b.options.nowMs) approximate(`starts ${isoTime(startMs)} in PagerDuty; svc rotations have no start date, so it applies already`);
  if (endMs !== null) approximate(`ends ${isoTime(endMs)} in PagerDuty; svc rotations have no end date: remove it from oncall.yaml then`);

  let only: TimeWindow[] = [];
  const restrictions = layer.field('restrictions').itemsOrNone();
  if (restrictions.length > 0) {
    const parts = restrictions.map(restriction);
    const coverage = weekWindows(parts.flatMap((p) => p.stretches));
    restrictions.forEach((r, i) => {
      b.line('restriction', `${r.field('type').str()} ${i + 1} of ${source}`, target, parts[i]?.cut ? 'approximated' : 'mapped',
        parts[i]?.cut ? 'seconds dropped: svc windows are to the minute' : '');
    });
    if (coverage.kind === 'never') {
      b.line('rotation', source, null, 'not-mapped', 'its restrictions leave it no time on call');
      return null;
    }
    if (coverage.kind === 'windows') only = coverage.windows;
    notes.unshift(`only ${coverage.kind === 'always' ? 'always' : describeWindows(only)}`);
  }
  b.line('rotation', source, target, outcome, [`every ${formatDuration(every.everyMs)} from ${handoff.handoff} ${schedule.zone}`, ...notes].join('; '));
  return { people, timeZone: schedule.zone, everyMs: every.everyMs, handoff: handoff.handoff, only };
}

function mapOverrides(b: ImportBuilder, answers: Answers, vendorId: string, schedule: { id: string; name: string }): void {
  const overrides = answers.list(`schedules/${vendorId}/overrides`, 'overrides');
  if (overrides === null) {
    b.line('override', `overrides of schedule "${schedule.name}"`, null, 'approximated', `schedules/${vendorId}/overrides.json was not saved: overrides were not read`);
    return;
  }
  for (const o of overrides) {
    const fromMs = o.field('start').instant();
    const toMs = o.field('end').instant();
    const user = o.field('user');
    const source = `override ${o.optional('id')?.str() ?? ''} of schedule "${schedule.name}" for ${user.optional('summary')?.str() ?? user.field('id').str()} ${isoTime(fromMs)}–${isoTime(toMs)}`;
    if (toMs <= b.options.nowMs) {
      b.line('override', source, null, 'not-mapped', 'already over');
      continue;
    }
    const personId = b.personOfUser.get(user.field('id').str());
    if (personId === undefined) {
      b.line('override', source, null, 'not-mapped', 'its user was not imported');
      continue;
    }
    b.overrides.push({ scheduleId: schedule.id, personId, fromMs, toMs, source });
    b.line('override', source, `svc oncall override add --schedule ${schedule.id} --person ${personId}`, 'mapped');
  }
}

export function mapPagerdutySchedules(b: ImportBuilder, answers: Answers): void {
  for (const listed of answers.requiredList('schedules', 'schedules')) {
    const vendorId = listed.field('id').str();
    const detail = answers.optional(`schedules/${vendorId}`)?.field('schedule') ?? null;
    const name = (detail ?? listed).field('name').str();
    const source = `schedule "${name}" (${vendorId})`;
    if (detail === null) {
      b.line('schedule', source, null, 'not-mapped', `schedules/${vendorId}.json (the schedule with its layers) was not saved`);
      continue;
    }
    const zoneName = detail.field('time_zone').str();
    const known = ImportBuilder.zone(zoneName);
    const zone = known ?? 'UTC';
    const id = b.scheduleIds.next(name, 'schedule');
    const rotations = detail.field('schedule_layers').itemsOrNone().map((layer, i) => mapLayer(b, layer, i, { id, name, zone }))
      .filter((r): r is Rotation => r !== null);
    const line = b.line('schedule', source, `schedule ${id}`, known === null ? 'approximated' : 'mapped',
      known === null ? `time zone ${JSON.stringify(zoneName)} is not an IANA zone svc knows: UTC instead` : 'layers in PagerDuty\'s order, the highest first');
    b.addSchedule({ id, timeZone: zone, rotations, fallback: null, allowGaps: false }, vendorId, line);
    mapOverrides(b, answers, vendorId, { id, name });
  }
}
