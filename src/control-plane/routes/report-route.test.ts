import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { dailyShifts } from '../../../test/support/oncall-config.js';
import { fakeClock } from '../../core/clock.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import { planAck, planOpen } from '../../oncall/page-plan.js';
import { createReadGate } from '../read-gate.js';
import { parseReportParams } from '../report-params.js';
import type { ControlPlane } from '../server.js';
import { createControlPlane } from '../server.js';
import { createReportRoute } from './report-route.js';

const NOW = Date.parse('2026-11-30T00:00:00Z');
const DAY = 86_400_000;
const config: OncallConfig = { ...dailyShifts({ alice: { push: 'alice-topic' }, bob: {} }),
  policies: [{ id: 'default', steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 300_000 }], repeat: 0, ackTimeoutMs: 0, onExhausted: [] }] };

describe('report parameters', () => {
  const parse = (q: string): ReturnType<typeof parseReportParams> => parseReportParams(new URLSearchParams(q), NOW);
  it('until defaults to now and since to 30 days before until; by and agent as given', () => {
    assert.deepEqual(parse(''), { ok: true, value: { sinceMs: NOW - 30 * DAY, untilMs: NOW, agent: null, by: null } });
    assert.deepEqual(parse('until=2026-11-10T00:00:00Z&by=alert&agent=esc'),
      { ok: true, value: { sinceMs: Date.parse('2026-10-11T00:00:00Z'), untilMs: Date.parse('2026-11-10T00:00:00Z'), agent: 'esc', by: 'alert' } });
  });
  it('refuses what it cannot use, naming the parameter', () => {
    const error = (q: string): string => { const r = parse(q); return r.ok ? 'accepted' : r.error; };
    assert.match(error('since=nonsense'), /^invalid since: expected an ISO-8601 timestamp/);
    assert.match(error('since=2026-11-20T10:00'), /^invalid since/, 'a time without its zone');
    assert.equal(error('since=2026-11-20T00:00:00Z&until=2026-11-19T00:00:00Z'), 'invalid until: must be after since');
    assert.equal(error('since=2026-11-20T00:00:00Z&until=2026-11-20T00:00:00Z'), 'invalid until: must be after since');
    assert.equal(error('since=2024-01-01T00:00:00Z'), 'invalid since: the window is at most 366 days');
    assert.equal(error('by=color'), 'invalid by: expected one of person, schedule, policy, alert');
    assert.equal(error('by=person&by=alert'), 'invalid by: given more than once');
    assert.equal(error('color=red'), 'invalid color: unknown parameter (expected since, until, agent, by)');
    assert.equal(error('agent='), 'invalid agent: empty');
  });
});

describe('GET /report', () => {
  const shared = sharedSqliteStore('svc-report-route-');
  const clock = fakeClock(NOW);
  let server: ControlPlane;
  let base = '';
  before(async () => {
    const store = await shared.fresh();
    const resolve = () => ({ nobodyOnCall: [], recipients: [{ person: 'alice', channel: 'push', to: 'alice-topic' }] });
    const opened = planOpen({ pageId: 'preportroute1', agentId: 'esc', incidentKey: 'k', policy: config.policies[0] as OncallConfig['policies'][number],
      policySha256: 'sha', nowMs: NOW - DAY, resolve, event: { id: 'e1', title: 'Disk full', severity: 'P1', alertname: 'DiskFull' } });
    await store.oncall.applyPagePlan(opened, NOW - DAY);
    const acked = planAck(opened.page, { actor: 'cli:alice', by: 'alice', via: 'cli' }, null, NOW - DAY + 90_000);
    assert.ok(acked.ok && acked.plan !== null);
    await store.oncall.applyPagePlan(acked.plan, NOW - DAY + 90_000);
    const reports = { gate: createReadGate(1), sources: { store, configs: () => [{ agentId: 'esc', config }], channelTypes: () => new Map([['push', 'ntfy']]) } };
    server = createControlPlane({ bind: '127.0.0.1', port: 0, allowRemote: false, guard: null, report: () => {}, clock, maxConnections: 16,
      routes: new Map([['/report', createReportRoute({ reports, clock, report: () => {} })]]) });
    await server.start();
    base = `http://127.0.0.1:${server.port()}`;
  });
  after(async () => {
    await server.close();
    await shared.close();
  });

  it('answers the report of the last 30 days as JSON, grouped when asked', async () => {
    const res = await fetch(`${base}/report?by=person`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await res.json() as { since: string; totals: { pages: number; timeToAckSeconds: unknown; interruptions: unknown };
      groups: Array<{ key: string; pages: number }>; alerts: unknown };
    assert.equal(body.since, '2026-10-31T00:00:00.000Z');
    assert.deepEqual([body.totals.pages, body.totals.timeToAckSeconds, body.totals.interruptions],
      [1, { count: 1, p50: 90, p90: 90, max: 90 }, { business: 0, offHours: 0, sleep: 1, total: 1 }]);
    assert.deepEqual(body.groups.map((g) => [g.key, g.pages]), [['alice', 1], ['bob', 0]]);
    assert.deepEqual(body.alerts, [{ alertname: 'DiskFull', pages: 1, flapping: 0 }]);
  });

  it('a bad parameter is 400 naming it; nothing is read', async () => {
    const res = await fetch(`${base}/report?by=color`);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { error: 'invalid by: expected one of person, schedule, policy, alert' });
  });
});
