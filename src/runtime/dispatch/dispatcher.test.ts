import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeClock, systemClock } from '../core/clock.js';
import type { AgentLog } from '../logs/agent-log.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import type { EventRecord } from '../store/store.js';
import type { Channel, DeliveryResult, OutboundMessage } from './channels/channel.js';
import type { DispatchAgent, IntakeGate } from './dispatcher.js';
import { createDispatcher } from './dispatcher.js';
import { createRulesProvider } from './providers/rules-provider.js';
import { createSourceStats } from '../metrics/source-stats.js';

const ALERT = {
  version: '4', groupKey: 'g', truncatedAlerts: 0, status: 'firing', receiver: 'r', groupLabels: {}, commonLabels: {},
  commonAnnotations: {}, externalURL: 'http://am',
  alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', instance: 'db-1', severity: 'warning' },
    annotations: { summary: 'disk 95% full' }, startsAt: '2026-11-21T00:00:00Z', endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prom', fingerprint: 'f1' }],
};

/** A channel that answers from a script of results, or hangs until aborted when the script says 'hang'. */
function scriptedChannel(script: Array<DeliveryResult | 'hang'>): Channel & { sent: OutboundMessage[] } {
  const sent: OutboundMessage[] = [];
  return {
    id: 'test', type: 'file', direction: 'outbound', maxAttempts: undefined, sent,
    send(message, signal) {
      sent.push(message);
      const next = script.shift() ?? { ok: true, detail: {} };
      if (next !== 'hang') return Promise.resolve(next);
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ ok: false, retryable: true, error: 'aborted' })));
    },
    receive: () => ({ handled: false, reason: 'outbound-only' }),
    ready: () => true,
    close: () => Promise.resolve(),
  };
}

const silentLog: AgentLog = { write: () => undefined, close: () => undefined };

describe('dispatcher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dispatch-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  async function setup(script: Array<DeliveryResult | 'hang'>, payload: unknown = ALERT, gate?: IntakeGate) {
    const clock = fakeClock(Date.parse('2026-11-21T00:00:00Z'));
    const store = openSqliteStore({ path: join(dir, `d${n++}.db`), clock });
    const channel = scriptedChannel(script);
    const sleeps: number[] = [];
    const agent: DispatchAgent = { id: 'a1', provider: createRulesProvider(), channels: [channel], log: silentLog,
      dispatch: { maxAttempts: 3, initialBackoffMs: 500, maxBackoffMs: 4000, concurrency: 2 } };
    const errors: unknown[] = [];
    const dispatcher = createDispatcher({ store, agents: [agent], stats: createSourceStats(),
      clock: { ...systemClock, now: () => clock.now(), sleep: (ms) => { sleeps.push(ms); return Promise.resolve(); } }, onError: (e) => errors.push(e), ...(gate ? { gate } : {}) });
    const ingested = await store.ingestEvent({ agentId: 'a1', sourceId: 's1', kind: 'alert', fingerprint: null, payload }, 1000);
    assert.equal(ingested.outcome, 'accepted');
    const event = (ingested as { event: EventRecord }).event;
    return { store, channel, sleeps, dispatcher, event, errors };
  }

  async function settle(dispatcher: { pending(): number }): Promise<void> {
    while (dispatcher.pending() > 0) await new Promise((r) => setTimeout(r, 5));
  }

  it('retries a retryable failure with exponential back-off, then delivers', async () => {
    const s = await setup([{ ok: false, retryable: true, error: 'boom' }, { ok: false, retryable: true, error: 'boom' }]);
    s.dispatcher.enqueue(s.event);
    await settle(s.dispatcher);
    assert.deepEqual(s.sleeps, [500, 1000]);
    assert.equal(s.channel.sent.length, 3);
    assert.equal(s.channel.sent[0]?.severity, 'P2');
    const events = await s.store.listEvents({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
    assert.equal(events.items[0]?.status, 'processed');
    const audit = await s.store.listAudit({ limit: 50, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
    const delivered = audit.items.find((r) => r.kind === 'message.delivered');
    assert.equal(delivered?.data.attempts, 3);
    assert.deepEqual(s.errors, []);
  });

  it("honours the server's Retry-After, capped at maxBackoffMs", async () => {
    const s = await setup([{ ok: false, retryable: true, error: '429', retryAfterMs: 2500 },
      { ok: false, retryable: true, error: '429', retryAfterMs: 60_000 }]);
    s.dispatcher.enqueue(s.event);
    await settle(s.dispatcher);
    assert.deepEqual(s.sleeps, [2500, 4000]);
  });

  it('dead-letters after maxAttempts with reason delivery-failed', async () => {
    const fail: DeliveryResult = { ok: false, retryable: true, error: 'down' };
    const s = await setup([fail, fail, fail]);
    s.dispatcher.enqueue(s.event);
    await settle(s.dispatcher);
    const dlq = await s.store.listDeadLetters({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
    assert.equal(dlq.items.length, 1);
    assert.equal(dlq.items[0]?.reason, 'delivery-failed');
    assert.equal(dlq.items[0]?.attempts, 3);
    assert.equal(dlq.items[0]?.error, 'channel test: down');
    assert.deepEqual(dlq.items[0]?.payload, ALERT);
  });

  it('an invalid payload is dead-lettered at once as invalid-payload', async () => {
    const s = await setup([], { hello: 'world' });
    s.dispatcher.enqueue(s.event);
    await settle(s.dispatcher);
    const dlq = await s.store.listDeadLetters({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
    assert.equal(dlq.items[0]?.reason, 'invalid-payload');
    assert.equal(dlq.items[0]?.attempts, 1);
    assert.equal(s.channel.sent.length, 0);
  });

  it('drain leaves an interrupted event pending for the next start, never dead-lettered', async () => {
    const s = await setup(['hang']);
    s.dispatcher.enqueue(s.event);
    await new Promise((r) => setTimeout(r, 20));
    await s.dispatcher.drain(30);
    const pending = await s.store.pendingEvents();
    assert.deepEqual(pending.map((e) => e.id), [s.event.id]);
    const dlq = await s.store.listDeadLetters({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
    assert.equal(dlq.items.length, 0);
  });

  /** A gate the test opens by hand; whenOpen rejects when its signal aborts, as the real one does. */
  function manualGate(): IntakeGate & { open(): void } {
    let release: () => void = () => undefined;
    const opened = new Promise<void>((r) => { release = r; });
    return {
      open: () => release(),
      whenOpen: (signal) => new Promise<void>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        void opened.then(resolve);
      }),
    };
  }

  it('takes no event while the back-pressure gate is closed, and resumes when it opens', async () => {
    const gate = manualGate();
    const s = await setup([], ALERT, gate);
    s.dispatcher.enqueue(s.event);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(s.channel.sent.length, 0);
    assert.equal((await s.store.pendingEvents())[0]?.status, 'accepted');
    gate.open();
    await settle(s.dispatcher);
    assert.equal(s.channel.sent.length, 1);
    assert.deepEqual(await s.store.pendingEvents(), []);
  });

  it('a drain while the gate is closed returns at once and leaves the event accepted', async () => {
    const s = await setup([], ALERT, manualGate());
    s.dispatcher.enqueue(s.event);
    await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await s.dispatcher.drain(60_000);
    assert.ok(Date.now() - started < 5_000, 'drain waited for the drain timeout');
    assert.equal((await s.store.pendingEvents())[0]?.status, 'accepted');
    assert.equal(s.channel.sent.length, 0);
  });
});
