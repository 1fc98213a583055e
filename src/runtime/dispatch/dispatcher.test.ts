import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { advanceUntil, advanceWhenSettled, trackedIo, waitFor } from '../../../test/support/wait.js';
import type { FakeClock } from '../../core/clock.js';
import { fakeClock } from '../../core/clock.js';
import type { LogFields, LogLevel } from '../../core/log.js';
import type { AgentLog } from '../../logs/agent-log.js';
import { createSourceStats } from '../../metrics/source-stats.js';
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
function scriptedChannel(script: Step[] = [], id = 'dm'): Channel & { sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    id, type: 'file', direction: 'outbound', maxAttempts: undefined, sent,
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
  // One store for the file, emptied per test (test/support/shared-store.ts): a test's dispatchers are
  // drained when it ends, so none is left to claim the next test's events.
  const shared = sharedSqliteStore('svc-dispatch-');
  const dispatchers: Dispatcher[] = [];
  const errors: unknown[] = [];
  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.drain(0);
  });
  after(async () => {
    assert.deepEqual(errors, [], 'no dispatcher reported an unexpected error');
    await shared.close();
  });

  async function setup(opts: { script?: Step[]; concurrency?: number; maxAttempts?: number; gate?: IntakeGate; clock?: FakeClock;
    store?: Store; owner?: string; claimAhead?: number; windowMs?: number; more?: Channel[] } = {}) {
    const clock = opts.clock ?? fakeClock(T0);
    const store = opts.store ?? await shared.fresh();
    // The dispatcher's store calls are counted, so that fake time can wait for them (advanceWhenSettled).
    const tracked = trackedIo(store);
    const channel = scriptedChannel(opts.script);
    const log = recordingLog();
    const agent: DispatchAgent = { id: 'a1', provider: createRulesProvider(), channels: [channel, ...(opts.more ?? [])], log,
      dispatch: { maxAttempts: opts.maxAttempts ?? 3, initialBackoffMs: 500, maxBackoffMs: 4000, concurrency: opts.concurrency ?? 2 } };
    const outcomes: string[] = [];
    const latencies: number[] = [];
    const stats = createSourceStats();
    const dispatcher = createDispatcher({ store: tracked.io, agents: [agent], stats, clock, owner: opts.owner ?? 'replica-t/run-1', leaseMs: LEASE_MS,
      deliveryWindowMs: opts.windowMs ?? 0, metrics: { channelOutcome: (_a, _c, outcome) => outcomes.push(outcome), latency: (_a, s) => latencies.push(s) },
      ...(opts.claimAhead === undefined ? {} : { claimAhead: opts.claimAhead }),
      ...(opts.gate ? { gate: opts.gate } : {}), onError: (e) => { errors.push(e); } });
    dispatchers.push(dispatcher);
    const ingest = async (payloadText = alert(0)): Promise<EventRecord> => {
      const r = await store.ingestEvent({ agentId: 'a1', sourceId: 's1', kind: 'alert', fingerprint: null, payloadText }, clock.now());
      assert.equal(r.outcome, 'accepted');
      return (r as { event: EventRecord }).event;
    };
    const statuses = async (): Promise<string[]> => (await store.listEvents(all(), {})).items.map((e) => e.status);
    return { clock, store, busy: tracked.busy, agent, channel, log, dispatcher, outcomes, latencies, stats, ingest, statuses };
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
    const store = await shared.fresh();
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
    const store = await shared.fresh();
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
    const store = await shared.fresh();
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

  it('replaceAgent: the next event uses the new build; the promise settles when the event under way with the old one has finished', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((r) => { finish = r; });
    const s = await setup({ concurrency: 1, script: [{ wait: slow }] });
    const a = await s.ingest(alert(1));
    s.dispatcher.start();
    await waitFor('the first event is being sent', () => s.channel.sent.length === 1);
    const rebuilt = scriptedChannel([], 'dm');
    const agent: DispatchAgent = { id: 'a1', provider: createRulesProvider(), channels: [rebuilt], log: s.log,
      dispatch: { maxAttempts: 3, initialBackoffMs: 500, maxBackoffMs: 4000, concurrency: 1 } };
    let settled = false;
    const replaced = s.dispatcher.replaceAgent(agent).then(() => { settled = true; });
    const b = await s.ingest(alert(2));
    s.dispatcher.wake('a1');
    // The lane runs one event at a time: the second waits behind the first, still in its old channel.
    await s.clock.advanceAsync(0);
    assert.equal(settled, false, 'the old build still carries the first event');
    finish();
    await replaced;
    await waitFor('the second event sent through the new build', () => rebuilt.sent.length === 1);
    assert.deepEqual([s.channel.sent.map((m) => m.eventId), rebuilt.sent.map((m) => m.eventId)], [[a.id], [b.id]]);
    await waitFor('both processed', async () => (await s.statuses()).every((x) => x === 'processed'));
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

  it('a page decision still under way (its first round sending) when the drain times out: the event is given back, not waited for', async () => {
    const clock = fakeClock(T0);
    const s = await setup({ clock });
    let decisions = 0;
    s.agent.pages = { onDecision: () => {
      decisions += 1;
      return new Promise<boolean>(() => undefined); // a send that does not end
    } };
    await s.ingest();
    s.dispatcher.start();
    await waitFor('the page engine has the decision', () => decisions === 1);
    let done = false;
    const draining = s.dispatcher.drain(1_000).then(() => { done = true; });
    await advanceUntil(clock, 'drained', () => done, 100);
    await draining;
    assert.deepEqual(await s.statuses(), ['accepted'], 'given back, to be claimed again');
    assert.deepEqual(s.log.records.filter((r) => r.event === 'dispatch.interrupted').map((r) => r.fields.outcome), ['given-back']);
  });

  it('a heartbeat\'s delivery is triaged by the offline rules, never by the agent\'s model; other events are', async () => {
    const s = await setup();
    const asked: string[] = [];
    const rules = createRulesProvider();
    s.agent.provider = { name: 'anthropic', triage: (event, signal) => { asked.push(event.id); return rules.triage(event, signal); } };
    const decided: Array<[string, string]> = [];
    s.agent.pages = {
      heartbeatOnly: (e) => e.sourceId === 's1' && JSON.stringify(e.payload).includes('"instance":"db-0"'),
      onDecision: (e, d) => { decided.push([e.id, d.triagedBy]); return Promise.resolve(true); },
    };
    const watchdog = await s.ingest(alert(0));
    const real = await s.ingest(alert(1));
    s.dispatcher.start();
    await waitFor('both decided', () => decided.length === 2);
    assert.deepEqual(asked, [real.id], 'the model was asked about the real alert only');
    assert.deepEqual(new Map(decided), new Map([[watchdog.id, 'rules'], [real.id, 'rules']]));
    // The decisions' audit rows commit with the events' completions, which may land after onDecision returned.
    const decisionRows = async (): Promise<Array<Record<string, unknown>>> => (await s.store.listAudit(all(), { kind: 'triage.decision' })).items
      .map((r) => JSON.parse(r.dataText ?? '{}') as Record<string, unknown>);
    await waitFor('both decisions audited', async () => (await decisionRows()).length === 2);
    const rows = await decisionRows();
    assert.deepEqual(new Map(rows.map((r) => [r.eventId, r.provider])), new Map([[watchdog.id, 'anthropic'], [real.id, 'anthropic']]));
  });

  describe('a pager\'s patience (store.deliveryWindow)', () => {
    const WINDOW_MS = 30 * 60_000;
    const audited = async (store: Store, kind: string): Promise<Array<Record<string, unknown>>> =>
      (await store.listAudit(all(), { kind })).items.map((r) => JSON.parse(r.dataText ?? '{}') as Record<string, unknown>);
    /** Drains a dispatcher on fake time (a round may be sleeping between quick tries). */
    async function stop(d: Dispatcher, clock: FakeClock, busy: () => boolean): Promise<void> {
      let done = false;
      const draining = d.drain(0).then(() => { done = true; });
      await advanceWhenSettled(clock, busy, 'drained', () => done, 100);
      await draining;
    }
    /** A channel that answers 503 until `upAtMs` on `clock`, then delivers. */
    function outageChannel(id: string, clock: FakeClock, upAtMs: number): Channel & { sent: OutboundMessage[] } {
      const ch = scriptedChannel([], id);
      return { ...ch, send: (m) => {
        ch.sent.push(m);
        return Promise.resolve(clock.now() < upAtMs ? { ok: false, retryable: true, error: 'HTTP 503' } : { ok: true, detail: {} });
      } };
    }

    it('a 10-minute channel outage ends in delivery, not a dead letter, and the event waits in the store, unclaimed', async () => {
      const clock = fakeClock(T0);
      const down = outageChannel('chat', clock, T0 + 10 * 60_000);
      // The scripted 'dm' channel delivers at once; 'chat' is down for ten minutes.
      const s = await setup({ clock, windowMs: WINDOW_MS, more: [down] });
      const event = await s.ingest();
      s.dispatcher.start();
      await advanceWhenSettled(clock, s.busy, 'the first round ended', async () => (await s.store.listEvents(all(), {})).items[0]?.status === 'accepted'
        && s.log.records.some((r) => r.event === 'dispatch.retry-later'), 100);
      assert.equal(s.dispatcher.inHand(), 0, 'between rounds nothing holds the event: it waits in the store for its due time');
      await advanceWhenSettled(clock, s.busy, 'processed', async () => (await s.statuses())[0] === 'processed', 1_000, 60_000);
      assert.equal((await s.store.listDeadLetters(all(), {})).items.length, 0);
      assert.ok(clock.now() >= T0 + 10 * 60_000);
      assert.equal(s.channel.sent.length, 1, 'the channel that delivered in the first round was never sent to again');
      assert.equal(down.sent.at(-1)?.deliveryId, `${event.id}.chat`);
      const failed = await audited(s.store, 'message.failed');
      assert.equal(failed.length, down.sent.length - 1, 'every failed try has its audit row');
      assert.ok(failed.every((r) => r.channelId === 'chat' && r.error === 'HTTP 503' && r.retryable === true));
      const delivered = await audited(s.store, 'message.delivered');
      assert.deepEqual(delivered.map((r) => r.channelId).sort(), ['chat', 'dm']);
      assert.equal((await audited(s.store, 'triage.decision')).length, 1, 'later rounds send the first triage again');
      const rounds = s.log.records.filter((r) => r.event === 'dispatch.retry-later').length;
      assert.ok(rounds >= 3 && rounds <= 12, `rounds back off (${rounds})`);
      await stop(s.dispatcher, clock, s.busy);
    });

    it('one channel failing beside one delivering: the delivering one delivers exactly once, the failing one is retried', async () => {
      const clock = fakeClock(T0);
      const down = outageChannel('chat', clock, Infinity);
      const s = await setup({ clock, windowMs: WINDOW_MS, more: [down] });
      await s.ingest();
      s.dispatcher.start();
      await advanceWhenSettled(clock, s.busy, 'three rounds on the failing channel', () => s.log.records.filter((r) => r.event === 'dispatch.retry-later').length >= 3, 1_000, 60_000);
      assert.equal(s.channel.sent.length, 1);
      assert.equal(down.sent.length, 3 * 3 + 0, 'three rounds of maxAttempts (3) tries each');
      assert.deepEqual(new Set(down.sent.map((m) => m.attempt)), new Set([1, 2, 3]), 'each round is a later claim');
      const failed = await audited(s.store, 'message.failed');
      assert.deepEqual(failed.map((r) => [r.attempt, r.tries]), [[1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [2, 3], [3, 1], [3, 2], [3, 3]]);
      assert.deepEqual((await audited(s.store, 'message.delivered')).map((r) => r.channelId), ['dm']);
      assert.deepEqual(await s.statuses(), ['accepted'], 'waiting for its next round, not dead-lettered');
      await stop(s.dispatcher, clock, s.busy);
    });

    it('after the window, a dead letter with the failing channel\'s reason; the channel that delivered is kept for a replay', async () => {
      const clock = fakeClock(T0);
      const down = outageChannel('chat', clock, Infinity);
      const s = await setup({ clock, windowMs: WINDOW_MS, more: [down] });
      await s.ingest();
      s.dispatcher.start();
      await advanceWhenSettled(clock, s.busy, 'dead-lettered', async () => (await s.statuses())[0] === 'dead-lettered', 1_000, 120_000);
      assert.ok(!s.log.records.some((r) => r.event === 'dispatch.claim-lost'), 'every round kept its claim');
      const [letter] = (await s.store.listDeadLetters(all(), {})).items;
      assert.equal(letter?.reason, 'delivery-failed');
      assert.equal(letter?.error, 'channel chat: HTTP 503');
      assert.equal(letter?.attempts, down.sent.length, 'attempts counts every try of every round');
      assert.ok(clock.now() >= T0 + WINDOW_MS, 'not before the window is over');
      assert.ok(clock.now() < T0 + WINDOW_MS + 60_000, 'the last round falls on the window\'s end');
      assert.equal(s.channel.sent.length, 1);
      // A replay tries the failing channel again, never the one that delivered.
      await s.store.replayDeadLetters({ ids: [letter?.id ?? ''] }, 'test', clock.now());
      const before = down.sent.length;
      await advanceWhenSettled(clock, s.busy, 'the replay tried the failing channel', () => down.sent.length > before, 1_000);
      assert.equal(s.channel.sent.length, 1);
      await stop(s.dispatcher, clock, s.busy);
    });
  });
});
