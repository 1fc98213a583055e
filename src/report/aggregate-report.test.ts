import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dailyShifts, testPerson } from '../../test/support/oncall-config.js';
import { reportRows } from '../../test/support/report-rows.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { ReportAgent } from './aggregate-report.js';
import { aggregateReport, interruptionMemo } from './aggregate-report.js';
import { factsFolder, pageFacts } from './page-facts.js';
import type { ReportAuditRow } from '../store/report-rows.js';
import type { ReportBy } from './report-query.js';

const MIN = 60_000;
const at = (iso: string): number => Date.parse(iso);

// alice (Berlin) and bob (New York) take daily turns in `primary` at 09:00 Berlin (08:00Z): alice from 2026-11-23 (a Monday).
const config: OncallConfig = {
  ...dailyShifts({ alice: {}, bob: {} }),
  people: [testPerson('alice', {}, { name: 'Alice Example', timeZone: 'Europe/Berlin' }), testPerson('bob', {}, { timeZone: 'America/New_York' })],
  policies: [{ id: 'default', steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 5 * MIN }, { notify: [{ kind: 'person', id: 'bob' }],
    afterMs: 5 * MIN }], repeat: 0, ackTimeoutMs: 0, onExhausted: [] }],
};
const agent: ReportAgent = { agentId: 'agent-a', config, overrides: [],
  channelTypes: new Map([['push', 'ntfy'], ['mail', 'email'], ['slack-dm', 'slack']]) };

const rows = reportRows()
  // Monday 09:00 Berlin: alice's push (business) and mail (does not wake); acked after 2 min, resolved after 30; the resolve's notice is no round.
  .page('p1', at('2026-11-23T08:00Z'), { alertname: 'DiskFull' })
  .notified('p1', at('2026-11-23T08:00Z'), 'alice', 'push').notified('p1', at('2026-11-23T08:00Z'), 'alice', 'mail')
  .row('p1', 'page.acknowledged', at('2026-11-23T08:02Z'), { via: 'cli' })
  .row('p1', 'page.resolved', at('2026-11-23T08:30Z'), { via: 'cli' }).notified('p1', at('2026-11-23T08:30Z'), 'alice', 'push')
  // Tuesday 04:00 Berlin (alice asleep), escalated to bob at Monday 22:05 New York (asleep); a channel no longer configured does not count.
  .page('p2', at('2026-11-24T03:00Z'), { alertname: 'DiskFull' })
  .notified('p2', at('2026-11-24T03:00Z'), 'alice', 'push')
  .row('p2', 'page.escalated', at('2026-11-24T03:05Z'), { reason: 'timeout' })
  .notified('p2', at('2026-11-24T03:05Z'), 'bob', 'slack-dm').notified('p2', at('2026-11-24T03:05Z'), 'bob', 'gone')
  .row('p2', 'page.resolved', at('2026-11-24T03:20Z'), { via: 'cli' })
  // Saturday 13:00 Berlin (off hours) on bob's day; resolved by its source after 2 min: flapping.
  .page('p3', at('2026-11-28T12:00Z'), { alertname: 'Flappy' })
  .notified('p3', at('2026-11-28T12:00Z'), 'alice', 'push')
  .row('p3', 'page.resolved', at('2026-11-28T12:02Z'), { via: 'source' })
  // A page of a policy the file no longer has, without an alert name, to a team room only; exhausted.
  .page('p4', at('2026-11-25T19:00Z'), { policy: 'old' })
  .notified('p4', at('2026-11-25T19:00Z'), '-', 'slack-dm')
  .row('p4', 'page.exhausted', at('2026-11-25T19:30Z'))
  .build();

const report = (by: ReportBy | null = null) => aggregateReport({ query: { sinceMs: at('2026-11-23T00:00Z'), untilMs: at('2026-11-30T00:00Z'), agent: null, by },
  facts: pageFacts(rows).values(), agents: [agent] });

describe('the report, from hand-built rows', () => {
  it('totals: distributions of ack and resolve times, escalations, exhausted, flapping, interruptions by the person\'s local time', () => {
    const r = report();
    assert.deepEqual(r.totals, {
      pages: 4, acknowledged: 1, resolved: 3,
      timeToAckSeconds: { count: 1, p50: 120, p90: 120, max: 120 },
      timeToResolveSeconds: { count: 3, p50: 1200, p90: 1800, max: 1800 },
      escalations: { timeout: 1, manual: 0 }, exhausted: 1, flapping: 1,
      interruptions: { business: 1, offHours: 1, sleep: 2, total: 4 },
    });
    assert.deepEqual([r.since, r.until, r.agent, r.by, r.groups, r.groupsLeftOut], ['2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z', null, null, [], 0]);
  });

  it('who carried it: each person\'s interruptions in their own zone and hours on call; the noisiest alert names', () => {
    const r = report();
    assert.deepEqual(r.people, [
      { agentId: 'agent-a', person: 'alice', name: 'Alice Example', timeZone: 'Europe/Berlin', interruptions: { business: 1, offHours: 1, sleep: 1, total: 3 }, hoursOnCall: 88 },
      { agentId: 'agent-a', person: 'bob', name: null, timeZone: 'America/New_York', interruptions: { business: 0, offHours: 0, sleep: 1, total: 1 }, hoursOnCall: 80 },
    ]);
    assert.deepEqual(r.alerts, [{ alertname: 'DiskFull', pages: 2, flapping: 0 }, { alertname: 'Flappy', pages: 1, flapping: 1 },
      { alertname: null, pages: 1, flapping: 0 }]);
  });

  it('--by person: the pages with a round to each, their own interruptions, their hours', () => {
    const g = report('person').groups;
    assert.deepEqual(g.map((x) => [x.key, x.agentId, x.pages, x.interruptions.total, x.hoursOnCall, x.timeToResolveSeconds.p50]),
      [['alice', 'agent-a', 3, 3, 88, 1200], ['bob', 'agent-a', 1, 1, 80, 1200]]);
  });

  it('--by schedule: pages whose policy names it, interruptions of whoever was on call in it then, hours it was staffed', () => {
    const [primary, ...rest] = report('schedule').groups;
    assert.deepEqual(rest, []);
    assert.deepEqual([primary?.key, primary?.pages, primary?.interruptions, primary?.hoursOnCall],
      ['primary', 3, { business: 1, offHours: 0, sleep: 1, total: 2 }, 168], 'bob at 03:05Z and alice on Saturday were not on call in primary');
  });

  it('--by policy and --by alert: every page of each, a policy the file lost included, pages without an alert name together', () => {
    assert.deepEqual(report('policy').groups.map((x) => [x.key, x.pages, x.exhausted, x.hoursOnCall]), [['default', 3, 0, null], ['old', 1, 1, null]]);
    assert.deepEqual(report('alert').groups.map((x) => [x.key, x.agentId, x.pages, x.flapping, x.interruptions.total]),
      [['DiskFull', null, 2, 0, 3], ['Flappy', null, 1, 1, 1], [null, null, 1, 0, 0]]);
  });

  it('a quiet person, schedule or policy is still listed; an agent filter leaves the others\' people out', () => {
    const quiet: OncallConfig = { ...config, people: [...config.people, testPerson('carol', {})] };
    const r = aggregateReport({ query: { sinceMs: at('2026-11-23T00:00Z'), untilMs: at('2026-11-24T00:00Z'), agent: 'agent-a', by: 'person' },
      facts: [], agents: [{ ...agent, config: quiet }] });
    assert.deepEqual(r.groups.map((x) => [x.key, x.pages, x.hoursOnCall]), [['alice', 0, 16], ['bob', 0, 8], ['carol', 0, 0]]);
    assert.deepEqual(r.people.map((p) => p.person), ['alice', 'bob', 'carol']);
    assert.equal(r.totals.timeToAckSeconds.p50, null);
  });
});

describe('interruptions kept between reports (the daemon\'s cache passes the same memo)', () => {
  it('a page\'s interruptions are worked out again once it has a new round, and under reloaded channels or oncall.yaml', () => {
    const folder = factsFolder();
    const built = reportRows().page('m1', at('2026-11-23T08:00Z')).notified('m1', at('2026-11-23T08:00Z'), 'alice', 'push').build();
    for (const p of built.pages) folder.addPage(p);
    for (const r of built.rows) folder.fold(r);
    const memo = interruptionMemo();
    const total = (a: typeof agent): number => aggregateReport({ query: { sinceMs: at('2026-11-23T00:00Z'), untilMs: at('2026-11-24T00:00Z'), agent: null,
      by: null }, facts: [...folder.facts().values()], agents: [a], memo }).totals.interruptions.total;
    assert.equal(total(agent), 1);
    folder.fold({ ...(built.rows[0] as ReportAuditRow), seq: 9, channel: 'slack-dm' });
    assert.equal(total(agent), 2, 'the new round counts');
    assert.equal(total({ ...agent, channelTypes: new Map([['push', 'email'], ['slack-dm', 'email']]) }), 0, 'channels reloaded: neither wakes now');
    assert.equal(total({ ...agent, config: { ...config, people: [] } }), 2, 'a reloaded oncall.yaml: its own rule');
    assert.equal(total(agent), 2);
  });
});

describe('interruptions through each channel type that wakes (contract §23.1)', () => {
  // Monday 09:00 Berlin: one page round to alice on the channel under test and on mail; the ack's notice on it is no round.
  const through = (types: Array<[string, string]>) => {
    const b = reportRows().page('w1', at('2026-11-23T08:00Z'));
    for (const [channel] of types) b.notified('w1', at('2026-11-23T08:00Z'), 'alice', channel);
    b.notified('w1', at('2026-11-23T08:00Z'), 'alice', 'mail').row('w1', 'page.acknowledged', at('2026-11-23T08:03Z'), { via: 'cli' });
    for (const [channel] of types) b.notified('w1', at('2026-11-23T08:03Z'), 'alice', channel, { round: 'acknowledged' });
    const r = aggregateReport({ query: { sinceMs: at('2026-11-23T00:00Z'), untilMs: at('2026-11-24T00:00Z'), agent: null, by: null },
      facts: pageFacts(b.build()).values(), agents: [{ ...agent, channelTypes: new Map([...types, ['mail', 'email']]) }] });
    return r.people.find((p) => p.person === 'alice')?.interruptions;
  };
  const once = { business: 1, offHours: 0, sleep: 0, total: 1 };

  for (const type of ['ntfy', 'pushover', 'telegram'] as const) {
    it(`${type}: a page round wakes`, () => {
      assert.deepEqual(through([['phone', type]]), once);
    });
  }

  it('twilio: an SMS channel and a voice channel are a round each (a person paged by text, then called, was woken twice)', () => {
    assert.deepEqual(through([['sms', 'twilio']]), once);
    assert.deepEqual(through([['sms', 'twilio'], ['call', 'twilio']]), { business: 2, offHours: 0, sleep: 0, total: 2 });
  });

  it('mail, files, webhooks and PagerDuty do not wake', () => {
    for (const type of ['email', 'file', 'webhook', 'pagerduty']) assert.deepEqual(through([['other', type]]), noneAt, type);
  });
});
const noneAt = { business: 0, offHours: 0, sleep: 0, total: 0 };
