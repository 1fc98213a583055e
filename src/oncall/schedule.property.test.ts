/** Properties of schedules over random rotations, windows, zones and overrides (fast-check). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Override, Rotation, Schedule, TimeWindow, Weekday } from './oncall-config.js';
import { onCallAt, scheduleShifts, whoIsOnCall } from './schedule.js';

const HOUR = 3_600_000;
const DAYS: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const START = Date.parse('2026-01-01T00:00:00Z');
const YEAR = 365 * 24 * HOUR;

const windowArb: fc.Arbitrary<TimeWindow> = fc.record({
  days: fc.subarray(DAYS, { minLength: 1 }),
  fromMinute: fc.integer({ min: 0, max: 1439 }),
  toMinute: fc.integer({ min: 1, max: 1440 }),
}).filter((w) => w.fromMinute !== w.toMinute);

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'] as const;

const rotationArb: fc.Arbitrary<Rotation> = fc.record({
  people: fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 4 }),
  everyMs: fc.integer({ min: 1, max: 672 }).map((h) => h * HOUR),
  handoff: fc.date({ min: new Date('2025-06-01T00:00:00Z'), max: new Date('2027-06-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 16)),
  only: fc.array(windowArb, { maxLength: 2 }),
  // A rotation of its own zone, or its schedule's (§24.5): both are a zone here.
  timeZone: fc.constantFrom(...ZONES),
});

const scheduleArb: fc.Arbitrary<Schedule> = fc.record({
  id: fc.constant('s'),
  timeZone: fc.constantFrom(...ZONES),
  rotations: fc.array(rotationArb, { maxLength: 3 }),
  fallback: fc.option(fc.constantFrom('f'), { nil: null }),
  allowGaps: fc.constant(true),
});

const overridesArb: fc.Arbitrary<Override[]> = fc.array(
  fc.record({ from: fc.integer({ min: 0, max: YEAR }), length: fc.integer({ min: 1, max: 400 * HOUR }), person: fc.constantFrom('x', 'y') })
    .map(({ from, length, person }) => ({ id: `o${from}`, agentId: 'a', scheduleId: 's', personId: person, fromMs: START + from, toMs: START + from + length })),
  { maxLength: 3 },
);

describe('schedule properties', () => {
  it('shifts cover the range exactly, neighbours differ, and every instant inside agrees with onCallAt', () => {
    fc.assert(fc.property(scheduleArb, overridesArb, fc.integer({ min: 0, max: YEAR }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 5, maxLength: 5 }),
      (schedule, overrides, offset, probes) => {
        const from = START + offset;
        const to = from + 10 * 24 * HOUR;
        const shifts = scheduleShifts(schedule, overrides, from, to);
        assert.equal(shifts[0]?.startMs, from);
        assert.equal(shifts.at(-1)?.endMs, to);
        for (let i = 0; i < shifts.length; i++) {
          const s = shifts[i] as (typeof shifts)[number];
          assert.ok(s.endMs > s.startMs);
          const next = shifts[i + 1];
          if (next) {
            assert.equal(next.startMs, s.endMs);
            assert.ok(next.person !== s.person || next.source !== s.source);
          }
        }
        for (const p of probes) {
          const t = Math.min(to - 1, Math.floor(from + p * (to - from)));
          const shift = shifts.find((s) => s.startMs <= t && t < s.endMs);
          const answer = onCallAt(schedule, overrides, t);
          assert.deepEqual({ person: answer.person, source: answer.source }, { person: shift?.person, source: shift?.source });
        }
      }), { numRuns: 150 });
  });

  it('until is the first instant the answer changes', () => {
    fc.assert(fc.property(scheduleArb, overridesArb, fc.integer({ min: 0, max: YEAR }), (schedule, overrides, offset) => {
      const t = START + offset;
      const answer = whoIsOnCall(schedule, overrides, t);
      if (answer.untilMs === null) return;
      assert.ok(answer.untilMs > t);
      const at = onCallAt(schedule, overrides, answer.untilMs);
      assert.ok(at.person !== answer.person || at.source !== answer.source);
      const before = onCallAt(schedule, overrides, answer.untilMs - 1);
      assert.deepEqual(before, { person: answer.person, source: answer.source });
    }), { numRuns: 150 });
  });
});
