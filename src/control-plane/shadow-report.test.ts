import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dailyShifts, testPerson } from '../../test/support/oncall-config.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import type { PageRecord } from '../oncall/page.js';
import { parseShadowQuery } from './routes/shadow-route.js';
import type { ShadowSources } from './shadow-report.js';
import { shadowAlerts } from './shadow-report.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const config: OncallConfig = { ...dailyShifts({ alice: {}, bob: {} }),
  people: [testPerson('alice', { dm: 'alice' }, { name: 'Alice Example', login: 'alice@example.com' }), testPerson('bob', { dm: 'bob' })] };
const templated: OncallConfig = { ...config, incidents: { key: { kind: 'template', template: '{{labels.alertname}}/{{labels.cluster}}' }, reopenWindowMs: 0 } };
const page = { id: 'pdisk0000001', agentId: 'ops', incidentKey: '{}:{alertname="DiskFull"}', openedAtMs: T0 - 2_000, title: 'DiskFull on db-1',
  severity: 'P1' } as PageRecord;
const row = (s: number, agentId: string, data: Record<string, unknown>) => ({ tsMs: T0 + s * 1_000, agentId,
  data: { channelId: 'dm', channelType: 'file', deliveryId: `d${s}`, ...data } });

describe('shadowAlerts: who a shadow run would have told, per alert (§22.3)', () => {
  const sources: ShadowSources = {
    page: (id) => (id === page.id ? page : undefined),
    event: (id) => ({
      e1: { tsMs: T0 + 60_000, payload: { groupKey: '{}:{alertname="CPU"}' }, fingerprint: 'f1' },
      e2: { tsMs: T0 + 30_000, payload: { groupKey: '{}:{alertname="CPU"}' }, fingerprint: 'f2' },
      e3: { tsMs: T0, payload: { commonLabels: { alertname: 'Latency', cluster: 'eu' } }, fingerprint: 'f3' },
      e4: { tsMs: T0, payload: { text: 'not from Alertmanager' }, fingerprint: 'f4' },
    } as Record<string, { tsMs: number; payload: unknown; fingerprint: string | null }>)[id],
    config: (id) => (id === 'ops' ? config : id === 'eu' ? templated : undefined),
  };

  it('a page\'s rounds under its incident key, in time order, with each person\'s name and login (status updates wake nobody: left out); messages without a page under the key their event would open', () => {
    const alerts = shadowAlerts([
      row(300, 'ops', { pageId: page.id, eventId: 'e0', person: 'bob' }),
      row(0, 'ops', { pageId: page.id, eventId: 'e0', person: 'alice', pageKind: 'escalation' }),
      row(301, 'ops', { pageId: page.id, eventId: 'e0', person: 'alice', pageKind: 'escalated-past' }),
      row(400, 'ops', { pageId: page.id, eventId: 'e0', person: 'bob', pageKind: 'resolved' }),
      row(61, 'plain', { eventId: 'e1', title: 'CPU hot', severity: 'P2' }),
      row(31, 'plain', { eventId: 'e2', title: 'CPU hot', severity: 'P2' }),
      row(1, 'eu', { pageId: null, eventId: 'e3', person: 'alice', title: 'Latency', severity: 'P3' }),
      row(2, 'plain', { eventId: 'e4', title: 'Custom', severity: 'P3' }),
    ], sources);
    assert.deepEqual(alerts.map((a) => [a.agentId, a.incidentKey, a.pageId, a.openedAt, a.title, a.firstNoticeAt,
      a.notices.map((n) => `${n.person}@${n.at.slice(11, 19)}`)]), [
      ['ops', '{}:{alertname="DiskFull"}', page.id, '2026-11-23T09:59:58.000Z', 'DiskFull on db-1', '2026-11-23T10:00:00.000Z',
        ['alice@10:00:00', 'bob@10:05:00']],
      ['eu', 'Latency/eu', null, '2026-11-23T10:00:00.000Z', 'Latency', '2026-11-23T10:00:01.000Z', ['alice@10:00:01']],
      ['plain', 'f4', null, '2026-11-23T10:00:00.000Z', 'Custom', '2026-11-23T10:00:02.000Z', ['-@10:00:02']],
      ['plain', '{}:{alertname="CPU"}', null, '2026-11-23T10:00:30.000Z', 'CPU hot', '2026-11-23T10:00:31.000Z', ['-@10:00:31', '-@10:01:01']],
    ]);
    assert.deepEqual(alerts[0]?.notices[0], { at: '2026-11-23T10:00:00.000Z', person: 'alice', name: 'Alice Example', login: 'alice@example.com',
      channel: 'dm', channelType: 'file', deliveryId: 'd0' });
    assert.deepEqual(alerts[0]?.notices[1]?.name, null);
  });
});

describe('GET /shadow query', () => {
  it('takes since, until and agent; anything else, twice, malformed or backwards is refused naming the parameter', () => {
    assert.deepEqual(parseShadowQuery(new URLSearchParams('since=2026-11-23T00:00:00Z&agent=ops')),
      { ok: true, value: { sinceMs: Date.parse('2026-11-23T00:00:00Z'), untilMs: null, agent: 'ops' } });
    assert.deepEqual(parseShadowQuery(new URLSearchParams('limit=5')), { ok: false, error: 'invalid limit: unknown parameter (expected since, until, agent)' });
    assert.deepEqual(parseShadowQuery(new URLSearchParams('since=1&since=2')), { ok: false, error: 'invalid since: given more than once' });
    assert.equal(parseShadowQuery(new URLSearchParams('until=yesterday')).ok, false);
    assert.deepEqual(parseShadowQuery(new URLSearchParams('since=2000&until=1000')), { ok: false, error: 'invalid until: earlier than since' });
  });
});
