/**
 * The page notifier against a real SQLite store and the real file channel, on fake time (contract
 * §17.4): an acknowledgement that commits after a notification was claimed but before it reaches its
 * channel stops it — the race the claim alone leaves open — with a `page.notice-cancelled` row as the
 * evidence; a resolution's notices still go. A channel that is down for longer than the quick tries
 * gets the page notice once it is back, within `store.deliveryWindow`, like an event's message.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { emailChannelSchema, fileChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import { createAgentLog } from '../../logs/agent-log.js';
import { loadOncall } from '../../oncall/load-oncall.js';
import type { Policy } from '../../oncall/oncall-config.js';
import type { PageRecord } from '../../oncall/page.js';
import type { Actor, ResolveTargets } from '../../oncall/page-plan.js';
import { planAck, planOpen, planResolve, planTimer } from '../../oncall/page-plan.js';
import { isDamagedPage } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import type { OutboundMessage, WireGate } from '../channels/channel.js';
import { createEmailChannel } from '../channels/email-channel.js';
import { createFileChannel } from '../channels/file-channel.js';
import { oncallYaml } from '../../../test/support/oncall-yaml.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { mailHeaders, mailText, startSmtpServer } from '../../../test/support/smtp.js';
import { waitFor } from '../../../test/support/wait.js';
import { createPageEngine } from './page-engine.js';
import type { OutboxPass } from './page-notifier.js';
import { createPageNotifier } from './page-notifier.js';

const T0 = Date.UTC(2026, 0, 1);
const root = mkdtempSync(join(tmpdir(), 'svc-page-notifier-'));
after(() => rmSync(root, { recursive: true, force: true }));
// One store for the file, emptied per case (test/support/shared-store.ts); each case's files are its own.
const shared = sharedSqliteStore('svc-page-notifier-store-');
after(() => shared.close());

const policy: Policy = { id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [],
  steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: 60_000 }] };
const resolve: ResolveTargets = (targets) => ({ nobodyOnCall: [], recipients: targets.map((t) => ({ person: t.id, channel: 'oncall-dm', to: t.id })) });
const cli: Actor = { actor: 'cli:bob', by: 'bob', via: 'cli' };
const dispatch = { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 };
/** store.deliveryWindow's default. */
const WINDOW_MS = 30 * 60_000;

let n = 0;
/** A case's own directory, fake clock, emptied store, file channel and agent log. */
async function caseParts() {
  n += 1;
  const dir = join(root, `case-${n}`);
  const clock = fakeClock(T0);
  const store = await shared.fresh();
  const out = join(dir, 'oncall-dm.jsonl');
  const channel = createFileChannel(fileChannelSchema.parse({ id: 'oncall-dm', type: 'file', direction: 'outbound', path: out }), { clock });
  const log = createAgentLog({ path: join(dir, 'agent.log'), agentId: 'agent-a', clock });
  return { dir, clock, store, out, channel, log };
}

async function setup(raceAck: boolean) {
  const { clock, store, out, channel, log } = await caseParts();
  const opened = planOpen({ pageId: `pnotifier${String(n).padStart(4, '0')}`, agentId: 'agent-a', incidentKey: 'disk/db-1', policy,
    policySha256: 'abc', nowMs: T0, resolve, event: { id: 'event-1', title: 'Disk full', severity: 'P1' } });
  assert.deepEqual(await store.oncall.applyPagePlan(opened, T0), { ok: true });
  // The race, made certain: the ack commits after the first claim's transaction and before its send.
  let raced = !raceAck;
  const racing: Store = { ...store, oncall: { ...store.oncall, claimNotifications: async (...args) => {
    const claimed = await store.oncall.claimNotifications(...args);
    if (!raced && claimed.claimed.length > 0) {
      raced = true;
      const page = await store.oncall.getPage(opened.page.id) as PageRecord;
      const ack = planAck(page, cli, null, clock.now());
      assert.ok(ack.ok && ack.plan !== null);
      assert.deepEqual(await store.oncall.applyPagePlan(ack.plan, clock.now()), { ok: true });
    }
    return claimed;
  } } };
  const notifier = createPageNotifier({ store: racing, clock, owner: 'r1', channelOutcome: () => undefined,
    deliveryWindowMs: WINDOW_MS, agents: new Map([['agent-a', { id: 'agent-a', channels: [channel], log, dispatch }]]) });
  const notify = (): Promise<OutboxPass> => notifier.pass();
  const lines = (): Array<{ to: string; deliveryId: string; status: string }> =>
    (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { to: string; deliveryId: string; status: string }) : []);
  const close = async (): Promise<void> => { await channel.close(); log.close(); await store.close(); };
  return { store, clock, notify, lines, page: opened.page, close };
}

describe('page notifier: nothing of an escalation after the acknowledgement committed (§17.4)', () => {
  it('without an ack in between, the opening notice reaches the channel (the test can see a send)', async () => {
    const s = await setup(false);
    assert.equal((await s.notify()).claimed, 1);
    assert.deepEqual(s.lines().map((l) => [l.to, l.deliveryId]), [['alice', `${s.page.id}.1.alice.oncall-dm`]]);
    assert.equal((await s.store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind: 'page.notice-cancelled' })).items.length, 0);
    await s.close();
  });

  it('an ack landing between claim and send: not sent, cancelled once with a page.notice-cancelled row; the resolve notice still goes', async () => {
    const s = await setup(true);
    await s.notify();
    assert.deepEqual(s.lines(), [], 'the channel never got the escalation');
    const rows = (await s.store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind: 'page.notice-cancelled' })).items;
    assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? 'null') as unknown), [{ pageId: s.page.id, deliveryId: `${s.page.id}.1.alice.oncall-dm`,
      notice: 'escalation', pageState: 'acknowledged' }]);
    assert.deepEqual((await s.store.oncall.pageTimeline(s.page.id)).map((r) => r.kind),
      ['page.opened', 'page.notified', 'page.acknowledged', 'page.notified', 'page.notice-cancelled'], 'the ack is told to alice (§24.1)');
    s.clock.advance(120_000);
    assert.equal((await s.notify()).claimed, 1, 'the escalation cancelled for good: only the ack\'s notice is handed out');
    assert.deepEqual(s.lines().map((l) => l.deliveryId), [`${s.page.id}.2.alice.oncall-dm`]);

    const acked = await s.store.oncall.getPage(s.page.id) as PageRecord;
    const resolved = planResolve(acked, cli, null, null, s.clock.now());
    assert.ok(resolved.ok && resolved.plan !== null);
    await s.store.oncall.applyPagePlan(resolved.plan, s.clock.now());
    await s.notify();
    assert.deepEqual(s.lines().slice(1).map((l) => [l.to, l.status, l.deliveryId]), [['alice', 'resolved', `${s.page.id}.3.alice.oncall-dm`]]);
    await s.close();
  });
});

describe('page notifier: hand-offs and many sends at once', () => {
  async function bare() {
    const { clock, store, out, channel, log } = await caseParts();
    let outboxClaims = 0;
    const counting: Store = { ...store, oncall: { ...store.oncall, claimNotifications: (...args) => {
      outboxClaims += 1;
      return store.oncall.claimNotifications(...args);
    } } };
    const errors: unknown[] = [];
    const notifier = createPageNotifier({ store: counting, clock, owner: 'r1', channelOutcome: () => undefined, onError: (e) => errors.push(e),
      deliveryWindowMs: WINDOW_MS, maxInFlight: 64, maxPerChannel: 64, agents: new Map([['agent-a', { id: 'agent-a', channels: [channel], log, dispatch }]]) });
    const open = (i: number) => planOpen({ pageId: `phandoff${String(n).padStart(3, '0')}${String(i).padStart(2, '0')}`, agentId: 'agent-a',
      incidentKey: `disk/db-${i}`, policy, policySha256: 'abc', nowMs: T0, resolve, event: { id: `event-${i}`, title: 'Disk full', severity: 'P1' } });
    const lines = (): Array<{ deliveryId: string }> =>
      (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { deliveryId: string }) : []);
    const audit = async (kind: string) => (await store.listAudit({ limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind })).items
      .map((r) => JSON.parse(r.dataText ?? 'null') as Record<string, unknown>);
    const close = async (): Promise<void> => { await notifier.close(); await channel.close(); log.close(); };
    return { store, clock, notifier, open, lines, audit, errors, close, outboxClaims: () => outboxClaims };
  }

  it('a round claimed as its page commits is sent on hand-off, attempt 1, without an outbox claim', async () => {
    const s = await bare();
    const opened = s.open(1);
    const applied = await s.store.oncall.applyPagePlan(opened, T0, s.notifier.claim);
    assert.ok(applied.ok && applied.claimed !== undefined);
    s.notifier.handOff(applied.claimed);
    await waitFor('the line', () => s.lines().length === 1);
    await waitFor('message.delivered', async () => (await s.audit('message.delivered')).length === 1);
    assert.deepEqual(s.lines().map((l) => l.deliveryId), [`${opened.page.id}.1.alice.oncall-dm`]);
    assert.deepEqual((await s.audit('message.delivered')).map((d) => [d.deliveryId, d.attempt]), [[`${opened.page.id}.1.alice.oncall-dm`, 1]]);
    assert.equal(s.outboxClaims(), 0, 'no outbox claim on the way');
    assert.equal((await s.notifier.pass()).claimed, 0, 'and nothing left in the outbox');
    assert.deepEqual(s.errors, []);
    await s.close();
  });

  it('an ack committed between the page and its hand-off still stops the round at the last look, audited', async () => {
    const s = await bare();
    const opened = s.open(1);
    const applied = await s.store.oncall.applyPagePlan(opened, T0, s.notifier.claim);
    assert.ok(applied.ok && applied.claimed !== undefined && applied.claimed.length === 1);
    const ack = planAck(opened.page, cli, null, T0 + 1);
    assert.ok(ack.ok && ack.plan !== null);
    assert.deepEqual(await s.store.oncall.applyPagePlan(ack.plan, T0 + 1), { ok: true });
    await s.notifier.handOff(applied.claimed);
    await waitFor('page.notice-cancelled', async () => (await s.audit('page.notice-cancelled')).length === 1);
    await s.notifier.close();
    assert.deepEqual(s.lines(), [], 'never sent');
    assert.deepEqual(await s.audit('page.notice-cancelled'), [{ pageId: opened.page.id, deliveryId: `${opened.page.id}.1.alice.oncall-dm`,
      notice: 'escalation', pageState: 'acknowledged' }]);
    await s.close();
  });

  it('a hand-off: the page and its claimed round are committed when the channel sees it, after one last look', async () => {
    const { clock, store, out, channel, log } = await caseParts();
    // What the store holds at the moment the channel is handed the message, read through the store's own reads.
    const seen: Array<{ page: string | null; timeline: string[] }> = [];
    let lastLooks = 0;
    const looking: Store = { ...store, oncall: { ...store.oncall, holdSend: (...args) => {
      lastLooks += 1;
      return store.oncall.holdSend(...args);
    } } };
    const watched = { ...channel, send: async (message: OutboundMessage, signal: AbortSignal, gate?: WireGate) => {
      const page = message.pageId === undefined ? null : await store.oncall.getPage(message.pageId);
      seen.push({ page: page === null ? null : page.state, timeline: (await store.oncall.pageTimeline(message.pageId ?? '')).map((r) => r.kind) });
      return channel.send(message, signal, gate);
    } };
    const notifier = createPageNotifier({ store: looking, clock, owner: 'r1', channelOutcome: () => undefined,
      deliveryWindowMs: WINDOW_MS, agents: new Map([['agent-a', { id: 'agent-a', channels: [watched], log, dispatch }]]) });
    const opened = planOpen({ pageId: `phandoff${String(n).padStart(5, '0')}`, agentId: 'agent-a', incidentKey: 'disk/db-1', policy,
      policySha256: 'abc', nowMs: T0, resolve, event: { id: 'event-1', title: 'Disk full', severity: 'P1' } });
    const applied = await store.oncall.applyPagePlan(opened, T0, notifier.claim);
    assert.ok(applied.ok && applied.claimed !== undefined && applied.claimed.length === 1);
    notifier.handOff(applied.claimed);
    await waitFor('message.delivered', async () => (await store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null },
      { kind: 'message.delivered' })).items.length === 1);
    assert.deepEqual(seen, [{ page: 'triggered', timeline: ['page.opened', 'page.notified'] }], 'the page and its round were in the store before the send');
    assert.equal(lastLooks, 1, 'one last look between the commit and the send');
    assert.deepEqual(readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { deliveryId: string }).deliveryId),
      [`${opened.page.id}.1.alice.oncall-dm`]);
    await notifier.close();
    await channel.close();
    log.close();
  });

  it('settled() waits for the sends under way (a reload closes the old channels after it), not for later ones', async () => {
    const { clock, store, out, channel, log } = await caseParts();
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let entered = 0;
    const gated: typeof channel = { ...channel, send: async (m, signal, wire) => {
      entered += 1;
      await gate;
      return channel.send(m, signal, wire);
    } };
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined,
      deliveryWindowMs: WINDOW_MS, agents: new Map([['agent-a', { id: 'agent-a', channels: [gated], log, dispatch }]]) });
    const opened = planOpen({ pageId: `psettled${String(n).padStart(4, '0')}`, agentId: 'agent-a', incidentKey: 'disk/db-1', policy,
      policySha256: 'abc', nowMs: T0, resolve, event: { id: 'event-1', title: 'Disk full', severity: 'P1' } });
    const applied = await store.oncall.applyPagePlan(opened, T0, notifier.claim);
    assert.ok(applied.ok && applied.claimed !== undefined);
    assert.equal(await notifier.settled().then(() => 'idle'), 'idle', 'nothing under way: settles at once');
    notifier.handOff(applied.claimed);
    await waitFor('the send is in the channel', () => entered === 1);
    let settled = false;
    const done = notifier.settled().then(() => { settled = true; });
    await clock.advanceAsync(0);
    assert.equal(settled, false, 'the send under way holds it');
    release();
    await done;
    assert.equal(readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').length, 1, 'the send finished before settled()');
    await notifier.close();
    await channel.close();
    log.close();
  });

  it('50 notices sent at once: 50 lines and no MaxListenersExceededWarning (each send listens to a signal of its own)', async () => {
    const s = await bare();
    for (let i = 0; i < 50; i++) assert.deepEqual(await s.store.oncall.applyPagePlan(s.open(i), T0), { ok: true });
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => { warnings.push(w); };
    process.on('warning', onWarning);
    try {
      assert.deepEqual(await s.notifier.pass(), { claimed: 50, full: false });
      await new Promise((r) => { setImmediate(r); }); // warnings are emitted on a later tick
      assert.equal(s.lines().length, 50, '50 sends');
      assert.equal((await s.audit('message.delivered')).length, 50);
      assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
    } finally {
      process.off('warning', onWarning);
    }
    await s.close();
  });

  it('50 hand-offs at once: 50 lines and no MaxListenersExceededWarning', async () => {
    const s = await bare();
    const applied = await Promise.all(Array.from({ length: 50 }, (_, i) => s.store.oncall.applyPagePlan(s.open(i), T0, s.notifier.claim)));
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => { warnings.push(w); };
    process.on('warning', onWarning);
    try {
      for (const a of applied) s.notifier.handOff(a.ok ? a.claimed ?? [] : []);
      await waitFor('50 message.delivered rows', async () => (await s.audit('message.delivered')).length === 50);
      await new Promise((r) => { setImmediate(r); });
      assert.equal(s.lines().length, 50, '50 sends');
      assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), []);
    } finally {
      process.off('warning', onWarning);
    }
    await s.close();
  });
});

describe('page engine: a new page and its first round', () => {
  it('opening a page returns once the round was handed to its channel, so the event completion written next shares its commit', async () => {
    const { dir, clock, store, out, channel, log } = await caseParts();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'oncall.yaml'), oncallYaml('1h', '1h'));
    const config = loadOncall({ dir, channels: [{ id: 'oncall-dm' }], sources: [] }, { env: {}, home: dir, nowMs: T0 });
    assert.ok(config !== null);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const order: string[] = [];
    const gated = { ...channel, send: async (message: OutboundMessage, signal: AbortSignal, wire?: WireGate) => {
      order.push('handed to the channel');
      await gate;
      return channel.send(message, signal, wire);
    } };
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined,
      deliveryWindowMs: WINDOW_MS, agents: new Map([['agent-a', { id: 'agent-a', channels: [gated], log, dispatch }]]) });
    const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]), sender: notifier });
    // A triage decision's page (the dispatcher's path; a heartbeat's page, on the timer loop, does not wait for its sends).
    const opening = engine.onDecision({ id: 'event-1', agentId: 'agent-a', sourceId: 'alertmanager', fingerprint: 'disk/db-1', payload: {} },
      { notify: true, severity: 'P1', status: 'firing', title: 'Disk full', text: 'Disk full', alertCount: 1, triagedBy: 'rules' })
      .then(async () => {
        order.push('returned');
        const listed = (await store.oncall.listPages({ limit: 1, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {})).items[0];
        return listed === undefined || isDamagedPage(listed) ? null : listed;
      });
    await waitFor('the first round handed to the channel', () => order.length > 0);
    const committed = (await store.oncall.listPages({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {})).items;
    assert.deepEqual(committed.map((p) => p.state), ['triggered'], 'the page was committed before the channel had the message');
    order.push('send finished');
    release();
    const page = await opening;
    assert.deepEqual(order, ['handed to the channel', 'send finished', 'returned'], 'the caller goes on to its own commit only after the send');
    assert.ok(page !== null);
    assert.deepEqual(readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { deliveryId: string }).deliveryId),
      [`${page.id}.1.alice.oncall-dm`], 'the line was written when it returned');
    await waitFor('message.delivered', async () => (await store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null },
      { kind: 'message.delivered' })).items.length === 1);
    await notifier.close();
    await channel.close();
    log.close();
  });
});

describe('page notifier: a notice waits out a channel outage like every message, until store.deliveryWindow (§17.4)', () => {
  const quick = { ...dispatch, maxAttempts: 3 };
  const windowMs = 10 * 60_000;

  /** A notifier whose channel fails retryably for its first `failures` tries (Infinity: always), and the times it was tried. */
  async function flaky(failures: number, retryable = true) {
    const { clock, store, out, channel, log } = await caseParts();
    const tries: number[] = [];
    const down: typeof channel = { ...channel, send: async (m, signal, wire) => {
      tries.push(clock.now() - T0);
      if (tries.length <= failures) return { ok: false, retryable, error: 'HTTP 503 Service Unavailable' };
      return channel.send(m, signal, wire);
    } };
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: windowMs,
      agents: new Map([['agent-a', { id: 'agent-a', channels: [down], log, dispatch: quick }]]) });
    const opened = planOpen({ pageId: `poutage${String(n).padStart(5, '0')}`, agentId: 'agent-a', incidentKey: 'disk/db-1', policy,
      policySha256: 'abc', nowMs: T0, resolve, event: { id: 'event-1', title: 'Disk full', severity: 'P1' } });
    assert.deepEqual(await store.oncall.applyPagePlan(opened, T0), { ok: true });
    const audit = async (kind: string) => (await store.listAudit({ limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind })).items
      .map((r) => ({ tsMs: Date.parse(r.ts) - T0, data: JSON.parse(r.dataText ?? 'null') as Record<string, unknown> }));
    const lines = (): string[] => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l !== '') : []);
    /** Passes over the outbox every 5 s of fake time until `done` or the window is long over. */
    const run = async (done: () => boolean | Promise<boolean>): Promise<void> => {
      while (clock.now() <= T0 + 2 * windowMs) {
        await notifier.pass();
        if (await done()) return;
        clock.advance(5_000);
      }
    };
    const close = async (): Promise<void> => { await notifier.close(); await channel.close(); log.close(); };
    return { clock, tries, opened, audit, lines, run, close };
  }

  it('failing retryably past maxAttempts, then back: delivered once, message.delivered, no message.failed', async () => {
    const s = await flaky(quick.maxAttempts + 2);
    await s.run(async () => (await s.audit('message.delivered')).length > 0 || (await s.audit('message.failed')).length > 0);
    assert.equal(s.tries.length, quick.maxAttempts + 3, 'tried on after the quick tries, until it went through');
    assert.ok((s.tries.at(-1) ?? 0) < windowMs, 'within the window');
    assert.deepEqual(await s.audit('message.failed'), [], 'never given up');
    assert.deepEqual((await s.audit('message.delivered')).map((r) => [r.data.deliveryId, r.data.attempt]),
      [[`${s.opened.page.id}.1.alice.oncall-dm`, quick.maxAttempts + 3]]);
    assert.equal(s.lines().length, 1, 'one line in the channel');
    await s.close();
  });

  it('failing for the whole window: tried until its end, then exactly one message.failed, after the window', async () => {
    const s = await flaky(Infinity);
    await s.run(async () => (await s.audit('message.failed')).length > 0);
    const failed = await s.audit('message.failed');
    assert.equal(failed.length, 1);
    // Passes every 5 s: the quick tries (due +0.5 s, +1 s) at the next passes, then rounds of 30 s doubling, the last on the window's end.
    assert.deepEqual(s.tries, [0, 5_000, 10_000, 40_000, 100_000, 220_000, 460_000, windowMs]);
    assert.equal(failed[0]?.tsMs, windowMs);
    assert.deepEqual(failed.map((r) => [r.data.deliveryId, r.data.attempts]), [[`${s.opened.page.id}.1.alice.oncall-dm`, s.tries.length]]);
    assert.deepEqual(s.lines(), [], 'nothing reached the channel');
    s.clock.advance(windowMs);
    await s.run(() => true);
    assert.equal((await s.audit('message.failed')).length, 1, 'given up once: not handed out again');
    await s.close();
  });

  it('refused outright (not retryable): given up at once, one message.failed at attempt 1', async () => {
    const s = await flaky(Infinity, false);
    await s.run(async () => (await s.audit('message.failed')).length > 0);
    assert.deepEqual((await s.audit('message.failed')).map((r) => [r.tsMs, r.data.attempts]), [[0, 1]]);
    assert.deepEqual(s.tries, [0]);
    await s.close();
  });
});

describe('page notifier: mail threads per person and page, times in the reader\'s zone (§24.1, §24.5)', () => {
  it('the escalated person\'s first mail starts a thread of their own; the resolve replies in each person\'s thread', async () => {
    const { clock, store, log } = await caseParts();
    const smtp = await startSmtpServer({ starttls: false });
    const mail = createEmailChannel(emailChannelSchema.parse({ id: 'mail', type: 'email', direction: 'outbound', from: 'svc@ops.example.com', to: 'oncall@example.com',
      timeoutMs: 5000, smtp: { host: '127.0.0.1', port: smtp.port, tls: 'none' } }), { clock });
    const twoSteps: Policy = { ...policy, steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: 60_000 },
      { notify: [{ kind: 'person', id: 'bob' }], afterMs: 60_000 }] };
    const toMail: ResolveTargets = (targets) => ({ nobodyOnCall: [], recipients: targets.map((t) => ({ person: t.id, channel: 'mail', to: `${t.id}@example.com` })) });
    const notifier = createPageNotifier({ store, clock, owner: 'r1', channelOutcome: () => undefined, deliveryWindowMs: WINDOW_MS,
      zone: (_agent, person) => (person === 'alice' ? 'Europe/Berlin' : 'America/New_York'),
      agents: new Map([['agent-a', { id: 'agent-a', channels: [mail], log, dispatch }]]) });
    // One page's messages to one channel go in order, one at a time: pass until the outbox is empty.
    const notify = async (): Promise<void> => { while ((await notifier.pass()).claimed > 0) { /* the next in order */ } };
    const opened = planOpen({ pageId: 'pthreads0001', agentId: 'agent-a', incidentKey: 'k', policy: twoSteps, policySha256: 'abc', nowMs: T0,
      resolve: toMail, event: { id: 'event-1', title: 'Disk full', severity: 'P1' } });
    assert.deepEqual(await store.oncall.applyPagePlan(opened, T0), { ok: true });
    await notify();
    const escalated = planTimer(opened.page, T0 + 60_000, toMail);
    assert.ok(escalated !== null);
    clock.advance(60_000);
    assert.deepEqual(await store.oncall.applyPagePlan(escalated, T0 + 60_000), { ok: true });
    await notify();
    const resolved = planResolve(escalated.page, cli, null, null, T0 + 90_000);
    assert.ok(resolved.ok && resolved.plan !== null);
    clock.advance(30_000);
    assert.deepEqual(await store.oncall.applyPagePlan(resolved.plan, T0 + 90_000), { ok: true });
    await notify();
    const seen = smtp.mails.map((m) => { const h = mailHeaders(m.raw); return [m.to[0], h.get('subject'), h.get('message-id'), h.get('in-reply-to') ?? null]; });
    assert.deepEqual(seen, [
      ['alice@example.com', '[P1] Disk full', '<pthreads0001.1.alice.mail@ops.example.com>', null],
      ['bob@example.com', '[P1] Disk full', '<pthreads0001.2.bob.mail@ops.example.com>', null],
      ['alice@example.com', 'Re: [P1] Disk full', '<pthreads0001.3.alice.mail@ops.example.com>', '<pthreads0001.1.alice.mail@ops.example.com>'],
      ['bob@example.com', 'Re: [P1] Disk full', '<pthreads0001.3.bob.mail@ops.example.com>', '<pthreads0001.2.bob.mail@ops.example.com>'],
    ]);
    // 2026-01-01 00:00Z: alice reads the next step in Berlin time, bob (paged at the last step: no next) nothing of the kind.
    assert.match(mailText(smtp.mails[0]?.raw ?? ''), /\nPaged: step 1 of 2: alice; next: bob at 01:01 CET \(in 1m\)\nsvc ack pthreads0001\n/);
    assert.match(mailText(smtp.mails[1]?.raw ?? ''), /\nPaged: step 2 of 2: bob\nsvc ack pthreads0001\n/);
    await notifier.close();
    await mail.close();
    await smtp.close();
    log.close();
    await store.close();
  });
});
