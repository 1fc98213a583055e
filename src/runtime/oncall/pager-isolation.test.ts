/**
 * Nothing one channel or one row does stops the pager (issue 33, docs/faults.md), against a real
 * SQLite store and the real file channel, on fake time:
 *
 * - a channel that never answers (black-holed: it took the request and says nothing) holds one send
 *   slot until its deadline, and no page's timer — another agent's page escalates on time while that
 *   send is still under way;
 * - the last look comes after a channel's slow first call: an ack that commits while a Slack DM is
 *   being opened stops the escalation before it is posted;
 * - a page whose stored body is damaged is set aside where the engine meets it: an alert of its
 *   incident opens a new page, an operator's action on it answers why not.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileChannelSchema, slackChannelSchema } from '../../config/schema.js';
import Database from 'better-sqlite3';
import { fakeClock } from '../../core/clock.js';
import { createAgentLog } from '../../logs/agent-log.js';
import { loadOncall } from '../../oncall/load-oncall.js';
import type { OncallConfig } from '../../oncall/oncall-config.js';
import type { Quarantined } from '../../store/oncall-store.js';
import type { Channel, DeliveryResult } from '../channels/channel.js';
import { createFileChannel } from '../channels/file-channel.js';
import { createSlackChannel } from '../channels/slack-channel.js';
import { aliceOnlyYaml, oncallYaml } from '../../../test/support/oncall-yaml.js';
import { startFakeSlack } from '../../../test/support/fake-slack.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { waitFor } from '../../../test/support/wait.js';
import { createPageEngine } from './page-engine.js';
import { createPageLoop } from './page-loop.js';
import { createPageNotifier } from './page-notifier.js';

const T0 = Date.UTC(2026, 0, 1);
const root = mkdtempSync(join(tmpdir(), 'svc-pager-isolation-'));
after(() => rmSync(root, { recursive: true, force: true }));
const shared = sharedSqliteStore('svc-pager-isolation-store-');
after(() => shared.close());
const dispatch = { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 };

let n = 0;
function configIn(dir: string, yaml: string, channels: string[]): OncallConfig {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'oncall.yaml'), yaml);
  const config = loadOncall({ dir, channels: channels.map((id) => ({ id })), sources: [] }, { env: {}, home: dir, nowMs: T0 });
  assert.ok(config !== null);
  return config;
}

const lines = (path: string): Array<{ to: string; deliveryId: string }> => (existsSync(path)
  ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { to: string; deliveryId: string }) : []);

describe('pager isolation: a channel that never answers holds no page\'s timer', () => {
  it('agent a\'s channel is black-holed; agent b\'s page still escalates on time, while a\'s send is under way', async () => {
    n += 1;
    const dir = join(root, `case-${n}`);
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    // A black hole: it takes the message and answers only when the send is given up (its signal aborts).
    const hole: { took: number; given: number } = { took: 0, given: 0 };
    const blackHole: Channel = { id: 'oncall-dm', type: 'webhook', direction: 'outbound', maxAttempts: undefined, ready: () => true,
      receive: () => ({ handled: false, reason: 'outbound-only' }), close: () => Promise.resolve(),
      send: (_m, signal) => new Promise<DeliveryResult>((resolve) => {
        hole.took += 1;
        signal.addEventListener('abort', () => { hole.given += 1; resolve({ ok: false, retryable: true, error: 'aborted' }); }, { once: true });
      }) };
    const outB = join(dir, 'b.jsonl');
    const fileB = createFileChannel(fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path: outB }), { clock });
    const logA = createAgentLog({ path: join(dir, 'a.log'), agentId: 'agent-a', clock });
    const logB = createAgentLog({ path: join(dir, 'b.log'), agentId: 'agent-b', clock });
    // Both agents: step 1 (alice) for a minute, then step 2 (bob).
    const config = configIn(dir, oncallYaml('1m', '1h'), ['oncall-dm']);
    const configs = new Map([['agent-a', config], ['agent-b', config]]);
    const errors: unknown[] = [];
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
      leaseMs: 300_000, sendTimeoutMs: 120_000, onError: (e) => errors.push(e), agents: new Map([
        ['agent-a', { id: 'agent-a', channels: [blackHole], log: logA, dispatch }],
        ['agent-b', { id: 'agent-b', channels: [fileB], log: logB, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs, sender: notifier, onCommitted: () => notifier.wake() });
    const loop = createPageLoop({ store, clock, owner: 'r1', engine, configs, onError: (e) => errors.push(e) });
    const pageA = await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-a', title: 'Disk full on a', severity: 'P1' });
    const pageB = await engine.openFor('agent-b', 'disk/b', 'default', { id: 'event-b', title: 'Disk full on b', severity: 'P1' });
    assert.ok(pageA !== null && pageB !== null);
    await waitFor('a\'s first round in the black hole', () => hole.took === 1);
    await waitFor('b\'s first round in its file', () => lines(outB).length === 1);
    loop.start();
    notifier.start();

    // A minute of fake time in polls; b's step falls due at T0 + 60 s.
    const escalated = async () => (await store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null },
      { kind: 'page.escalated' })).items;
    // Fake time stands at the due instant while the store's threads work in real time: the rounds the
    // loop schedules meanwhile run at once (advanceAsync(0)), so each row's time says when it fired.
    await clock.advanceAsync(60_000);
    const rows = await waitFor('both escalated', async () => {
      await clock.advanceAsync(0);
      const found = await escalated();
      return found.length === 2 ? found : false;
    });
    assert.deepEqual(rows.map((r) => (JSON.parse(r.dataText ?? '{}') as { pageId: string }).pageId).sort(), [pageA.id, pageB.id].sort(),
      'both timers fired, a\'s too: its channel holds its messages, not its timer');
    for (const r of rows) {
      const lagMs = Date.parse(r.ts) - (T0 + 60_000);
      assert.equal(lagMs, 0, 'fired at the instant it fell due');
    }
    await waitFor('b\'s step 2 in its file', async () => {
      await clock.advanceAsync(0);
      return lines(outB).some((l) => l.to === 'bob');
    });
    assert.deepEqual([hole.took, hole.given], [1, 0],
      'and all the while a\'s first round was still in the black hole (its step 2 waits behind it: one page\'s sends to a channel go in order)');
    assert.deepEqual(errors, []);

    // The send's own deadline (120 s here) gives it up, retryable: its slot is free and it is tried again.
    await clock.advanceAsync(61_000);
    await waitFor('a\'s send given up at its deadline', async () => {
      await clock.advanceAsync(0);
      return hole.given === 1;
    });
    await loop.close();
    await notifier.close();
    await fileB.close();
    logA.close();
    logB.close();
  });
});

describe('pager isolation: a channel that never answers fills its own slots, not the sender\'s', () => {
  it('twelve notices to a black hole and twelve to a file: the file gets all of its own while the hole holds two', async () => {
    n += 1;
    const dir = join(root, `case-${n}`);
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const hole = { took: 0 };
    const blackHole: Channel = { id: 'hole', type: 'webhook', direction: 'outbound', maxAttempts: undefined, ready: () => true,
      receive: () => ({ handled: false, reason: 'outbound-only' }), close: () => Promise.resolve(),
      send: (_m, signal) => new Promise<DeliveryResult>((resolve) => {
        hole.took += 1;
        signal.addEventListener('abort', () => resolve({ ok: false, retryable: true, error: 'aborted' }), { once: true });
      }) };
    const out = join(dir, 'dm.jsonl');
    const file = createFileChannel(fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path: out }), { clock });
    const log = createAgentLog({ path: join(dir, 'a.log'), agentId: 'agent-a', clock });
    const config = configIn(dir, aliceOnlyYaml('oncall-dm: alice', ['channel:hole']), ['oncall-dm', 'hole']);
    // Eight slots in all, two per channel: without the per-channel bound the hole would end up with all eight.
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
      maxInFlight: 8, maxPerChannel: 2, agents: new Map([['agent-a', { id: 'agent-a', channels: [blackHole, file], log, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]) });
    for (let i = 0; i < 12; i++) assert.ok(await engine.openFor('agent-a', `disk/${i}`, 'default', { id: `e-${i}`, title: 'Disk full', severity: 'P1' }));
    notifier.start();
    await waitFor('every page\'s notice in the file', async () => {
      await clock.advanceAsync(200);
      return lines(out).length === 12;
    });
    assert.equal(hole.took, 2, 'the black hole holds two sends, its own slots');
    await notifier.close();
    await file.close();
    log.close();
  });
});

describe('pager isolation: the last look comes after a channel\'s slow first call', () => {
  it('an ack that commits while the Slack DM is being opened stops the escalation before chat.postMessage', async () => {
    n += 1;
    const dir = join(root, `case-${n}`);
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const token = 'xoxb-test-0000000000-isolation';
    const slack = await startFakeSlack(token);
    const channel = createSlackChannel(slackChannelSchema.parse({ id: 'slack-dm', type: 'slack', direction: 'outbound', token, user: 'U0ONCALL',
      apiUrl: slack.apiUrl }), { clock });
    const log = createAgentLog({ path: join(dir, 'a.log'), agentId: 'agent-a', clock });
    const config = configIn(dir, aliceOnlyYaml('slack-dm: U0ALICE'), ['slack-dm']);
    let release = (): void => undefined;
    slack.holdOpen = new Promise<void>((resolve) => { release = resolve; });
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
      agents: new Map([['agent-a', { id: 'agent-a', channels: [channel], log, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]), sender: notifier });
    const page = await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-a', title: 'Disk full', severity: 'P1' });
    assert.ok(page !== null);
    await waitFor('conversations.open asked (and held: a slow first call)', () => slack.opensWaiting > 0);
    const acked = await engine.act(page.id, { kind: 'ack', note: null }, { actor: 'cli:alice', by: 'alice', via: 'cli' });
    assert.ok(acked.ok && acked.changed, 'acknowledged: what `svc ack` returns once it committed');
    release();
    const cancelled = await waitFor('page.notice-cancelled', async () => (await store.listAudit({ limit: 10, cursor: null, order: 'asc',
      sinceMs: null, untilMs: null }, { kind: 'page.notice-cancelled' })).items[0]);
    assert.deepEqual(JSON.parse(cancelled.dataText ?? '{}'), { pageId: page.id, deliveryId: `${page.id}.1.alice.slack-dm`, notice: 'escalation',
      pageState: 'acknowledged' });
    await notifier.close();
    assert.deepEqual(slack.calls.map((c) => c.method), ['conversations.open'], 'the DM was opened, and nothing posted in it');
    await channel.close();
    log.close();
    await slack.close();
  });
});

describe('pager isolation: a damaged page is set aside where the engine meets it', () => {
  it('an alert of its incident opens a new page; svc ack of it says it is stored damaged; both counted once', async () => {
    n += 1;
    const dir = join(root, `case-${n}`);
    const clock = fakeClock(T0);
    const store = await shared.fresh();
    const config = configIn(dir, oncallYaml('1h', '1h'), ['oncall-dm']);
    const set: Quarantined[] = [];
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]), onQuarantined: (q) => set.push(q) });
    const first = await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-1', title: 'Disk full', severity: 'P1' });
    assert.ok(first !== null);
    // Cut short by hand, as an operator with the sqlite3 shell might.
    const db = new Database(shared.path);
    try {
      db.prepare('UPDATE pages SET body = substr(body, 1, 30) WHERE id = ?').run(first.id);
    } finally {
      db.close();
    }
    const acked = await engine.act(first.id, { kind: 'ack', note: null }, { actor: 'cli:alice', by: 'alice', via: 'cli' });
    assert.deepEqual(acked, { ok: false, reason: `page ${first.id} is stored damaged (body is not JSON (30 characters)); it was set aside` });
    const second = await engine.openFor('agent-a', 'disk/a', 'default', { id: 'event-2', title: 'Disk full', severity: 'P1' });
    assert.ok(second !== null && second.id !== first.id, 'the incident pages again, on a page of its own');
    assert.deepEqual(set.map((q) => [q.kind, q.id]), [['page', first.id]], 'set aside once');
    const rows = (await store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind: 'page.quarantined' })).items;
    assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? '{}') as unknown), [{ pageId: first.id, reason: 'body is not JSON (30 characters)' }]);
  });
});
