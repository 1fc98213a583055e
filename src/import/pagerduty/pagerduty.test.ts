import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whoIsOnCall } from '../../oncall/schedule.js';
import type { Schedule } from '../../oncall/oncall-config.js';
import { FIXTURE_NOW_MS, importFixture, storedOverrides } from '../../../test/support/import-fixtures.js';
import { compareRendering } from '../verify-rendering.js';
import { pagerduty } from './pagerduty.js';

const HOUR = 3_600_000;
const MIN = 60_000;
const { answers, result } = importFixture('pagerduty');
const schedule = (id: string): Schedule => result.config.schedules.find((s) => s.id === id) as Schedule;
const person = (id: string) => result.config.people.find((p) => p.id === id);
const line = (source: string) => result.lines.find((l) => l.source.startsWith(source));

describe('PagerDuty import (fixture: a Berlin and a New York team, 2026-03-20)', () => {
  it('maps contact methods and high-urgency rules; push and low urgency are listed as not mapped', () => {
    assert.deepEqual(person('alice')?.contacts, { mail: 'alice@example.com', sms: '+4915112345678', phone: '+4915112345678' });
    assert.deepEqual(person('alice')?.notify, [{ afterMs: 0, via: ['mail'] }, { afterMs: 2 * MIN, via: ['sms'] }, { afterMs: 5 * MIN, via: ['phone'] }]);
    assert.equal(line('push_notification contact "iPhone" of user alice')?.outcome, 'not-mapped');
    assert.equal(line('low-urgency rule of user alice')?.outcome, 'not-mapped');
    // carol's SMS after 90 minutes: svc's personal rules wait at most an hour.
    assert.deepEqual(person('carol')?.notify, [{ afterMs: 0, via: ['mail'] }, { afterMs: 60 * MIN, via: ['sms'] }]);
    assert.equal(line('notification rules of user carol')?.outcome, 'approximated');
    assert.equal(line('email contact "Home" of user dave')?.outcome, 'not-mapped', 'one address per channel');
  });

  it('keeps layers in the order PagerDuty answers them (the highest first), with restrictions as windows', () => {
    assert.deepEqual(schedule('platform-primary').rotations.map((r) => [r.people, r.everyMs, r.handoff, r.only]), [
      [['carol', 'dave'], 24 * HOUR, '2026-03-02T18:00', [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], fromMinute: 1080, toMinute: 540 }]],
      [['alice', 'bob'], 168 * HOUR, '2026-03-02T09:00', []],
    ]);
    assert.deepEqual(schedule('database').rotations.map((r) => [r.people, r.timeZone, r.only.map((w) => `${w.days.join(',')} ${w.fromMinute}-${w.toMinute}`)]), [
      [['bob'], 'America/New_York', ['mon 0-540', 'fri 1080-1440', 'sat,sun 0-1440']],
      [['carol', 'dave', 'alice'], 'America/New_York', ['mon 540-1440', 'tue,wed,thu 0-1440', 'fri 0-1080']],
    ]);
    assert.match(line('layer "Old rotation"')?.note ?? '', /^ended /);
  });

  it('hands over at local time on both sides of the March DST change', () => {
    const at = (iso: string): string | null => whoIsOnCall(schedule('platform-primary'), [], Date.parse(iso)).person;
    assert.equal(at('2026-03-27T07:59:00Z'), 'carol', 'night layer until 09:00 CET');
    assert.equal(at('2026-03-27T08:00:00Z'), 'bob', 'day layer from 09:00 CET');
    assert.equal(at('2026-03-30T06:59:00Z'), 'dave', 'night layer until 09:00 CEST');
    assert.equal(at('2026-03-30T07:00:00Z'), 'alice', 'day layer from 09:00 CEST');
  });

  it('maps escalation rules one to one: delay as after, num_loops as repeat; round robin is approximated', () => {
    assert.deepEqual(result.config.policies, [
      { id: 'platform', repeat: 2, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'platform-primary' }], afterMs: 10 * MIN },
        { notify: [{ kind: 'person', id: 'carol' }, { kind: 'schedule', id: 'database' }], afterMs: 15 * MIN },
      ] },
      { id: 'database', repeat: 0, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'database' }], afterMs: 30 * MIN },
        { notify: [{ kind: 'person', id: 'alice' }, { kind: 'person', id: 'bob' }], afterMs: 30 * MIN },
      ] },
    ]);
    assert.match(line('rule 2 of escalation policy "Database"')?.note ?? '', /round robin/);
    assert.deepEqual(result.overrides.map((o) => [o.personId, new Date(o.fromMs).toISOString()]), [['bob', '2026-03-25T08:00:00.000Z']]);
  });

  it('matches PagerDuty\'s final schedule at every instant of the window', () => {
    const renderings = pagerduty.renderings(answers, result);
    assert.deepEqual(renderings.map((r) => [r.scheduleId, r.fromMs, r.toMs - r.fromMs]),
      [['platform-primary', FIXTURE_NOW_MS, 28 * 24 * HOUR], ['database', FIXTURE_NOW_MS, 28 * 24 * HOUR]]);
    for (const r of renderings) assert.deepEqual(compareRendering(schedule(r.scheduleId), storedOverrides(result), r).differences, [], r.scheduleId);
  });

  it('lists where the final schedule differs: here the override left out of svc (bob has that day anyway; the night is dave\'s)', () => {
    const rendering = pagerduty.renderings(answers, result).find((r) => r.scheduleId === 'platform-primary');
    assert.ok(rendering);
    assert.deepEqual(compareRendering(schedule('platform-primary'), [], rendering).differences, [
      { scheduleId: 'platform-primary', fromMs: Date.parse('2026-03-25T17:00:00Z'), toMs: Date.parse('2026-03-26T08:00:00Z'), vendor: ['bob'], svc: 'dave' },
    ]);
  });

  it('asks for users with their contact methods and rules, each schedule over the 28 days, and its overrides', () => {
    const requests = pagerduty.requests(answers, FIXTURE_NOW_MS);
    assert.deepEqual(requests.find((r) => r.path === 'users')?.query, { 'include[]': ['contact_methods', 'notification_rules'] });
    assert.deepEqual(requests.find((r) => r.path === 'schedules/PSCHA01')?.query, { since: '2026-03-20T12:00:00.000Z', until: '2026-04-17T12:00:00.000Z' });
    for (const saved of answers.paths()) assert.ok(requests.some((r) => r.path === saved), `${saved} is requested`);
  });
});
