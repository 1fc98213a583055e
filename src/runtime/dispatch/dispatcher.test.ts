import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { advanceUntil, waitFor } from '../../../test/support/wait.js';
import type { FakeClock } from '../../core/clock.js';
import { fakeClock } from '../../core/clock.js';
import type { LogFields, LogLevel } from '../../core/log.js';
import type { AgentLog } from '../../logs/agent-log.js';
import { createSourceStats } from '../../metrics/source-stats.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { EventRecord, PageQuery, Store } from '../../store/store.js';
import type { Channel, DeliveryResult, OutboundMessage } from '../channels/channel.js';
import { createRulesProvider } from '../providers/rules-provider.js';
import type { Dispatcher, IntakeGate } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import type { DispatchAgent } from './handle-event.js';

const T0 = Date.parse('2026-11-21T00:00:00Z');
const LEASE_MS = 3_000;
const alert = (n: number): string => JSON.stringify({
  version: '4', groupKey: `g${n}`, truncatedAlerts: 0, status: 'firing', receiver: 'r', groupLabels: {}, commonLabels: {},
  commonAnnotations: {}, externalURL: 'http://am',
  alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: `db-${n}`, severity: 'warning' },
    annotations: { summary: 'disk 95% full' }, startsAt: '2026-11-21T00:00:00Z', endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prom', fingerprint: `f${n}` }],
});
const all = (over: Partial<PageQuery> = {}): PageQuery => ({ limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null, ...over });

type Step = DeliveryResult | 'hang' | { wait: Promise<void> };

/** A channel answering from a script; 'hang' waits for the abort, `{wait}` for the test to let it go. */
function scriptedChannel(script: Step[] = []): Channel & { sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    id: 'dm', type: 'file', direction: 'outbound', maxAttempts: undefined, sent,
    async send(message, signal) {
      sent.push(message);
      const next = script.shift() ?? { ok: true, detail: {} };
      if (next === 'hang') {
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, retryable: true, error: 'aborted' })));
      }
      if ('wait' in next) {
        await next.wait;
        return { ok: true, detail: {} };
      }
      return next;
    },
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => true,
    close: () => Promise.resolve(),
  };
}

function recordingLog(): AgentLog & { records: Array<{ level: LogLevel; event: string; fields: LogFields }> } {
  const records: Array<{ level: LogLevel; event: string; fields: LogFields }> = [];
  return { records, write: (level, event, fields = {}) => { records.push({ level, event, fields }); }, close: () => undefined };
}

describe('dispatcher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dispatch-'));
  const stores: Store[] = [];
  const dispatchers: Dispatcher[] = [];
  const errors: unknown[] = [];
  after(async () => {
    assert.deepEqual(errors, [], 'no dispatcher reported an unexpected error');
    for (const d of dispatchers) await d.drain(0);
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;

  async function setup(opts: { script?: Step[]; concurrency?: number; maxAttempts?: number; gate?: IntakeGate; clock?: FakeClock;
    store?: Store; owner?: string; claimAhead?: number } = {}) {
    const clock = opts.clock ?? fakeClock(T0);
    const store = opts.store ?? await openSqliteStore({ path: join(dir, `d${n++}.db`) });
    if (!opts.store) stores.push(store);
    const channel = scriptedChannel(opts.script);
    const log = recordingLog();
    const agent: DispatchAgent = { id: 'a1', provider: createRulesProvider(), channels: [channel], log,
      dispatch: { maxAttempts: opts.maxAttempts ?? 3, initialBackoffMs: 500, maxBackoffMs: 4000, concurrency: opts.concurrency ?? 2 } };
    const outcomes: string[] = [];
    const latencies: number[] = [];
    const stats = createSourceStats();
    const dispatcher = createDispatcher({ store, agents: [agent], stats, clock, owner: opts.owner ?? 'replica-t/run-1', leaseMs: LEASE_MS,
      metrics: { channelOutcome: (_a, _c, outcome) => outcomes.push(outcome), latency: (_a, s) => latencies.push(s) },
      ...(opts.claimAhead === undefined ? {} : { claimAhead: opts.claimAhead }),
      ...(opts.gate ? { gate: opts.gate } : {}), onError: (e) => { errors.push(e); } });
    dispatchers.push(dispatcher);
    const ingest = async (payloadText = alert(0)): Promise<EventRecord> => {
      const r = await store.ingestEvent({ agentId: 'a1', sourceId: 's1', kind: 'alert', fingerprint: null, payloadText }, 1000, clock.now());
      assert.equal(r.outcome, 'accepted');
      return (r as { event: EventRecord }).event;
    };
    const statuses = async (): Promise<string[]> => (await store.listEvents(all(), {})).items.map((e) => e.status);
    return { clock, store, channel, log, dispatcher, outcomes, latencies, stats, ingest, statuses };
  }

  it('delivers every accepted event once, with a stable deliveryId and its own message.delivered row', async () => {
    const s = await setup();
    const events = [];
    for (let i = 0; i < 5; i++) events.push(await s.ingest(alert(i)));
    s.dispatcher.start();
    await waitFor('all processed', async () => (await s.statuses()).every((x) => x === 'processed'));
    assert.deepEqual(s.channel.sent.map((m) => m.deliveryId).sort(), events.map((e) => `${e.id}.dm`).sort());
    assert.deepEqual(s.channel.sent.map((m) => [m.attempt, m.triagedBy]), events.map(() => [1, 'rules']));
    const rows = (await s.store.listAudit(all(), { kind: 'message.delivered' })).items.map((r) => JSON.parse(r.dataText ?? '{}') as Record<string, unknown>);
    assert.deepEqual(rows.map((r) => [r.deliveryId, r.attempt, r.tries]).sort(), events.map((e) => [`${e.id}.dm`, 1, 1]).sort());
    assert.deepEqual(s.outcomes, ['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
    assert.equal(s.latencies.length, 5);
    assert.equal(s.stats.get('a1', 's1').processed, 5);
  });

  it('retries a failing delivery after the back-off (fake time), then delivers', async () => {
    const s = await setup({ script: [{ ok: false, retryable: true, error: 'busy' }, { ok: false, retryable: true, error: 'busy' }] });
    await s.ingest();
    s.dispatcher.start();
    await waitFor('the first attempt', () => s.channel.sent.length === 1);
    await s.clock.advanceAsync(499);
    assert.equal(s.channel.sent.length, 1, 'the back-off is 500 ms');
    await advanceUntil(s.clock, 'the third attempt', () => s.channel.sent.length === 3);
    await waitFor('processed', async () => (await s.statuses())[0] === 'processed');
    const [row] = (await s.store.listAudit(all(), { kind: 'message.delivered' })).items;
    assert.equal((JSON.parse(row?.dataText ?? '{}') as { tries: number }).tries, 3);
    assert.deepEqual(s.outcomes, ['failed', 'failed', 'delivered']);
  });

  it('dead-letters what keeps failing (delivery-failed) or is refused (delivery-rejected), with the payload', async () => {
    const s = await setup({ concurrency: 1, script: [
      { ok: false, retryable: true, error: 'down' }, { ok: false, retryable: true, error: 'down' }, { ok: false, retryable: true, error: 'down' },
      { ok: false, retryable: false, error: 'no such user' }] });
    await s.ingest(alert(1));
    await s.ingest(alert(2));
    s.dispatcher.start();
    await advanceUntil(s.clock, 'both dead-lettered', async () => (await s.statuses()).every((x) => x === 'dead-lettered'));
    const letters = (await s.store.listDeadLetters(all(), {})).items;
    assert.deepEqual(letters.map((l) => [l.reason, l.attempts, l.error]),
      [['delivery-failed', 3, 'channel dm: down'], ['delivery-rejected', 1, 'channel dm: no such user']]);
    assert.equal(letters[0]?.payloadText, alert(1));
    assert.equal(s.stats.get('a1', 's1').dlq, 2);
  });

  it('an event the provider cannot read is dead-lettered as invalid-payload, one whose stored text is damaged as corrupt-event', async () => {
    const s = await setup();
    await s.ingest('{"hello":"world"}');
    await s.ingest('{"half": ');
    s.dispatcher.start();
    await waitFor('both dead-lettered', async () => (await s.statuses()).every((x) => x === 'dead-lettered'));
    assert.deepEqual((await s.store.listDeadLetters(all(), {})).items.map((l) => l.reason).sort(), ['corrupt-event', 'invalid-payload']);
    assert.equal(s.channel.sent.length, 0);
  });

  it('holds only the batch in hand: a long backlog stays in the store', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const s = await setup({ concurrency: 2, claimAhead: 3, script: [{ wait: gate }, { wait: gate }] });
    for (let i = 0; i < 60; i++) await s.ingest(alert(i));
    s.dispatcher.start();
    await waitFor('two deliveries under way', () => s.channel.sent.length === 2);
    await waitFor('the lane topped up', () => s.dispatcher.inHand() === 6);
    const processing = (await s.statuses()).filter((x) => x === 'processing').length;
    assert.equal(processing, 6, 'concurrency × claimAhead claimed; the other 54 wait in the store');
    release();
    await waitFor('all processed', async () => (await s.statuses()).every((x) => x === 'processed'));
    assert.equal(s.dispatcher.inHand(), 0);
  });

  it('a lease that runs out is claimed again without a restart; the old holder is fenced off', async () => {
    const store = await openSqliteStore({ path: join(dir, `d${n++}.db`) });
    stores.push(store);
    let releaseOld!: () => void;
    const stuck = new Promise<void>((r) => { releaseOld = r; });
    // The old holder's clock never moves: its heartbeat never fires, as in a hung process.
    const old = await setup({ store, clock: fakeClock(T0), owner: 'replica-a/run-1', script: [{ wait: stuck }] });
    const event = await old.ingest();
    old.dispatcher.start();
    await waitFor('the old holder is delivering', () => old.channel.sent.length === 1);
    const fresh = await setup({ store, clock: fakeClock(T0), owner: 'replica-b/run-1' });
    fresh.dispatcher.start();
    await advanceUntil(fresh.clock, 'the new holder delivered', () => fresh.channel.sent.length === 1);
    assert.deepEqual([fresh.channel.sent[0]?.deliveryId, fresh.channel.sent[0]?.attempt], [`${event.id}.dm`, 2]);
    await waitFor('processed', async () => (await fresh.statuses())[0] === 'processed');
    releaseOld();
    await waitFor('the old holder heard it lost the claim', () => old.log.records.some((r) => r.event === 'dispatch.claim-lost'));
    const rows = (await store.listAudit(all(), { kind: 'message.delivered' })).items.map((r) => JSON.parse(r.dataText ?? '{}') as { attempt: number });
    assert.deepEqual(rows.map((r) => r.attempt), [2], 'only the holder of the claim wrote its outcome');
  });

  it('a heartbeat keeps a slow delivery claimed past its first lease', async () => {
    const store = await openSqliteStore({ path: join(dir, `d${n++}.db`) });
    stores.push(store);
    const clock = fakeClock(T0);
    let finish!: () => void;
    const slow = new Promise<void>((r) => { finish = r; });
    const holder = await setup({ store, clock, owner: 'replica-a/run-1', script: [{ wait: slow }] });
    await holder.ingest();
    holder.dispatcher.start();
    await waitFor('delivering', () => holder.channel.sent.length === 1);
    const other = await setup({ store, clock, owner: 'replica-b/run-1' });
    other.dispatcher.start();
    await advanceUntil(clock, 'three leases have passed', () => clock.now() >= T0 + 3 * LEASE_MS, 250);
    finish();
    await waitFor('processed', async () => (await holder.statuses())[0] === 'processed');
    assert.equal(other.channel.sent.length, 0, 'the other dispatcher polled all along and never got the event');
    const [row] = (await store.listAudit(all(), { kind: 'message.delivered' })).items;
    assert.equal((JSON.parse(row?.dataText ?? '{}') as { attempt: number }).attempt, 1);
  });

  it('drain gives back what was not finished; the next run delivers it as a later claim', async () => {
    const store = await openSqliteStore({ path: join(dir, `d${n++}.db`) });
    stores.push(store);
    const first = await setup({ store, concurrency: 1, script: ['hang'] });
    const a = await first.ingest(alert(1));
    const b = await first.ingest(alert(2));
    first.dispatcher.start();
    await waitFor('the first delivery hangs', () => first.channel.sent.length === 1);
    let drained = false;
    const draining = first.dispatcher.drain(10_000).then(() => { drained = true; });
    await first.clock.advanceAsync(9_000);
    assert.equal(drained, false, 'the drain waits for the hung delivery until its timeout');
    await advanceUntil(first.clock, 'the drain timed out and gave the event back', () => drained, 1_000);
    await draining;
    assert.deepEqual(await first.statuses(), ['accepted', 'accepted']);
    assert.equal((await store.listDeadLetters(all(), {})).items.length, 0);
    assert.ok(first.log.records.some((r) => r.event === 'dispatch.interrupted' && r.fields.eventId === a.id));
    const second = await setup({ store, owner: 'replica-t/run-2' });
    second.dispatcher.start();
    await waitFor('both processed', async () => (await second.statuses()).every((x) => x === 'processed'));
    const attempts = new Map(second.channel.sent.map((m) => [m.eventId, m.attempt]));
    assert.deepEqual([attempts.get(a.id), attempts.get(b.id)], [2, 2], 'both had been claimed once before');
  });

  it('starts nothing while the back-pressure gate is closed, and resumes when it opens', async () => {
    let open = false;
    let waits = 0;
    let opened!: () => void;
    const whenOpened = new Promise<void>((r) => { opened = r; });
    const gate: IntakeGate = { active: () => !open, whenOpen: () => { waits += 1; return whenOpened; } };
    const s = await setup({ gate });
    await s.ingest();
    s.dispatcher.start();
    await waitFor('the dispatcher waits at the gate', () => waits === 1);
    assert.deepEqual(await s.statuses(), ['accepted']);
    open = true;
    opened();
    await waitFor('processed', async () => (await s.statuses())[0] === 'processed');
    assert.equal(s.channel.sent.length, 1);
  });
});
