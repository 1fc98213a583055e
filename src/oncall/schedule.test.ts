import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Override, Rotation, Schedule, TimeWindow } from './oncall-config.js';
import { onCallAt, scheduleShifts, whoIsOnCall } from './schedule.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const at = (iso: string): number => {
  const ms = Date.parse(iso);
  assert.ok(Number.isFinite(ms), iso);
  return ms;
};
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));

/** A rotation without a zone of its own takes the schedule's, as the loader does. */
type RotationInput = Omit<Rotation, 'timeZone'> & { timeZone?: string };
function schedule(timeZone: string, rotations: RotationInput[], fallback: string | null = null): Schedule {
  return { id: 'primary', timeZone, rotations: rotations.map((r) => ({ ...r, timeZone: r.timeZone ?? timeZone })), fallback, allowGaps: false };
}
function rotation(people: string[], everyMs: number, handoff: string, only: TimeWindow[] = []): RotationInput {
  return { people, everyMs, handoff, only };
}
const WEEKDAYS_9_TO_18: TimeWindow = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 9 * 60, toMinute: 18 * 60 };
function override(id: string, personId: string, from: string, to: string): Override {
  return { id, agentId: 'a', scheduleId: 'primary', personId, fromMs: at(from), toMs: at(to) };
}

/** [instant, person, source, until] rows checked against whoIsOnCall. */
type Row = [string, string | null, string | null, string | null];
function check(s: Schedule, rows: Row[], overrides: Override[] = []): void {
  for (const [instant, person, source, until] of rows) {
    const answer = whoIsOnCall(s, overrides, at(instant));
    assert.deepEqual({ at: instant, person: answer.person, source: answer.source, until: iso(answer.untilMs) },
      { at: instant, person, source, until });
  }
}

describe('whoIsOnCall', () => {
  it('weekly rotation in Berlin: shifts from the handoff both ways, until the next handoff', () => {
    // 2026-11-23 is a Monday; 09:00 CET is 08:00Z.
    const s = schedule('Europe/Berlin', [rotation(['alice', 'bob'], WEEK, '2026-11-23T09:00')]);
    check(s, [
      ['2026-11-23T08:00:00Z', 'alice', 'rotation', '2026-11-30T08:00:00Z'],
      ['2026-11-23T07:59:59Z', 'bob', 'rotation', '2026-11-23T08:00:00Z'],
      ['2026-11-29T23:00:00Z', 'alice', 'rotation', '2026-11-30T08:00:00Z'],
      ['2026-12-02T12:00:00Z', 'bob', 'rotation', '2026-12-07T08:00:00Z'],
      ['2026-12-07T08:00:00Z', 'alice', 'rotation', '2026-12-14T08:00:00Z'],
      // Before the handoff: shift -1 is bob's, -2 alice's.
      ['2026-11-10T12:00:00Z', 'alice', 'rotation', '2026-11-16T08:00:00Z'],
    ]);
  });

  it('daily rotation of three people', () => {
    const s = schedule('America/New_York', [rotation(['ann', 'ben', 'cy'], DAY, '2026-11-23T08:00')]);
    // 08:00 EST is 13:00Z.
    check(s, [
      ['2026-11-23T13:00:00Z', 'ann', 'rotation', '2026-11-24T13:00:00Z'],
      ['2026-11-24T12:59:00Z', 'ann', 'rotation', '2026-11-24T13:00:00Z'],
      ['2026-11-24T13:00:00Z', 'ben', 'rotation', '2026-11-25T13:00:00Z'],
      ['2026-11-25T20:00:00Z', 'cy', 'rotation', '2026-11-26T13:00:00Z'],
      ['2026-11-26T13:00:00Z', 'ann', 'rotation', '2026-11-27T13:00:00Z'],
      ['2026-11-22T13:00:00Z', 'cy', 'rotation', '2026-11-23T13:00:00Z'],
    ]);
  });

  it('restrictions: business hours on weekdays, the fallback elsewhere', () => {
    const s = schedule('Europe/Berlin', [rotation(['alice', 'bob'], WEEK, '2026-11-23T09:00', [WEEKDAYS_9_TO_18])], 'carol');
    check(s, [
      ['2026-11-23T08:00:00Z', 'alice', 'rotation', '2026-11-23T17:00:00Z'],
      ['2026-11-23T17:00:00Z', 'carol', 'fallback', '2026-11-24T08:00:00Z'],
      ['2026-11-27T16:59:00Z', 'alice', 'rotation', '2026-11-27T17:00:00Z'],
      // Friday 18:00 to Monday 09:00: the fallback, then the next week's person.
      ['2026-11-27T17:00:00Z', 'carol', 'fallback', '2026-11-30T08:00:00Z'],
      ['2026-11-28T12:00:00Z', 'carol', 'fallback', '2026-11-30T08:00:00Z'],
      ['2026-11-30T08:00:00Z', 'bob', 'rotation', '2026-11-30T17:00:00Z'],
    ]);
  });

  it('a window past midnight belongs to the day it starts on', () => {
    const night: TimeWindow = { days: ['fri'], fromMinute: 22 * 60, toMinute: 6 * 60 };
    const s = schedule('Europe/Berlin', [rotation(['nina'], WEEK, '2026-11-23T00:00', [night])], 'carol');
    check(s, [
      ['2026-11-27T20:59:00Z', 'carol', 'fallback', '2026-11-27T21:00:00Z'],
      ['2026-11-27T21:00:00Z', 'nina', 'rotation', '2026-11-28T05:00:00Z'],
      ['2026-11-28T04:59:00Z', 'nina', 'rotation', '2026-11-28T05:00:00Z'],
      // Saturday 22:00 is not in the window: Saturday is not listed.
      ['2026-11-28T21:30:00Z', 'carol', 'fallback', '2026-12-04T21:00:00Z'],
    ]);
  });

  it('the first rotation covering an instant decides', () => {
    const s = schedule('Europe/Berlin', [
      rotation(['day1', 'day2'], WEEK, '2026-11-23T09:00', [WEEKDAYS_9_TO_18]),
      rotation(['night'], WEEK, '2026-11-23T09:00'),
    ]);
    check(s, [
      ['2026-11-24T10:00:00Z', 'day1', 'rotation', '2026-11-24T17:00:00Z'],
      ['2026-11-24T17:00:00Z', 'night', 'rotation', '2026-11-25T08:00:00Z'],
    ]);
  });

  it('overrides overlapping shifts: the one that started last wins, then the rotation resumes', () => {
    const s = schedule('Europe/Berlin', [rotation(['alice', 'bob'], WEEK, '2026-11-23T09:00')]);
    const overrides = [
      override('o1', 'dave', '2026-11-25T11:00:00Z', '2026-12-01T11:00:00Z'), // across alice's handoff to bob
      override('o2', 'erin', '2026-11-26T00:00:00Z', '2026-11-26T01:00:00Z'), // inside o1
      { ...override('o3', 'zed', '2026-11-26T00:00:00Z', '2026-11-26T01:00:00Z'), scheduleId: 'other' },
    ];
    check(s, [
      ['2026-11-25T10:59:00Z', 'alice', 'rotation', '2026-11-25T11:00:00Z'],
      ['2026-11-25T11:00:00Z', 'dave', 'override', '2026-11-26T00:00:00Z'],
      ['2026-11-26T00:30:00Z', 'erin', 'override', '2026-11-26T01:00:00Z'],
      ['2026-11-26T01:00:00Z', 'dave', 'override', '2026-12-01T11:00:00Z'],
      ['2026-12-01T11:00:00Z', 'bob', 'rotation', '2026-12-07T08:00:00Z'],
    ], overrides);
  });

  it('fallback alone, and nobody at all', () => {
    check(schedule('Europe/Berlin', [], 'carol'), [['2026-11-25T10:00:00Z', 'carol', 'fallback', null]]);
    check(schedule('Europe/Berlin', []), [['2026-11-25T10:00:00Z', null, null, null]]);
    // A gap with someone after it: until is when someone comes on.
    const s = schedule('Europe/Berlin', [rotation(['alice'], WEEK, '2026-11-23T09:00', [WEEKDAYS_9_TO_18])]);
    check(s, [['2026-11-28T10:00:00Z', null, null, '2026-11-30T08:00:00Z'], ['2026-11-30T08:00:00Z', 'alice', 'rotation', '2026-11-30T17:00:00Z']]);
  });
});

describe('DST: handoffs keep their local time', () => {
  // Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
  // America/New_York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
  const daily = (zone: string, handoff: string): Schedule => schedule(zone, [rotation(['a', 'b'], DAY, handoff)]);

  it('Berlin, spring forward: the 09:00 shift before the switch lasts 23 hours', () => {
    check(daily('Europe/Berlin', '2026-03-01T09:00'), [
      ['2026-03-28T08:00:00Z', 'b', 'rotation', '2026-03-29T07:00:00Z'],
      ['2026-03-29T07:00:00Z', 'a', 'rotation', '2026-03-30T07:00:00Z'],
    ]);
  });

  it('Berlin, fall back: the 09:00 shift before the switch lasts 25 hours', () => {
    check(daily('Europe/Berlin', '2026-10-01T09:00'), [
      ['2026-10-24T07:00:00Z', 'b', 'rotation', '2026-10-25T08:00:00Z'],
      ['2026-10-25T08:00:00Z', 'a', 'rotation', '2026-10-26T08:00:00Z'],
    ]);
  });

  it('New York, both switches: 09:00 EST is 14:00Z, 09:00 EDT 13:00Z', () => {
    check(daily('America/New_York', '2026-03-01T09:00'), [
      ['2026-03-07T14:00:00Z', 'a', 'rotation', '2026-03-08T13:00:00Z'],
      ['2026-03-08T13:00:00Z', 'b', 'rotation', '2026-03-09T13:00:00Z'],
    ]);
    check(daily('America/New_York', '2026-10-01T09:00'), [
      ['2026-10-31T13:00:00Z', 'a', 'rotation', '2026-11-01T14:00:00Z'],
      ['2026-11-01T14:00:00Z', 'b', 'rotation', '2026-11-02T14:00:00Z'],
    ]);
  });

  it('a weekly handoff keeps its local time across a switch', () => {
    // Mondays 09:00 Berlin: 08:00Z in winter, 07:00Z in summer.
    check(schedule('Europe/Berlin', [rotation(['a', 'b'], WEEK, '2026-03-16T09:00')]), [
      ['2026-03-23T08:00:00Z', 'b', 'rotation', '2026-03-30T07:00:00Z'],
      ['2026-03-30T07:00:00Z', 'a', 'rotation', '2026-04-06T07:00:00Z'],
    ]);
  });

  it('a handoff at a local time that does not exist starts as far past the jump (02:30 → 03:30)', () => {
    const s = daily('Europe/Berlin', '2026-03-27T02:30');
    const shifts = scheduleShifts(s, [], at('2026-03-28T00:00:00Z'), at('2026-03-31T00:00:00Z')).map((x) => [iso(x.startMs), x.person]);
    assert.deepEqual(shifts, [
      ['2026-03-28T00:00:00Z', 'a'],
      ['2026-03-28T01:30:00Z', 'b'], // 02:30 CET
      ['2026-03-29T01:30:00Z', 'a'], // 02:30 does not exist on the 29th: 03:30 CEST
      ['2026-03-30T00:30:00Z', 'b'], // 02:30 CEST
    ]);
  });

  it('a handoff at a local time that exists twice starts at its first occurrence', () => {
    const s = daily('Europe/Berlin', '2026-10-23T02:30');
    const shifts = scheduleShifts(s, [], at('2026-10-24T00:00:00Z'), at('2026-10-27T00:00:00Z')).map((x) => [iso(x.startMs), x.person]);
    assert.deepEqual(shifts, [
      ['2026-10-24T00:00:00Z', 'a'],
      ['2026-10-24T00:30:00Z', 'b'], // 02:30 CEST
      ['2026-10-25T00:30:00Z', 'a'], // 02:30 twice: the first, CEST
      ['2026-10-26T01:30:00Z', 'b'], // 02:30 CET
    ]);
  });

  it('hourly shifts in New York: the one starting in the gap has no length, the one in the overlap lasts two hours', () => {
    const s = schedule('America/New_York', [rotation(['a', 'b', 'c'], HOUR, '2026-03-08T00:00')]);
    assert.equal(onCallAt(s, [], at('2026-03-08T06:30:00Z')).person, 'b'); // 01:30 EST, shift 1
    assert.equal(onCallAt(s, [], at('2026-03-08T07:00:00Z')).person, 'a'); // 03:00 EDT, shift 3; shift 2 (02:00) never was
    const fall = schedule('America/New_York', [rotation(['a', 'b', 'c'], HOUR, '2026-11-01T00:00')]);
    check(fall, [
      ['2026-11-01T05:00:00Z', 'b', 'rotation', '2026-11-01T07:00:00Z'], // 01:00 EDT: shift 1 runs through 01:00 EST
      ['2026-11-01T06:30:00Z', 'b', 'rotation', '2026-11-01T07:00:00Z'],
      ['2026-11-01T07:00:00Z', 'c', 'rotation', '2026-11-01T08:00:00Z'], // 02:00 EST
    ]);
  });

  it('business hours across the switch stay 09:00-18:00 local', () => {
    const s = schedule('America/New_York', [rotation(['a'], WEEK, '2026-03-02T09:00', [WEEKDAYS_9_TO_18])], 'f');
    check(s, [
      ['2026-03-06T14:00:00Z', 'a', 'rotation', '2026-03-06T23:00:00Z'],
      ['2026-03-09T13:00:00Z', 'a', 'rotation', '2026-03-09T22:00:00Z'],
    ]);
  });

  it('a rotation of its own zone keeps its hours in the weeks the two zones switch apart (§24.5)', () => {
    // A Berlin schedule; the New York team's rotation covers 09:00-18:00 New York time. In 2027 New York
    // springs forward on 14 March, Berlin on 28 March: in between, 09:00 New York is 14:00 Berlin, not 15:00.
    const ny = { ...rotation(['nyc'], WEEK, '2027-03-01T09:00', [WEEKDAYS_9_TO_18]), timeZone: 'America/New_York' };
    const s = schedule('Europe/Berlin', [ny], 'berlin');
    check(s, [
      ['2027-03-12T14:00:00Z', 'nyc', 'rotation', '2027-03-12T23:00:00Z'], // Friday before: 09:00 EST
      ['2027-03-15T13:00:00Z', 'nyc', 'rotation', '2027-03-15T22:00:00Z'], // Monday after the US switch: 09:00 EDT
      ['2027-03-15T12:59:00Z', 'berlin', 'fallback', '2027-03-15T13:00:00Z'],
      ['2027-03-29T13:00:00Z', 'nyc', 'rotation', '2027-03-29T22:00:00Z'], // after Berlin's switch too
    ]);
    // Written in the schedule's zone instead, the window would open an hour late in those two weeks.
    const drifting = schedule('Europe/Berlin', [rotation(['nyc'], WEEK, '2027-03-01T15:00', [{ ...WEEKDAYS_9_TO_18, fromMinute: 15 * 60, toMinute: 24 * 60 }])], 'berlin');
    assert.equal(onCallAt(drifting, [], at('2027-03-15T13:30:00Z')).person, 'berlin');
  });
});

describe('scheduleShifts', () => {
  it('cuts the range into spans that cover it exactly, merging the same person', () => {
    const s = schedule('Europe/Berlin', [rotation(['alice'], DAY, '2026-11-23T09:00', [WEEKDAYS_9_TO_18])]);
    const from = at('2026-11-27T00:00:00Z');
    const shifts = scheduleShifts(s, [], from, from + 4 * DAY);
    assert.deepEqual(shifts.map((x) => [iso(x.startMs), iso(x.endMs), x.person, x.source]), [
      ['2026-11-27T00:00:00Z', '2026-11-27T08:00:00Z', null, null],
      ['2026-11-27T08:00:00Z', '2026-11-27T17:00:00Z', 'alice', 'rotation'],
      ['2026-11-27T17:00:00Z', '2026-11-30T08:00:00Z', null, null],
      ['2026-11-30T08:00:00Z', '2026-11-30T17:00:00Z', 'alice', 'rotation'],
      ['2026-11-30T17:00:00Z', '2026-12-01T00:00:00Z', null, null],
    ]);
  });
});

describe('until, far ahead', () => {
  it('a single-person rotation with an override months away: until is the override, found without walking every shift', () => {
    const s = schedule('Europe/Berlin', [rotation(['solo'], HOUR, '2026-11-23T09:00')]);
    const far = override('o1', 'cover', '2027-06-01T00:00:00Z', '2027-06-02T00:00:00Z');
    check(s, [['2026-11-25T12:00:00Z', 'solo', 'rotation', '2027-06-01T00:00:00Z']], [far]);
    check(s, [['2026-11-25T12:00:00Z', 'solo', 'rotation', null]]);
    // Beyond a year the override is not looked for.
    check(s, [['2026-11-25T12:00:00Z', 'solo', 'rotation', null]], [override('o2', 'cover', '2028-06-01T00:00:00Z', '2028-06-02T00:00:00Z')]);
  });
});
