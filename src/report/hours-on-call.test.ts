import assert from 'node:assert/strict';
import { it } from 'node:test';
import { dailyShifts, HOUR } from '../../test/support/oncall-config.js';
import type { OncallConfig, Override } from '../oncall/oncall-config.js';
import { coverage } from './hours-on-call.js';

const DAY = 24 * HOUR;
// 2026-11-23 09:00 Berlin (08:00Z): alice's first daily shift; bob the next day, and so on.
const START = Date.UTC(2026, 10, 23, 8);

it('hours on call over the window, cut at its edges, with a stored override taking its slice', () => {
  const config = dailyShifts({ alice: {}, bob: {} });
  const swap: Override = { id: 'o1', agentId: 'a', scheduleId: 'primary', personId: 'bob', fromMs: START + 2 * HOUR, toMs: START + 5 * HOUR };
  const c = coverage(config, [swap], START + HOUR, START + 2 * DAY, START + 2 * DAY);
  assert.deepEqual([c.personHours.get('alice'), c.personHours.get('bob'), c.scheduleHours.get('primary')], [20, 27, 47]);
  assert.equal(c.onCallAt('primary', START + 3 * HOUR), 'bob', 'the override');
  assert.equal(c.onCallAt('primary', START + 6 * HOUR), 'alice');
  assert.equal(c.onCallAt('nosuch', START + 6 * HOUR), null);
});

it('an override naming someone the file no longer has never counts (the pager would not follow it)', () => {
  const config = dailyShifts({ alice: {}, bob: {} });
  const ghost: Override = { id: 'o2', agentId: 'a', scheduleId: 'primary', personId: 'zed', fromMs: START, toMs: START + DAY };
  const c = coverage(config, [ghost], START, START + DAY, START + DAY);
  assert.deepEqual([...c.personHours], [['alice', 24]]);
});

it('a person on call in two schedules at once carries one pager; a day that loses an hour to DST is 23 hours', () => {
  const base = dailyShifts({ alice: {}, bob: {} });
  const solo = (id: string, zone: string, handoff: string): OncallConfig['schedules'][number] => ({ id, timeZone: zone, fallback: null, allowGaps: true,
    rotations: [{ people: ['alice'], everyMs: DAY, handoff, only: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 9 * 60, toMinute: 17 * 60 }], timeZone: zone }] });
  const config: OncallConfig = { ...base, schedules: [solo('web', 'Europe/Berlin', '2026-03-23T00:00'), solo('db', 'Europe/Berlin', '2026-03-23T00:00')] };
  // The week of 2026-03-23 (Mon) to 03-30 (Mon) Berlin: five working days of 8 h, in both schedules at the same hours.
  const from = Date.UTC(2026, 2, 22, 23);
  const c = coverage(config, [], from, from + 7 * DAY, from + 7 * DAY);
  assert.deepEqual([c.personHours.get('alice'), c.scheduleHours.get('web'), c.scheduleHours.get('db')], [40, 40, 40]);
  const allDay = { ...base, schedules: [{ ...solo('all', 'Europe/Berlin', '2026-03-28T00:00'), rotations: [{ people: ['alice'], everyMs: DAY,
    handoff: '2026-03-28T00:00', only: [], timeZone: 'Europe/Berlin' }] }] };
  // Sunday 2026-03-29 in Berlin, midnight to midnight: 23 hours.
  const sunday = coverage(allDay, [], Date.UTC(2026, 2, 28, 23), Date.UTC(2026, 2, 29, 22), Date.UTC(2026, 2, 29, 22));
  assert.equal(sunday.personHours.get('alice'), 23);
});
