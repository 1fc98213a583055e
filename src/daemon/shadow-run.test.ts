/**
 * A shadow run beside a live agent in one daemon's parts (contract §22.3), on a real SQLite store,
 * the real file channel, the real dispatcher, page engine, notifier and timer loop, on fake time: the
 * live agent's messages land in its file; the shadow agents' — a page's opening round, its escalation,
 * its resolution, and an agent without oncall.yaml paging its channel's own recipient — are recorded
 * as `message.shadowed` rows and counted as `outcome="shadow"`, their page rounds marked
 * `shadow: true`, and their files are never written.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { metricValue } from '../../test/support/http.js';
import { oncallYaml } from '../../test/support/oncall-yaml.js';
import { advanceUntil } from '../../test/support/wait.js';
import type { LoadedAgent } from '../config/schema.js';
import { agentSchema, fileChannelSchema } from '../config/schema.js';
import { fakeClock } from '../core/clock.js';
import { createMetrics } from '../metrics/registry.js';
import { createSourceStats } from '../metrics/source-stats.js';
import { loadOncall } from '../oncall/load-oncall.js';
import type { OncallConfig } from '../oncall/oncall-config.js';
import { createDispatcher } from '../runtime/dispatch/dispatcher.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { ListedAuditRow, PageQuery } from '../store/store.js';
import { buildAgentSet } from './agent-set.js';
import { startAgentLogs } from './start-agent-logs.js';
import { startPages } from './start-pages.js';

/** Monday 23 November 2026, 10:00 UTC: alice is on call for `primary`. */
const T0 = Date.parse('2026-11-23T10:00:00Z');
const root = mkdtempSync(join(tmpdir(), 'svc-shadow-run-'));
after(() => rmSync(root, { recursive: true, force: true }));

const all: PageQuery = { limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null };
const alert = (group: string): string => JSON.stringify({
  version: '4', groupKey: `{}:{alertname="${group}"}`, truncatedAlerts: 0, status: 'firing', receiver: 'svc', groupLabels: { alertname: group },
  commonLabels: { alertname: group, severity: 'critical' }, commonAnnotations: { summary: `${group} on db-1` }, externalURL: 'http://am',
  alerts: [{ status: 'firing', labels: { alertname: group, severity: 'critical', instance: 'db-1' }, annotations: { summary: `${group} on db-1` },
    startsAt: '2026-11-23T09:59:00Z', endsAt: '0001-01-01T00:00:00Z', generatorURL: 'http://prom', fingerprint: `f-${group}` }],
});

/** An agent directory as `svc up` loads it: agent.yaml keys through the real schema, one file channel. */
function agentDir(id: string, opts: { shadow: boolean; oncall: boolean }): { loaded: LoadedAgent; out: string; oncall: OncallConfig | null } {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'out', 'oncall-dm.jsonl');
  if (opts.oncall) writeFileSync(join(dir, 'oncall.yaml'), oncallYaml('5m', '10m'));
  const loaded: LoadedAgent = { dir, agent: agentSchema.parse({ id, provider: 'rules', ...(opts.shadow ? { shadow: true } : {}) }), sources: [],
    channels: [fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path: out })], skills: [] };
  const oncall = opts.oncall ? loadOncall(loaded, { env: {}, home: root, nowMs: T0 }) : null;
  return { loaded, out, oncall };
}

describe('a shadow run beside a live agent (§22.3)', () => {
  it('pages, escalates and resolves like the live one and records every round, while no channel of it is called', async () => {
    const clock = fakeClock(T0);
    const store = await openSqliteStore({ path: join(root, 'svc.db') });
    const live = agentDir('live', { shadow: false, oncall: true });
    const rehearsal = agentDir('rehearsal', { shadow: true, oncall: true });
    const plain = agentDir('plain', { shadow: true, oncall: false });
    const agents = [live, rehearsal, plain];
    const ids = agents.map((a) => a.loaded.agent.id);
    const stats = createSourceStats();
    const metrics = createMetrics({ stats, agents: agents.map((a) => ({ id: a.loaded.agent.id, sources: [], channels: ['oncall-dm'] })) });
    const reports: string[] = [];
    const logs = startAgentLogs({ agentIds: ids, path: (id) => join(root, 'logs', `${id}.log`), clock, report: (l) => reports.push(l) });
    const set = buildAgentSet(agents.map((a) => a.loaded), { logs, audit: (e) => store.appendAudit(e, clock.now()), metrics, servers: new Map(), clock });
    const configs = new Map<string, OncallConfig>(agents.flatMap((a) => (a.oncall === null ? [] : [[a.loaded.agent.id, a.oncall] as const])));
    const channelOutcome = (agent: string, channel: string, outcome: 'delivered' | 'failed' | 'shadow'): void =>
      metrics.dispatch.channelMessages.inc({ agent, channel, outcome });
    const pages = startPages({ store, clock, owner: 'r1/1', configs, agents: set.agents, metrics, report: (l) => reports.push(l), deliveryWindowMs: 60_000 });
    const dispatcher = createDispatcher({ store, agents: set.agents, stats, clock, owner: 'r1/1', leaseMs: 60_000, deliveryWindowMs: 60_000,
      metrics: { channelOutcome, latency: () => undefined }, onError: (err) => reports.push(String(err)) });
    dispatcher.start();
    pages.start();

    const rows = async (kind: string): Promise<Array<ListedAuditRow & { data: Record<string, unknown> }>> =>
      (await store.listAudit(all, { kind })).items.map((r) => ({ ...r, data: JSON.parse(r.dataText ?? '{}') as Record<string, unknown> }));
    const lines = (out: string): Array<{ to: string; status: string }> => (existsSync(out)
      ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { to: string; status: string }) : []);
    const count = async (agent: string, outcome: string): Promise<number> =>
      metricValue(await metrics.registry.metrics(), 'svc_channel_messages_total', { agent, channel: 'oncall-dm', outcome }) ?? 0;

    for (const id of ids) {
      await store.ingestEvent({ agentId: id, sourceId: 'alertmanager', kind: 'webhook', fingerprint: `fp-${id}`, payloadText: alert('DiskFull') }, clock.now());
      dispatcher.wake(id);
    }
    // The opening round of both pages, and the shadow agent's plain message (no oncall.yaml: the channel's own recipient).
    await advanceUntil(clock, 'the live page reaches alice and the shadow ones are recorded', async () =>
      lines(live.out).length === 1 && (await rows('message.shadowed')).length === 2, 50);
    // Nobody answers: step 2 (bob) after 5 minutes, on both pages, and alice hears of the climb (§21.1).
    await advanceUntil(clock, 'the escalation to bob', async () => lines(live.out).length === 3 && (await rows('message.shadowed')).length === 4, 1_000);
    for (const id of ['live', 'rehearsal']) {
      assert.ok(await pages.engine.resolveKey(id, '{}:{alertname="DiskFull"}', { actor: 'cli:ops', by: 'ops', via: 'cli' }, null));
    }
    await advanceUntil(clock, 'everyone told of the resolve', async () => lines(live.out).length === 5 && (await rows('message.shadowed')).length === 6, 50);

    // The live agent: its file has every message, its rounds are plain rounds.
    assert.deepEqual(lines(live.out).map((l) => [l.to, l.status]),
      [['alice', 'firing'], ['bob', 'firing'], ['alice', 'firing'], ['alice', 'resolved'], ['bob', 'resolved']]);
    const notified = await rows('page.notified');
    assert.deepEqual(notified.filter((r) => r.agentId === 'live').map((r) => r.data.shadow), [undefined, undefined, undefined, undefined, undefined]);
    assert.equal((await rows('message.delivered')).length, 5);
    assert.equal(await count('live', 'delivered'), 5);
    assert.equal(await count('live', 'shadow'), 0);

    // The shadow agents: the same rounds, each recorded and marked, and not a byte written.
    const shadowRounds = notified.filter((r) => r.agentId === 'rehearsal');
    assert.deepEqual(shadowRounds.map((r) => [r.data.person, r.data.step, r.data.shadow]),
      [['alice', 1, true], ['bob', 2, true], ['alice', 2, true], ['alice', 2, true], ['bob', 2, true]]);
    const shadowed = await rows('message.shadowed');
    assert.deepEqual(shadowed.map((r) => [r.agentId, r.data.person ?? '-', r.data.title]).sort(), [
      ['plain', '-', 'DiskFull on db-1'], ['rehearsal', 'alice', 'DiskFull on db-1'], ['rehearsal', 'alice', 'DiskFull on db-1'],
      ['rehearsal', 'alice', 'DiskFull on db-1'], ['rehearsal', 'bob', 'DiskFull on db-1'], ['rehearsal', 'bob', 'DiskFull on db-1']].sort());
    assert.deepEqual(shadowed.filter((r) => r.agentId === 'rehearsal').map((r) => r.data.deliveryId), shadowRounds.map((r) => r.data.deliveryId),
      'each round of the page is one shadowed message, under its deliveryId');
    assert.equal(await count('rehearsal', 'shadow'), 5);
    assert.equal(await count('plain', 'shadow'), 1);
    assert.deepEqual([await count('rehearsal', 'delivered'), await count('plain', 'delivered')], [0, 0]);
    assert.equal(existsSync(rehearsal.out), false, 'the shadow page\'s file channel never wrote');
    assert.equal(existsSync(plain.out), false, 'the shadow agent\'s plain message never reached its file');
    assert.equal((await store.listEvents(all, { agent: 'plain' })).items[0]?.status, 'processed', 'a shadowed message completes its event');

    await dispatcher.drain(1_000);
    await pages.close();
    await Promise.all(set.channels.map((c) => c.close()));
    await logs.close();
    await store.close();
    assert.deepEqual(reports.filter((r) => /error|failed/i.test(r)), []);
  });
});
