import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whoIsOnCall } from '../../oncall/schedule.js';
import type { Schedule } from '../../oncall/oncall-config.js';
import { FIXTURE_NOW_MS, importFixture, storedOverrides } from '../../../test/support/import-fixtures.js';
import { compareRendering } from '../verify-rendering.js';
import { grafanaOncall } from './grafana-oncall.js';

const HOUR = 3_600_000;
const MIN = 60_000;
const { answers, result } = importFixture('grafana-oncall');
const schedule = (id: string): Schedule => result.config.schedules.find((s) => s.id === id) as Schedule;
const person = (id: string) => result.config.people.find((p) => p.id === id);
const line = (source: string) => result.lines.find((l) => l.source.startsWith(source));

describe('Grafana OnCall import (fixture: a Berlin and a New York team, 2026-03-20)', () => {
  it('maps email and Slack identities, and the default personal rules with their waits', () => {
    assert.deepEqual(person('alice')?.contacts, { 'mail': 'alice@example.com', 'slack-dm': 'U0ALICE1' });
    assert.deepEqual(person('alice')?.notify, [{ afterMs: 0, via: ['slack-dm'] }, { afterMs: 5 * MIN, via: ['mail'] }]);
    assert.equal(line('rule notify_by_sms of user alice')?.outcome, 'not-mapped', 'OnCall\'s API has no phone numbers');
    assert.equal(line('important rule notify_by_phone_call of user alice')?.outcome, 'not-mapped');
    assert.deepEqual(person('bob')?.notify, [{ afterMs: 0, via: ['mail'] }]);
    assert.deepEqual(person('carol')?.notify, []);
  });

  it('orders shifts by level, turns weekly by_day shifts at the start of the week, and keeps local time across DST', () => {
    assert.deepEqual(schedule('platform-primary').rotations.map((r) => [r.people, r.everyMs, r.handoff, r.only]), [
      [['alice', 'bob'], 168 * HOUR, '2026-03-02T00:00', [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 540, toMinute: 1080 }]],
      [['carol', 'dave'], 24 * HOUR, '2026-03-02T18:00', []],
    ]);
    assert.deepEqual(schedule('database').rotations.map((r) => [r.people, r.handoff, r.timeZone]), [
      [['alice'], '2026-03-07T10:00', 'America/New_York'],
      [['carol', 'dave'], '2026-03-02T09:00', 'America/New_York'],
    ]);
    const at = (iso: string): string | null => whoIsOnCall(schedule('platform-primary'), [], Date.parse(iso)).person;
    assert.equal(at('2026-03-27T16:59:00Z'), 'bob', 'weekdays until 18:00 CET');
    assert.equal(at('2026-03-27T17:00:00Z'), 'dave', 'nights from 18:00 CET');
    assert.equal(at('2026-03-30T16:00:00Z'), 'carol', 'nights from 18:00 CEST');
  });

  it('makes overrides of override shifts, and says what it cannot read', () => {
    assert.deepEqual(result.overrides.map((o) => [o.scheduleId, o.personId, new Date(o.fromMs).toISOString(), new Date(o.toMs).toISOString()]),
      [['platform-primary', 'bob', '2026-03-25T08:00:00.000Z', '2026-03-26T08:00:00.000Z']]);
    assert.equal(line('ical schedule "Legacy"')?.outcome, 'not-mapped');
    assert.equal(line('single_event shift "Unused draft"')?.note, 'it belongs to no schedule');
  });

  it('runs chains as steps: waits become after, repeat_escalation repeat 5', () => {
    assert.deepEqual(result.config.policies, [
      { id: 'platform', repeat: 5, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'platform-primary' }], afterMs: 5 * MIN },
        { notify: [{ kind: 'person', id: 'carol' }], afterMs: 15 * MIN },
      ] },
      { id: 'database', repeat: 0, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'database' }], afterMs: 30 * MIN },
        { notify: [{ kind: 'person', id: 'alice' }, { kind: 'person', id: 'bob' }], afterMs: 5 * MIN },
      ] },
    ]);
    assert.equal(line('step 3 (notify_user_group) of escalation chain "Database"')?.outcome, 'not-mapped');
    assert.equal(line('step 1 (notify_on_call_from_schedule) of escalation chain "Database"')?.outcome, 'approximated', 'an important step');
  });

  it('matches OnCall\'s final shifts at every instant of the window', () => {
    const renderings = grafanaOncall.renderings(answers, result);
    assert.deepEqual(renderings.map((r) => [r.scheduleId, r.fromMs, r.toMs - r.fromMs]),
      [['platform-primary', FIXTURE_NOW_MS, 28 * 24 * HOUR], ['database', FIXTURE_NOW_MS, 28 * 24 * HOUR]]);
    for (const r of renderings) assert.deepEqual(compareRendering(schedule(r.scheduleId), storedOverrides(result), r).differences, [], r.scheduleId);
  });

  it('lists the instants final shifts differ from svc, two people on call at once included', () => {
    const copy = importFixture('grafana-oncall').answers;
    const shifts = copy.pages('api/v1/schedules/SDATAB4SE2/final_shifts')?.[0]?.body as { results: Array<Record<string, string>> };
    // The first Saturday cover (alice 14:00–20:00Z on the 21st): carol is now on call beside her.
    const cover = shifts.results[1];
    assert.equal(cover?.user_pk, 'UALICE7K2Q1');
    shifts.results.push({ ...cover, user_pk: 'UCAROL3Z8W5', user_email: 'carol@example.com', user_username: 'carol' });
    const rendering = grafanaOncall.renderings(copy, result).find((r) => r.scheduleId === 'database');
    assert.ok(rendering);
    assert.deepEqual(compareRendering(schedule('database'), [], rendering).differences, [{
      scheduleId: 'database', fromMs: Date.parse('2026-03-21T14:00:00Z'), toMs: Date.parse('2026-03-21T20:00:00Z'), vendor: ['alice', 'carol'], svc: 'alice',
    }]);
  });
});
