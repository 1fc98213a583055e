import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import type { OncallConfig, Override } from '../../oncall/oncall-config.js';
import type { ControlPlane } from '../server.js';
import { createControlPlane } from '../server.js';
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
      routes: new Map([['/oncall', createOncallRoute(deps)], ['/oncall/', createOncallCalendarRoute(deps)]]) });
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
});
