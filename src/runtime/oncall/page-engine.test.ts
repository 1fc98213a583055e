import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pagingConfig } from '../../../test/support/oncall-config.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { fakeClock } from '../../core/clock.js';
import type { LogFields } from '../../core/log.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { PageRecord } from '../../oncall/page.js';
import type { PageQuery } from '../../store/store.js';
import { waitFor } from '../../../test/support/wait.js';
import type { Provider, TriageDecision } from '../providers/provider.js';
import { createDispatcher } from '../dispatch/dispatcher.js';
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
  const pages = async (): Promise<PageRecord[]> => (await store.oncall.listPages(all, {})).items as PageRecord[];
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

describe('page engine: a resolve that overtakes its firing in triage wins (§17.3)', () => {
  it('the firing\'s triage ends after the resolve\'s: no page opens, and the event says why', async () => {
    const store = await shared.fresh();
    const clock = fakeClock(T0);
    const logged: Array<{ event: string; fields: LogFields }> = [];
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', pagingConfig()]]),
      log: (_agent, event, fields) => logged.push({ event, fields }) });
    const ingest = async (status: 'firing' | 'resolved'): Promise<string> => {
      const r = await store.ingestEvent({ agentId: 'agent-a', sourceId: 'am', kind: 'alert', fingerprint: null,
        payloadText: JSON.stringify(alert('{}:{alertname="DiskFull"}', status)) }, clock.now());
      return r.outcome === 'accepted' ? r.event.id : assert.fail('accepted');
    };
    const fire = await ingest('firing');
    const resolved = await ingest('resolved');
    // Triage side by side, as the dispatcher runs it: the firing's answer (a slow model) is held until
    // the resolve's event has been handled and committed — the order the race produces.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    const provider: Provider = { name: 'slow', async triage(event) {
      const status = (event.payload as { status: 'firing' | 'resolved' }).status;
      if (status === 'firing') await held;
      return { ok: true, decision: decision(status) };
    } };
    const dispatcher = createDispatcher({ store, clock, owner: 'r1/run-1', leaseMs: 60_000, deliveryWindowMs: 0, stats: createSourceStats(),
      agents: [{ id: 'agent-a', provider, channels: [], pages: engine, dispatch: { maxAttempts: 3, initialBackoffMs: 500, maxBackoffMs: 4000, concurrency: 2 },
        log: { write: () => undefined, close: () => undefined } }],
      metrics: { channelOutcome: () => undefined, latency: () => undefined }, onError: (err) => { throw err; } });
    dispatcher.start();
    await waitFor('the resolve handled first', async () => (await store.getEvent(resolved))?.status === 'processed');
    assert.equal((await store.getEvent(fire))?.status, 'processing', 'the firing is still in triage');
    release();
    await waitFor('the firing handled', async () => (await store.getEvent(fire))?.status === 'processed');
    await dispatcher.drain(1000);

    assert.deepEqual((await store.oncall.listPages(all, {})).items, [], 'no page for an incident Alertmanager closed');
    const [row, ...more] = (await store.listAudit(all, { kind: 'event.superseded' })).items;
    assert.equal(more.length, 0);
    assert.deepEqual(JSON.parse(row?.dataText ?? 'null'), { eventId: fire, incidentKey: '{}:{alertname="DiskFull"}', resolvedBy: resolved });
    assert.deepEqual((await store.eventStory(fire)).map((r) => r.kind), ['event.accepted', 'event.superseded', 'triage.decision'],
      'its story says why nobody was paged (the decision commits with the event, after what it did)');
    assert.deepEqual(logged.filter((l) => l.event === 'page.firing-superseded').map((l) => l.fields.resolvedBy), [resolved]);

    // A genuinely new firing of the group, received after the resolve, pages.
    const again = await ingest('firing');
    const engineAgain = await engine.onDecision({ id: again, agentId: 'agent-a', sourceId: 'am', fingerprint: null,
      payload: alert('{}:{alertname="DiskFull"}', 'firing') }, decision('firing'));
    assert.equal(engineAgain, true);
    assert.deepEqual((await store.oncall.listPages(all, {})).items.map((p) => [p.state, (p as PageRecord).eventIds]), [['triggered', [again]]]);
  });
});

describe('page engine: a refused answer is audited on the page\'s timeline, whoever asked (§17.10)', () => {
  it('an ack of a resolved page, an ack on an opening since left, a step that is not there: each a page.ack-refused row', async () => {
    const { store, engine } = await setup(pagingConfig({ reopenWindowMs: 3_600_000 }));
    const page = await engine.openFor('agent-a', 'k', 'default', { id: 'e1', title: 'Disk full', severity: 'P1' });
    assert.ok(page !== null);
    const cli = { actor: 'cli:op', by: 'op', via: 'cli' as const };
    const escalate = await engine.act(page.id, { kind: 'escalate', toStep: 7 }, cli);
    assert.deepEqual(escalate, { ok: false, reason: 'policy default has steps 1..1; there is no step 7' });
    assert.equal((await engine.act(page.id, { kind: 'resolve', note: null }, cli)).ok, true);
    const late = await engine.act(page.id, { kind: 'ack', note: null }, { actor: 'slack:U1', by: 'alice', via: 'slack' });
    assert.deepEqual(late, { ok: false, reason: `page ${page.id} is already resolved` });
    await engine.openFor('agent-a', 'k', 'default', { id: 'e2', title: 'Disk full', severity: 'P1' });
    const stale = await engine.act(page.id, { kind: 'ack', note: null }, { actor: 'link:t0', by: 'alice', via: 'link' }, { incarnation: 0 });
    assert.deepEqual(stale, { ok: false, reason: `page ${page.id} was resolved and reopened since` });
    assert.equal((await store.oncall.getPage(page.id))?.state, 'triggered', 'the reopened page was not acknowledged by the old link');
    assert.equal((await engine.act(page.id, { kind: 'ack', note: null }, { actor: 'link:t1', by: 'alice', via: 'link' }, { incarnation: 1 })).ok, true);

    const refused = (await store.oncall.pageTimeline(page.id)).filter((r) => r.kind === 'page.ack-refused');
    assert.deepEqual(refused.map((r) => [r.actor, JSON.parse(r.dataText ?? 'null')]), [
      ['cli:op', { pageId: page.id, via: 'cli', user: 'op', action: 'escalate', reason: 'no-such-step' }],
      ['slack:U1', { pageId: page.id, via: 'slack', user: 'alice', action: 'ack', reason: 'resolved' }],
      ['link:t0', { pageId: page.id, via: 'link', user: 'alice', action: 'ack', reason: 'reopened' }],
    ]);
    assert.deepEqual((await store.eventStory('e1')).filter((r) => r.kind === 'page.ack-refused').length, 3, 'in the story of the page\'s event too');
  });
});

describe('page engine: a channel the agent no longer has (issue 33.4)', () => {
  it('a step to a channel channels.yaml dropped reaches nobody, audited page.nobody-on-call with missing and a warning, never a send', async () => {
    const store = await shared.fresh();
    const clock = fakeClock(T0);
    const logged: Array<{ event: string; fields: LogFields; level: string | undefined }> = [];
    const config = pagingConfig();
    const policy = config.policies[0];
    assert.ok(policy !== undefined);
    const withRoom: OncallConfig = { ...config, policies: [{ ...policy, steps: [{ notify: [{ kind: 'person', id: 'alice' }, { kind: 'channel', id: 'room' }],
      afterMs: 3_600_000 }] }] };
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', withRoom]]), hasChannel: (_agent, channelId) => channelId === 'dm',
      log: (_agent, event, fields, level) => logged.push({ event, fields, level }) });
    const page = await engine.openFor('agent-a', 'k', 'default', { id: 'e1', title: 'Disk full', severity: 'P1' });
    assert.ok(page !== null);
    const timeline = (await store.oncall.pageTimeline(page.id)).map((r) => ({ kind: r.kind, data: JSON.parse(r.dataText ?? 'null') as Record<string, unknown> }));
    assert.deepEqual(timeline.filter((r) => r.kind === 'page.nobody-on-call').map((r) => r.data),
      [{ pageId: page.id, channel: 'room', missing: true, step: 1, loop: 0 }]);
    assert.deepEqual(timeline.filter((r) => r.kind === 'page.notified').map((r) => [r.data.person, r.data.channel]), [['alice', 'dm']],
      'alice paged; nothing queued for the missing channel');
    assert.deepEqual(logged.filter((l) => l.event === 'page.nobody-on-call').map((l) => [l.level, l.fields.channel, l.fields.missing]),
      [['warn', 'room', true]]);
  });
});
