import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { OncallConfig, Override } from '../../oncall/oncall-config.js';
import type { ControlPlane } from '../server.js';
import { createControlPlane } from '../server.js';
import { calendarKey, checkCalendarKey } from '../../oncall/calendar-key.js';
import { createOncallCalendarRoute, createOncallRoute } from './oncall-route.js';
import type { OncallRouteDeps } from './oncall-route.js';
import { testPerson } from '../../../test/support/oncall-config.js';

const WEEK = 7 * 86_400_000;
const config = (fallback: string | null): OncallConfig => ({
  people: [
    testPerson('alice', { dm: 'alice' }, { name: 'Alice Example' }),
    testPerson('bob', { dm: 'bob' }),
  ],
  schedules: [{ id: 'primary', timeZone: 'Europe/Berlin', fallback, allowGaps: true,
    rotations: [{ people: ['alice', 'bob'], everyMs: WEEK, handoff: '2026-11-23T09:00',
      only: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], fromMinute: 540, toMinute: 1080 }], timeZone: 'Europe/Berlin' }] }],
  policies: [],
  routes: [],
  incidents: { key: { kind: 'groupKey' }, reopenWindowMs: 0 },
  heartbeats: [],
});

const SECRET = 'k'.repeat(64);
const keys = { check: (agentId: string, scheduleId: string, key: string) => checkCalendarKey(SECRET, agentId, scheduleId, key) };

describe('GET /oncall and /oncall/<schedule>.ics', () => {
  // Wednesday 2026-11-25 12:00 UTC = 13:00 in Berlin: alice's week, inside business hours.
  const clock = fakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const overrides: Override[] = [];
  const asked: Array<[string, number]> = [];
  const deps: OncallRouteDeps = {
    configs: () => [{ agentId: 'esc', config: config(null) }, { agentId: 'other', config: config('bob') }],
    overrides: (agentId, endsAfterMs) => {
      asked.push([agentId, endsAfterMs]);
      return Promise.resolve(overrides.filter((o) => o.agentId === agentId && o.toMs > endsAfterMs));
    },
    clock,
  };
  let server: ControlPlane;
  let base = '';
  before(async () => {
    server = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, guard: null, report: () => {}, clock, maxConnections: 16,
      routes: new Map([['/oncall', createOncallRoute(deps)], ['/oncall/', createOncallCalendarRoute(deps, keys)]]) });
    await server.start();
    base = `http://127.0.0.1:${server.port()}`;
  });
  after(() => server.close());

  it('who is on call now, until when, and the next handoff, per schedule of every agent', async () => {
    const res = await fetch(`${base}/oncall`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await res.json(), {
      at: '2026-11-25T12:00:00.000Z',
      schedules: [
        { id: 'primary', agentId: 'esc', timeZone: 'Europe/Berlin', onCall: [{ person: 'alice', source: 'rotation', until: '2026-11-25T17:00:00.000Z' }],
          nextHandoff: { at: '2026-11-25T17:00:00.000Z', person: null } },
        { id: 'primary', agentId: 'other', timeZone: 'Europe/Berlin', onCall: [{ person: 'alice', source: 'rotation', until: '2026-11-25T17:00:00.000Z' }],
          nextHandoff: { at: '2026-11-25T17:00:00.000Z', person: 'bob' } },
      ],
    });
  });

  it('?at=, ?agent= and ?schedule=; nobody on call is an empty list; overrides from the store decide', async () => {
    overrides.push({ id: 'o1', agentId: 'esc', scheduleId: 'primary', personId: 'bob', fromMs: Date.parse('2026-11-28T00:00:00Z'), toMs: Date.parse('2026-11-28T06:00:00Z') });
    const night = (await (await fetch(`${base}/oncall?at=2026-11-27T20:00:00Z&agent=esc&schedule=primary`)).json()) as { schedules: unknown[] };
    assert.deepEqual(night.schedules, [{ id: 'primary', agentId: 'esc', timeZone: 'Europe/Berlin', onCall: [],
      nextHandoff: { at: '2026-11-28T00:00:00.000Z', person: 'bob' } }]);
    assert.deepEqual(asked.at(-1), ['esc', Date.parse('2026-11-27T20:00:00Z')]);
    const swapped = (await (await fetch(`${base}/oncall?at=${Date.parse('2026-11-28T01:00:00Z')}&agent=esc`)).json()) as { schedules: unknown[] };
    assert.deepEqual(swapped.schedules, [{ id: 'primary', agentId: 'esc', timeZone: 'Europe/Berlin',
      onCall: [{ person: 'bob', source: 'override', until: '2026-11-28T06:00:00.000Z' }], nextHandoff: { at: '2026-11-28T06:00:00.000Z', person: null } }]);
    assert.deepEqual(((await (await fetch(`${base}/oncall?schedule=nope`)).json()) as { schedules: unknown[] }).schedules, []);
  });

  it('an override for a person the file no longer has (a reload renamed them) never wins: /oncall says what a page would reach', async () => {
    overrides.push({ id: 'o2', agentId: 'esc', scheduleId: 'primary', personId: 'carol-renamed', fromMs: Date.parse('2026-11-30T00:00:00Z'),
      toMs: Date.parse('2026-11-30T06:00:00Z') });
    const at = (await (await fetch(`${base}/oncall?at=2026-11-30T01:00:00Z&agent=esc&schedule=primary`)).json()) as { schedules: unknown[] };
    assert.deepEqual(at.schedules, [{ id: 'primary', agentId: 'esc', timeZone: 'Europe/Berlin', onCall: [],
      nextHandoff: { at: '2026-11-30T08:00:00.000Z', person: 'bob' } }]);
    overrides.pop();
  });

  it('a bad at, an unknown or repeated parameter: 400 naming it', async () => {
    for (const [query, error] of [
      ['at=tomorrow', 'invalid at: expected an ISO-8601 timestamp or integer milliseconds'],
      ['at=1&at=2', 'invalid at: given more than once'],
      ['when=1', 'invalid when: unknown parameter (expected at, agent, schedule)'],
    ]) {
      const res = await fetch(`${base}/oncall?${query}`);
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(await res.json(), { error });
    }
  });

  it('the calendar: text/calendar, CRLF, one VEVENT per shift; several agents with the id need ?agent=', async () => {
    const ambiguous = await fetch(`${base}/oncall/primary.ics`);
    assert.equal(ambiguous.status, 400);
    assert.deepEqual(await ambiguous.json(), { error: 'schedule "primary" is in agents esc, other: choose one with ?agent=' });
    const res = await fetch(`${base}/oncall/primary.ics?agent=esc`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/calendar; charset=utf-8');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const text = await res.text();
    assert.ok(text.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\n'));
    // 28 days from Wednesday 13:00 local: 21 working days, each a business-hours shift (the first from its 09:00
    // start, the last cut at 12:00 UTC four weeks on), plus bob's Saturday-night override of the test before.
    assert.equal(text.split('BEGIN:VEVENT\r\n').length - 1, 22);
    assert.ok(text.includes('DTSTART:20261128T000000Z\r\nDTEND:20261128T060000Z\r\nSUMMARY:On call: bob (primary\\, override)\r\n'));
    assert.ok(text.includes('DTSTART:20261125T080000Z\r\nDTEND:20261125T170000Z\r\nSUMMARY:On call: Alice Example (primary)\r\n'));
    const head = await fetch(`${base}/oncall/primary.ics?agent=esc`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  it('an unknown schedule or path: 404', async () => {
    assert.deepEqual(await (await fetch(`${base}/oncall/nope.ics`)).json(), { error: 'no schedule "nope"' });
    assert.deepEqual(await (await fetch(`${base}/oncall/primary.ics?agent=ghost`)).json(), { error: 'no schedule "primary" in agent "ghost"' });
    assert.equal((await fetch(`${base}/oncall/primary`)).status, 404);
    assert.equal((await fetch(`${base}/oncall/x/primary.ics`)).status, 404);
    assert.equal((await fetch(`${base}/oncall/%E0%A4%A.ics`)).status, 404);
  });

  it('from and days (§24.7): exactly that window; days out of 1..366 or a zoneless from is a 400 naming it', async () => {
    const text = await (await fetch(`${base}/oncall/primary.ics?agent=esc&from=2026-11-30T00:00:00Z&days=1`)).text();
    // Monday 30 November: bob's week, 09:00-18:00 Berlin.
    assert.deepEqual([...text.matchAll(/DTSTART:(\w+)\r\nDTEND:(\w+)/g)].map((m) => [m[1], m[2]]), [['20261130T080000Z', '20261130T170000Z']]);
    for (const [query, error] of [
      ['days=0', 'invalid days: expected an integer 1..366'], ['days=367', 'invalid days: expected an integer 1..366'], ['days=1.5', 'invalid days: expected an integer 1..366'],
      ['from=2026-11-30T00:00', 'invalid from: no time zone; expected an ISO-8601 timestamp with a zone (Z or +01:00) or integer milliseconds'],
    ]) {
      const res = await fetch(`${base}/oncall/primary.ics?agent=esc&${query}`);
      assert.equal(res.status, 400, query);
      assert.deepEqual(await res.json(), { error }, query);
    }
  });

  it('a subscription key picks its agent and person; a wrong key, another schedule\'s or another agent\'s is 403', async () => {
    const whole = await fetch(`${base}/oncall/primary.ics?key=${calendarKey(SECRET, 'other', 'primary', null)}`);
    assert.equal(whole.status, 200, 'the key says which agent: no ?agent= needed');
    assert.match(await whole.text(), /X-WR-CALNAME:On call: primary \(other\)/);
    const bobs = await (await fetch(`${base}/oncall/primary.ics?key=${calendarKey(SECRET, 'esc', 'primary', 'bob')}`)).text();
    const summaries = [...bobs.matchAll(/SUMMARY:(.*)\r\n/g)].map((m) => m[1]);
    assert.ok(summaries.length > 0 && summaries.every((t) => t?.startsWith('On call: bob')), JSON.stringify(summaries));
    for (const key of ['nope', calendarKey('x'.repeat(64), 'esc', 'primary', null), calendarKey(SECRET, 'esc', 'secondary', null)]) {
      const res = await fetch(`${base}/oncall/primary.ics?key=${key}`);
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), { error: 'invalid calendar key' });
    }
  });

  it('a keyed calendar request passes the token check (the key is its credential); without a key the token is still required', async () => {
    const refuse = () => Promise.resolve({ ok: false as const, status: 401, body: { error: 'missing bearer token', reason: 'missing-token' }, headers: {} });
    const guarded = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, guard: refuse, report: () => {}, clock, maxConnections: 16,
      keyed: (path, url) => path.startsWith('/oncall/') && /[?&]key=/.test(url),
      routes: new Map([['/oncall', createOncallRoute(deps)], ['/oncall/', createOncallCalendarRoute(deps, keys)]]) });
    await guarded.start();
    try {
      const at = `http://127.0.0.1:${guarded.port()}`;
      assert.equal((await fetch(`${at}/oncall/primary.ics?key=${calendarKey(SECRET, 'esc', 'primary', null)}`)).status, 200);
      assert.equal((await fetch(`${at}/oncall/primary.ics?key=wrong`)).status, 403);
      assert.equal((await fetch(`${at}/oncall/primary.ics?agent=esc`)).status, 401);
      assert.equal((await fetch(`${at}/oncall?key=x`)).status, 401, 'only the calendars take a key');
    } finally {
      await guarded.close();
    }
  });
});
