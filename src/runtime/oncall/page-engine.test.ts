import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pagingConfig } from '../../../test/support/oncall-config.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { fakeClock } from '../../core/clock.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { PageRecord } from '../../oncall/page.js';
import type { PageQuery } from '../../store/store.js';
import type { TriageDecision } from '../providers/provider.js';
import { createPageEngine } from './page-engine.js';

const T0 = Date.UTC(2026, 10, 23, 10);
const all: PageQuery = { limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null };
const shared = sharedSqliteStore('svc-page-engine-');
after(() => shared.close());

const decision = (status: 'firing' | 'resolved'): TriageDecision => ({ notify: true, severity: 'P1', status, title: 'Disk full on db-1',
  text: 'disk 97% full', alertCount: 1, triagedBy: 'rules' });
/** An Alertmanager notification of group `groupKey`, as its payload reaches the engine. */
const alert = (groupKey: string, status: 'firing' | 'resolved'): unknown => ({ version: '4', groupKey, status, groupLabels: {},
  commonLabels: { alertname: 'DiskFull' }, alerts: [{ status, labels: { alertname: 'DiskFull' } }] });

async function setup(config: OncallConfig = pagingConfig()) {
  const store = await shared.fresh();
  const clock = fakeClock(T0);
  const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]) });
  const pages = async (): Promise<PageRecord[]> => (await store.oncall.listPages(all, {})).items;
  return { store, clock, engine, pages };
}

describe('page engine', () => {
  it('an alert whose incident key reads `heartbeat:<id>` is an alert: it neither resolves nor joins the heartbeat\'s page', async () => {
    const { engine, pages } = await setup(pagingConfig({
      heartbeats: [{ id: 'watchdog', source: 'am', match: { alertname: 'Watchdog' }, everyMs: 60_000, graceMs: 0, policy: 'default' }] }));
    const missed = await engine.openFor('agent-a', 'heartbeat:watchdog', 'default', { id: 'heartbeat:watchdog@1', title: 'Heartbeat missing', severity: 'P1' });
    assert.equal(missed?.state, 'triggered');
    const event = (id: string, status: 'firing' | 'resolved') => ({ id, agentId: 'agent-a', sourceId: 'am', fingerprint: id,
      payload: alert('heartbeat:watchdog', status) });
    await engine.onDecision(event('e-fire', 'firing'), decision('firing'));
    await engine.onDecision(event('e-resolve', 'resolved'), decision('resolved'));
    const byKey = new Map((await pages()).map((p) => [p.incidentKey, p]));
    assert.deepEqual(byKey.get('heartbeat:watchdog')?.eventIds, ['heartbeat:watchdog@1']);
    assert.equal(byKey.get('heartbeat:watchdog')?.state, 'triggered', 'the heartbeat\'s page is the heartbeat\'s');
    assert.deepEqual(byKey.get('~heartbeat:watchdog')?.eventIds, ['e-fire', 'e-resolve'], 'the alert paged and resolved its own page');
    assert.equal(byKey.get('~heartbeat:watchdog')?.state, 'resolved');
  });
});
