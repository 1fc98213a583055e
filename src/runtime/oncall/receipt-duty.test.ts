/**
 * The receipt duty (contract §21.3) on fake time, end to end below the daemon: the page engine opens
 * a P1 page, the notifier sends it through the real Pushover channel to a local Pushover API, the
 * delivery's receipt is kept with the page in a real SQLite store, and the duty asks about it, acts
 * on the answers and cancels what an ack elsewhere left ringing. The clock moves only while nothing
 * is in flight, so every time the fake API records is exact.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { pushoverChannelSchema } from '../../config/schema.js';
import { fakeClock } from '../../core/clock.js';
import { createAgentLog } from '../../logs/agent-log.js';
import { loadOncall } from '../../oncall/load-oncall.js';
import type { PageRecord } from '../../oncall/page.js';
import type { Store } from '../../store/store.js';
import type { Channel } from '../channels/channel.js';
import { createPushoverChannel } from '../channels/pushover-channel.js';
import type { FakePushover } from '../../../test/support/fake-pushover.js';
import { startFakePushover } from '../../../test/support/fake-pushover.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { advanceWhenSettled, trackedIo, waitFor } from '../../../test/support/wait.js';
import { createPageEngine } from './page-engine.js';
import { createPageNotifier } from './page-notifier.js';
import type { ReceiptDuty } from './receipt-duty.js';
import { CANCEL_RETRY_MS, startReceiptDuty } from './receipt-duty.js';

const T0 = Date.parse('2026-11-25T12:00:00Z');
const TOKEN = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const ALICE = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const BOB = 'uBobBobBobBobBobBobBobBobBob00';
const root = mkdtempSync(join(tmpdir(), 'svc-receipt-duty-'));
after(() => rmSync(root, { recursive: true, force: true }));
const shared = sharedSqliteStore('svc-receipt-duty-store-');
after(() => shared.close());

const yaml = (notify: string): string => `
people:
  - { id: alice, contacts: { pushover: ${ALICE} } }
  - { id: bob, contacts: { pushover: ${BOB} } }
policies:
  - id: default
    steps:
      - { notify: [${notify}], after: 1h }
routes:
  - { match: { severity: [P1] }, policy: default }
`;

interface Logged { agentId: string; level: string; event: string; fields: Record<string, unknown> }

let n = 0;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => { for (const c of cleanups.splice(0).reverse()) await c(); });

async function harness(opts: { notify?: string; expire?: number; refreshMs?: number } = {}) {
  n += 1;
  const dir = join(root, `case-${n}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'oncall.yaml'), yaml(opts.notify ?? 'person:alice'));
  const clock = fakeClock(T0);
  const store: Store = await shared.fresh();
  const po: FakePushover = await startFakePushover({ token: TOKEN, users: [ALICE, BOB], now: () => clock.now() });
  cleanups.push(() => po.close());
  const channel = createPushoverChannel(pushoverChannelSchema.parse({ id: 'pushover', type: 'pushover', direction: 'outbound', token: TOKEN,
    apiUrl: po.apiUrl, expire: opts.expire ?? 3600, retry: 30 }), { clock });
  const config = loadOncall({ dir, channels: [{ id: 'pushover' }], sources: [] }, { env: {}, home: dir, nowMs: T0 });
  assert.ok(config);
  const log = createAgentLog({ path: join(dir, 'agent.log'), agentId: 'agent-a', clock });
  const notifier = createPageNotifier({ store, clock, owner: 'test-owner', channelOutcome: () => undefined, deliveryWindowMs: 30 * 60_000,
    agents: new Map([['agent-a', { id: 'agent-a', channels: [channel], log, dispatch: { maxAttempts: 5, initialBackoffMs: 500, maxBackoffMs: 30_000, concurrency: 16 } }]]) });
  cleanups.push(() => notifier.close());
  const engine = createPageEngine({ store, clock, configs: new Map([['agent-a', config]]), sender: notifier });

  // Everything the duty waits on, tracked: the clock moves only when none of it is under way.
  const api = trackedIo(channel.receipts as NonNullable<Channel['receipts']>);
  const receipts = trackedIo(store.receipts);
  const acting = trackedIo({ act: (...args: Parameters<typeof engine.act>) => engine.act(...args) });
  const busy = (): boolean => api.busy() || receipts.busy() || acting.busy();
  const logged: Logged[] = [];
  const counted: string[] = [];
  let watchedNow = 0;
  let duty: ReceiptDuty | null = null;
  const start = (): ReceiptDuty => {
    duty = startReceiptDuty({ receipts: receipts.io, clock, engine: acting.io, channel: () => ({ ...channel, receipts: api.io }),
      log: (agentId, level, event, fields) => logged.push({ agentId, level, event, fields }),
      metrics: { watched: (count) => { watchedNow = count; }, request: (_a, ch, kind, outcome) => counted.push(`${ch} ${kind} ${outcome}`) },
      onError: (err) => assert.fail(String(err)), ...(opts.refreshMs === undefined ? {} : { refreshMs: opts.refreshMs }) });
    cleanups.push(() => duty?.close() ?? Promise.resolve());
    return duty;
  };
  const open = async (): Promise<string> => {
    const page = await engine.openFor('agent-a', 'disk/db-1', 'default', { id: `e-${n}`, title: 'Disk full on db-1', severity: 'P1' });
    assert.ok(page);
    await notifier.settled();
    await waitFor('the receipts kept', async () => (await store.receipts.listReceipts(10)).length === po.messages.length);
    return page.id;
  };
  const until = (what: string, done: () => boolean | Promise<boolean>): Promise<void> => advanceWhenSettled(clock, busy, what, done);
  return { clock, store, po, engine, start, open, until, logged, counted, watched: () => watchedNow };
}

describe('receipt duty (§21.3)', () => {
  it('asks every 5 s, never sooner; an acknowledgement in Pushover acknowledges the page as the person, via pushover, with the device', async () => {
    const h = await harness();
    const pageId = await h.open();
    const [message] = h.po.messages;
    assert.equal(message?.form.priority, '2');
    const receipt = message?.receipt ?? '';
    const startedAt = h.clock.now();
    await h.start().refresh();
    assert.equal(h.watched(), 1);
    await h.until('two polls', () => h.po.polls.length === 2);
    assert.deepEqual(h.po.polls.map((p) => [p.receipt, p.atMs - startedAt]), [[receipt, 5_000], [receipt, 10_000]]);
    h.clock.advance(1_000);
    h.po.acknowledge(receipt, 'alice-iphone');
    await h.until('the receipt closed', async () => (await h.store.receipts.listReceipts(10)).length === 0);
    assert.equal((h.po.polls[2]?.atMs ?? 0) - startedAt, 15_000);
    const page = await h.store.oncall.getPage(pageId) as PageRecord | null;
    assert.equal(page?.state, 'acknowledged');
    assert.equal(page?.acknowledgedBy, 'alice');
    const row = (await h.store.oncall.pageTimeline(pageId)).find((r) => r.kind === 'page.acknowledged');
    assert.equal(row?.actor, `pushover:${receipt}`);
    assert.deepEqual(JSON.parse(row?.dataText ?? '{}'), { pageId, by: 'alice', via: 'pushover', step: 1, loop: 0, device: 'alice-iphone' });
    assert.deepEqual(h.logged.map((l) => [l.event, l.fields.device]), [['receipt.acknowledged', 'alice-iphone']]);
    assert.equal(h.po.cancels.length, 0, 'an answered receipt needs no cancel');
    assert.deepEqual(h.counted, ['pushover poll ok', 'pushover poll ok', 'pushover poll ok']);
    assert.equal(h.watched(), 0);
  });

  it('the page\'s other receipts are cancelled at once when one person answers in Pushover', async () => {
    // Refreshes a minute apart: only the answer itself can bring the cancel within a slot.
    const h = await harness({ notify: 'person:alice, person:bob', refreshMs: 60_000 });
    await h.open();
    const receiptOf = (user: string): string => h.po.messages.find((m) => m.form.user === user)?.receipt ?? '';
    await h.start().refresh();
    h.po.acknowledge(receiptOf(BOB), 'bob-pixel');
    await h.until('both receipts closed', async () => (await h.store.receipts.listReceipts(10)).length === 0);
    assert.deepEqual(h.po.cancels.map((c) => c.receipt), [receiptOf(ALICE)]);
    const answered = h.po.polls.find((p) => p.receipt === receiptOf(BOB))?.atMs;
    assert.ok(answered !== undefined && (h.po.cancels[0]?.atMs ?? Infinity) - answered <= 2_500, 'cancelled within the next slot, not at the next refresh');
    assert.deepEqual(h.logged.map((l) => [l.event, l.fields.person]).sort(), [['receipt.acknowledged', 'bob'], ['receipt.cancelled', 'alice']]);
    assert.ok(h.po.receipt(receiptOf(ALICE))?.cancelledAtMs !== null);
  });

  it('an ack anywhere else (svc ack) cancels the receipt once, a failed cancel again 30 s later, and the receipt is asked about no more', async () => {
    const h = await harness();
    const pageId = await h.open();
    const receipt = h.po.messages[0]?.receipt ?? '';
    const duty = h.start();
    await duty.refresh();
    const acked = await h.engine.act(pageId, { kind: 'ack', note: null }, { actor: 'cli:bob', by: 'bob', via: 'cli' });
    assert.ok(acked.ok && acked.changed);
    h.po.failNext.push({ status: 503 });
    const ackedAt = h.clock.now();
    await duty.refresh();
    await h.until('the receipt closed', async () => (await h.store.receipts.listReceipts(10)).length === 0);
    assert.deepEqual(h.po.cancels.map((c) => [c.receipt, c.status, c.atMs - ackedAt]), [[receipt, 503, 0], [receipt, 200, CANCEL_RETRY_MS]]);
    const polls = h.po.polls.length;
    await h.until('another minute', () => h.clock.now() >= ackedAt + CANCEL_RETRY_MS + 60_000);
    assert.equal(h.po.polls.length, polls, 'no poll after the cancel');
    assert.equal(h.po.cancels.length, 2);
    assert.deepEqual(h.counted.filter((c) => c.includes('cancel')), ['pushover cancel failed', 'pushover cancel ok']);
    assert.deepEqual(h.logged.map((l) => l.event), ['receipt.request-failed', 'receipt.requests-answered', 'receipt.cancelled']);
  });

  it('a receipt that expires unanswered is let go, its page left to escalate; Pushover\'s Retry-After holds every ask back', async () => {
    const h = await harness({ expire: 60 });
    const pageId = await h.open();
    const startedAt = h.clock.now();
    h.po.failNext.push({ status: 429, retryAfter: '20' });
    await h.start().refresh();
    await h.until('the receipt closed', async () => (await h.store.receipts.listReceipts(10)).length === 0);
    const at = h.po.polls.map((p) => p.atMs - startedAt);
    assert.deepEqual(at.slice(0, 3), [5_000, 25_000, 30_000], 'after the 429, the next ask waits its 20 s');
    assert.ok((at.at(-1) ?? 0) >= 60_000 && (at.at(-1) ?? 0) < 65_000, `last poll ${at.at(-1)} ms`);
    assert.deepEqual(h.logged.filter((l) => l.event === 'receipt.closed').map((l) => l.fields.reason), ['expired']);
    assert.equal((await h.store.oncall.getPage(pageId))?.state, 'triggered');
  });
});
