import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { whoIsOnCall } from '../../oncall/schedule.js';
import type { Schedule } from '../../oncall/oncall-config.js';
import { FIXTURE_NOW_MS, fixtureCopy, importFixture, storedOverrides } from '../../../test/support/import-fixtures.js';
import { importIsExact } from '../import-result.js';
import type { ImportObjectKind } from '../import-result.js';
import { compareRendering } from '../verify-rendering.js';
import { opsgenie } from './opsgenie.js';

const HOUR = 3_600_000;
const MIN = 60_000;
const { answers, result } = importFixture('opsgenie');
const schedule = (id: string): Schedule => result.config.schedules.find((s) => s.id === id) as Schedule;
const person = (id: string) => result.config.people.find((p) => p.id === id);
const at = (iso: string): string | null => whoIsOnCall(schedule('platform-primary'), [], Date.parse(iso)).person;

describe('Opsgenie import (fixture: a Berlin and a New York team, 2026-03-20)', () => {
  it('maps users with their contact methods as E.164 and the first rule taking every alert as personal rules', () => {
    assert.deepEqual(result.config.people.map((p) => p.id), ['alice', 'bob', 'carol', 'dave'], 'both pages of v2/users');
    assert.deepEqual(person('alice'), {
      id: 'alice', name: 'Alice Adler', timeZone: 'Europe/Berlin', login: 'alice@example.com',
      contacts: { mail: 'alice@example.com', sms: '+4915112345678', phone: '+4915112345678' },
      notify: [{ afterMs: 0, via: ['mail'] }, { afterMs: MIN, via: ['sms'] }, { afterMs: 5 * MIN, via: ['phone'] }],
      statusUpdates: ['mail'],
    });
    // carol's first rule is for P1 at night only: svc takes her rule for every alert.
    assert.deepEqual(person('carol')?.notify, [{ afterMs: 0, via: ['mail'] }, { afterMs: 2 * MIN, via: ['sms'] }]);
    assert.equal(person('carol')?.timeZone, 'America/New_York');
    assert.deepEqual(person('dave')?.notify, [], 'no rules saved: every contact at once');
  });

  it('keeps handoffs at their local time across the March DST change, and restrictions as only windows', () => {
    const primary = schedule('platform-primary');
    assert.deepEqual(primary.rotations.map((r) => [r.people, r.everyMs, r.handoff]), [
      [['alice', 'bob'], 168 * HOUR, '2026-03-02T09:00'],
      [['carol', 'dave'], 24 * HOUR, '2026-03-02T18:00'],
    ]);
    assert.deepEqual(primary.rotations[0]?.only, [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 540, toMinute: 1080 }]);
    // Friday 27th 18:00 CET is 17:00Z; Monday 30th 18:00 CEST is 16:00Z (Europe moved its clocks on the 29th).
    assert.equal(at('2026-03-27T16:59:00Z'), 'bob', 'week 4 of business hours');
    assert.equal(at('2026-03-27T17:00:00Z'), 'dave', 'out of hours from 18:00 CET');
    assert.equal(at('2026-03-30T06:59:00Z'), 'dave', 'still out of hours at 08:59 CEST (Sunday 18:00 was dave\'s handoff)');
    assert.equal(at('2026-03-30T07:00:00Z'), 'alice', 'business hours from 09:00 CEST');
    assert.equal(at('2026-03-30T16:00:00Z'), 'carol', 'out of hours from 18:00 CEST');
    const database = schedule('database');
    assert.deepEqual(database.rotations[0]?.only, [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], fromMinute: 480, toMinute: 1200 }]);
  });

  it('writes overrides still to come as override commands and says which are over', () => {
    assert.deepEqual(result.overrides.map((o) => [o.scheduleId, o.personId, new Date(o.fromMs).toISOString(), new Date(o.toMs).toISOString()]),
      [['platform-primary', 'bob', '2026-03-25T08:00:00.000Z', '2026-03-26T08:00:00.000Z']]);
    assert.ok(result.lines.some((l) => l.kind === 'override' && l.outcome === 'not-mapped' && l.note === 'already over'));
  });

  it('lays rules with delays from the start out as steps, notifyType next as a derived schedule, repeat as loops', () => {
    assert.deepEqual(result.config.policies, [
      { id: 'platform-escalation', repeat: 2, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'platform-primary' }], afterMs: 5 * MIN },
        { notify: [{ kind: 'schedule', id: 'platform-primary-next' }], afterMs: 5 * MIN },
        { notify: [{ kind: 'person', id: 'carol' }], afterMs: 10 * MIN },
      ] },
      { id: 'database-escalation', repeat: 0, ackTimeoutMs: 0, onExhausted: [], steps: [
        { notify: [{ kind: 'schedule', id: 'database' }], afterMs: 15 * MIN },
        { notify: [{ kind: 'person', id: 'alice' }, { kind: 'person', id: 'bob' }], afterMs: 5 * MIN },
      ] },
    ]);
    const next = schedule('platform-primary-next');
    const now = Date.parse('2026-03-23T10:00:00Z');
    assert.equal(whoIsOnCall(schedule('platform-primary'), [], now).person, 'bob');
    assert.equal(whoIsOnCall(next, [], now).person, 'alice', 'the next in turn');
    assert.ok(result.notices.some((n) => n.startsWith('schedule platform-primary-next')));
  });

  it('lists every object of the source, and nothing mapped exactly when anything was not', () => {
    const count = (kind: ImportObjectKind): number => result.lines.filter((l) => l.kind === kind).length;
    assert.deepEqual(
      { users: count('user'), contacts: count('contact-method'), rules: count('notification-rule'), teams: count('team'), schedules: count('schedule'),
        rotations: count('rotation'), restrictions: count('restriction'), overrides: count('override'), policies: count('escalation-policy'),
        escalationRules: count('escalation-rule'), repeats: count('repeat') },
      { users: 4, contacts: 11, rules: 7, teams: 1, schedules: 2, rotations: 5, restrictions: 4, overrides: 2, policies: 2, escalationRules: 5, repeats: 1 });
    const line = (source: string) => result.lines.find((l) => l.source.startsWith(source));
    assert.equal(line('mobile contact of user alice')?.outcome, 'not-mapped');
    assert.match(line('rotation "Old weekly"')?.note ?? '', /^ended 2026-01-05/);
    assert.match(line('rule 2 of escalation "Database escalation"')?.note ?? '', /if-not-closed/);
    assert.equal(importIsExact(result), false);
  });

  it('matches Opsgenie\'s own timeline at every instant of its 28 days, DST and the override included', () => {
    const renderings = opsgenie.renderings(answers, result);
    assert.deepEqual(renderings.map((r) => [r.scheduleId, r.fromMs, r.toMs - r.fromMs]),
      [['platform-primary', FIXTURE_NOW_MS, 28 * 24 * HOUR], ['database', FIXTURE_NOW_MS, 28 * 24 * HOUR]]);
    for (const r of renderings) {
      assert.deepEqual(compareRendering(schedule(r.scheduleId), storedOverrides(result), r).differences, [], r.scheduleId);
    }
  });

  it('lists each instant a timeline differs from svc, as Opsgenie and svc see it', () => {
    const copy = importFixture('opsgenie').answers;
    const timeline = copy.pages('v2/schedules/d875a1b4-9b4e-4219-a1b3-0c26936d18de/timeline')?.[0]?.body as {
      data: { finalTimeline: { rotations: Array<{ periods: Array<{ startDate: string; endDate: string; recipient: { id: string; name: string } }> }> } };
    };
    // Out of hours on Saturday 21st: Opsgenie now says carol where the fixture said dave.
    const period = timeline.data.finalTimeline.rotations[1]?.periods[1];
    assert.deepEqual([period?.startDate, period?.endDate, period?.recipient.name], ['2026-03-21T17:00:00.000Z', '2026-03-22T17:00:00.000Z', 'dave@example.com']);
    if (period) period.recipient = { id: 'c3f0e1d2-6a7b-4c8d-9e0f-1a2b3c4d5e6f', name: 'carol@example.com' };
    const rendering = opsgenie.renderings(copy, result)[0];
    assert.ok(rendering);
    assert.deepEqual(compareRendering(schedule('platform-primary'), storedOverrides(result), rendering).differences, [{
      scheduleId: 'platform-primary', fromMs: Date.parse('2026-03-21T17:00:00Z'), toMs: Date.parse('2026-03-22T17:00:00Z'), vendor: ['carol'], svc: 'dave',
    }]);
  });

  it('says where rotations are on call together (Opsgenie notifies both, svc the first) and where nobody is (allowGaps)', () => {
    const dir = fixtureCopy('opsgenie');
    const file = join(dir, 'v2/schedules.json');
    const body = JSON.parse(readFileSync(file, 'utf8')) as { data: Array<{ rotations: Array<Record<string, unknown>> }> };
    delete body.data[0]?.rotations[0]?.timeRestriction; // business hours now all week, beside out of hours
    body.data[1]?.rotations.splice(1, 1); // the database schedule loses its nights
    writeFileSync(file, JSON.stringify(body));
    const changed = importFixture('opsgenie', dir).result;
    const primary = changed.lines.find((l) => l.source.startsWith('schedule "Platform Primary"'));
    assert.equal(primary?.outcome, 'approximated');
    assert.equal(primary?.note, '"Business hours" and "Out of hours" are both on call from 2026-03-20T17:00:00.000Z: Opsgenie notifies both, svc the first ("Business hours")');
    const database = changed.lines.find((l) => l.source.startsWith('schedule "Database"'));
    assert.equal(database?.outcome, 'mapped');
    assert.equal(database?.note, 'nobody is on call at times (first 2026-03-21T00:00:00.000Z), as in the source: allowGaps: true');
    assert.equal(changed.config.schedules.find((s) => s.id === 'database')?.allowGaps, true);
    assert.equal(schedule('database').allowGaps, false, 'the fixture covers every hour');
  });

  it('asks for every answer the mapping reads, the timeline of each schedule included', () => {
    const paths = opsgenie.requests(answers, FIXTURE_NOW_MS).map((r) => r.path);
    for (const saved of answers.paths()) assert.ok(paths.includes(saved), `${saved} is requested`);
    const timeline = opsgenie.requests(answers, FIXTURE_NOW_MS).find((r) => r.path.endsWith('/timeline'));
    assert.deepEqual(timeline?.query, { interval: '4', intervalUnit: 'weeks', date: '2026-03-20T12:00:00.000Z' });
  });
});
