/**
 * The on-call part of the store contract (contract §17.4, store/oncall-store.ts): plans persist
 * atomically and only onto the version they were planned from, one open page per incident key, due
 * timers claimed once per lease (by one replica when several share the store), notifications handed
 * out at least once and never an escalation after the acknowledgement committed. storeContract runs it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NotifyRule, Policy } from '../../src/oncall/oncall-config.js';
import type { PagePlan, PageRecord } from '../../src/oncall/page.js';
import type { Actor, ResolveTargets } from '../../src/oncall/page-plan.js';
import { planAck, planJoin, planOpen, planResolve, planTimer } from '../../src/oncall/page-plan.js';
import type { SendCheck, SendRef } from '../../src/store/oncall-store.js';
import { isDamagedPage } from '../../src/store/oncall-store.js';
import type { ClaimedNotification } from '../../src/store/oncall-store.js';
import type { PageQuery, Store } from '../../src/store/store.js';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const q = (over: Partial<PageQuery> = {}): PageQuery => ({ limit: 100, cursor: null, order: 'desc', sinceMs: null, untilMs: null, ...over });

const policy: Policy = {
  id: 'default', repeat: 0, ackTimeoutMs: 0, onExhausted: [],
  steps: [{ notify: [{ kind: 'person', id: 'alice' }], afterMs: MIN }, { notify: [{ kind: 'person', id: 'bob' }], afterMs: MIN }],
};
const resolve: ResolveTargets = (targets) => ({ nobodyOnCall: [],
  recipients: targets.map((t) => ({ person: t.id, channel: 'dm', to: t.id })) });
const cli: Actor = { actor: 'cli:test', by: 'alice', via: 'cli' };

let n = 0;
export function openPlan(key = 'disk/db-1', nowMs = T0, agentId = 'agent-a'): PagePlan {
  n += 1;
  return planOpen({ pageId: `ptest${String(n).padStart(6, '0')}`, agentId, incidentKey: key, policy, policySha256: 'abc', nowMs, resolve,
    event: { id: `event-${n}`, title: 'Disk full', severity: 'P1' } });
}

/** The last look, released at once: what it answered. */
async function lastLook(store: Store, ref: SendRef, nowMs: number): Promise<SendCheck> {
  const hold = await store.oncall.holdSend(ref, nowMs);
  if (hold.check === 'send') await hold.release();
  return hold.check;
}

function must<T>(r: { ok: true; plan: T | null } | { ok: false; reason: string }): T {
  assert.ok(r.ok, 'planned');
  assert.ok(r.ok && r.plan !== null);
  return r.plan;
}

/** Overwrites a page's or an outbox row's body behind the store's back (ContractSubject.damageOncall). */
export type DamageOncall = (table: 'pages' | 'page_notifications', key: string, body: string) => Promise<void>;

export function oncallStoreContract(name: string, open: () => Promise<Store>, again: () => Promise<Store>, replicas: boolean,
  damage: DamageOncall): void {
  describe(`${name}: on-call pages`, () => {
    it('persists a plan with its audit rows and notifications, and reads the page back', async () => {
      const store = await open();
      const plan = openPlan();
      assert.deepEqual(await store.oncall.applyPagePlan(plan, T0), { ok: true });
      assert.deepEqual(await store.oncall.getPage(plan.page.id), plan.page);
      assert.deepEqual(await store.oncall.findPage('agent-a', 'disk/db-1'), plan.page);
      const timeline = await store.oncall.pageTimeline(plan.page.id);
      assert.deepEqual(timeline.map((r) => r.kind), ['page.opened', 'page.notified']);
      assert.equal((await store.oncall.listPages(q(), { state: 'triggered' })).items.length, 1);
      assert.equal((await store.oncall.listPages(q(), { state: 'resolved' })).items.length, 0);
      assert.deepEqual(await store.oncall.openPageCounts(), [{ agentId: 'agent-a', state: 'triggered', count: 1 }]);
    });

    it('the story of the event that opened a page holds the page\'s rows too (§20.3), and the joining event\'s as well', async () => {
      const store = await open();
      const plan = openPlan('story-key');
      await store.oncall.applyPagePlan(plan, T0);
      await store.appendAudit({ kind: 'page.opened', actor: 'svc', agentId: null, data: { pageId: 'ptest-other', eventId: 'elsewhere' } }, T0);
      const joined = planJoin(plan.page, { id: 'e-story-join', title: 'Disk full', severity: 'P1' }, T0 + 1000, resolve) as PagePlan;
      await store.oncall.applyPagePlan(joined, T0 + 1000);
      await store.oncall.applyPagePlan(must(planAck(joined.page, cli, null, T0 + 2000)), T0 + 2000);
      const kinds = async (eventId: string) => (await store.eventStory(eventId)).map((r) => r.kind);
      const whole = ['page.opened', 'page.notified', 'page.joined', 'page.notified', 'page.acknowledged', 'page.notified'];
      assert.deepEqual(await kinds(plan.page.eventIds[0]!), whole);
      assert.deepEqual(await kinds('e-story-join'), whole);
      assert.deepEqual(await kinds('elsewhere'), ['page.opened'], 'another page\'s rows stay out');
      const story = await store.eventStory(plan.page.eventIds[0]!);
      assert.ok(story.every((r, i) => i === 0 || r.seq > story[i - 1]!.seq), 'in seq order, each once');
    });

    it('one open page per incident key; a plan onto a page that moved on is a conflict and writes nothing', async () => {
      const store = await open();
      const first = openPlan('k1');
      assert.deepEqual(await store.oncall.applyPagePlan(first, T0), { ok: true });
      assert.deepEqual(await store.oncall.applyPagePlan(openPlan('k1'), T0), { ok: false, reason: 'conflict' });
      const joined = planJoin(first.page, { id: 'e-join', title: 'Disk full', severity: 'P1' }, T0 + 1000, resolve);
      const acked = must(planAck(first.page, cli, null, T0 + 1000));
      assert.deepEqual(await store.oncall.applyPagePlan(acked, T0 + 1000), { ok: true });
      const headBefore = await store.auditHead();
      assert.deepEqual(await store.oncall.applyPagePlan(joined as PagePlan, T0 + 1000), { ok: false, reason: 'conflict' });
      assert.deepEqual(await store.auditHead(), headBefore, 'no audit row of the losing plan');
      assert.equal((await store.oncall.getPage(first.page.id))?.state, 'acknowledged');
    });

    it('plans applied together: one that fails is refused to its caller alone; the others commit, a conflict among them writes nothing', async () => {
      const store = await open();
      const stored = openPlan('k-batch-taken');
      assert.deepEqual(await store.oncall.applyPagePlan(stored, T0), { ok: true });
      const good = [openPlan('k-batch-1'), openPlan('k-batch-2'), openPlan('k-batch-3')];
      const base = openPlan('k-batch-bad');
      // An audit row JSON cannot carry (NaN): its plan cannot be written; nothing else is wrong with it.
      const bad: PagePlan = { ...base, audit: [...base.audit, { kind: 'page.opened', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { pageId: base.page.id, broken: Number.NaN } }] };
      const taken = openPlan('k-batch-taken');
      // In one turn, as the page loop fires a claimed batch: the stores commit them as a group.
      const results = await Promise.allSettled([good[0]!, bad, good[1]!, taken, good[2]!].map((p) => store.oncall.applyPagePlan(p, T0 + 1)));
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
      assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : 'refused')),
        [{ ok: true }, 'refused', { ok: true }, { ok: false, reason: 'conflict' }, { ok: true }]);
      assert.match(String((results[1] as PromiseRejectedResult).reason), /NaN|JSON/);
      for (const p of good) {
        assert.deepEqual(await store.oncall.getPage(p.page.id), p.page);
        assert.deepEqual((await store.oncall.pageTimeline(p.page.id)).map((r) => r.kind), ['page.opened', 'page.notified']);
      }
      for (const p of [bad, taken]) {
        assert.equal(await store.oncall.getPage(p.page.id), null);
        assert.deepEqual(await store.oncall.pageTimeline(p.page.id), [], 'no audit row of a plan that did not commit');
      }
      const claimed = (await store.oncall.claimNotifications('r1', T0 + 2, 30_000, 100)).claimed;
      assert.deepEqual(claimed.map((c) => c.notification.pageId).sort(), [stored, ...good].map((p) => p.page.id).sort(),
        'the outbox holds the committed plans\' rounds only');
      assert.equal((await store.verifyAudit()).ok, true, 'the chain is whole');
    });

    it('claims a due timer once per lease; the plan applied after it fences a second holder', async () => {
      const store = await open();
      const plan = openPlan('k2');
      await store.oncall.applyPagePlan(plan, T0);
      assert.deepEqual((await store.oncall.claimDuePages('r1', T0 + MIN - 1, 10_000, 10)).pages, [], 'not due yet');
      const [claimed] = (await store.oncall.claimDuePages('r1', T0 + MIN, 10_000, 10)).pages;
      assert.equal(claimed?.id, plan.page.id);
      const other = replicas ? await again() : store;
      assert.deepEqual((await other.oncall.claimDuePages('r2', T0 + MIN + 1, 10_000, 10)).pages, [], 'held by r1');
      // r1 stalls past its lease; r2 claims it and escalates; r1's late plan is fenced.
      const [stolen] = (await other.oncall.claimDuePages('r2', T0 + MIN + 10_000, 10_000, 10)).pages;
      assert.equal(stolen?.id, plan.page.id);
      assert.deepEqual(await other.oncall.applyPagePlan(planTimer(stolen, T0 + MIN + 10_000, resolve) as PagePlan, T0 + MIN + 10_000), { ok: true });
      assert.deepEqual(await store.oncall.applyPagePlan(planTimer(claimed, T0 + MIN, resolve) as PagePlan, T0 + MIN),
        { ok: false, reason: 'conflict' });
      const escalated = (await store.oncall.pageTimeline(plan.page.id)).filter((r) => r.kind === 'page.escalated');
      assert.equal(escalated.length, 1, 'the step fired once');
    });

    it('hands notifications out at least once, fenced by owner and attempt, and records outcomes once', async () => {
      const store = await open();
      const plan = openPlan('k3');
      await store.oncall.applyPagePlan(plan, T0);
      const [c1] = (await store.oncall.claimNotifications('r1', T0, 30_000, 10)).claimed;
      assert.equal(c1?.notification.deliveryId, `${plan.page.id}.1.alice.dm`);
      assert.equal(c1?.attempt, 1);
      assert.equal(c1?.queuedAtMs, T0, 'when it was queued: its delivery window starts there');
      assert.deepEqual((await store.oncall.claimNotifications('r2', T0 + 1, 30_000, 10)).claimed, [], 'leased to r1');
      const [c2] = (await store.oncall.claimNotifications('r2', T0 + 30_000, 30_000, 10)).claimed;
      assert.equal(c2?.attempt, 2, 'r1 went quiet: handed out again with the same deliveryId');
      assert.equal(c2?.queuedAtMs, T0, 'still when it was queued, not when it was claimed again');
      assert.equal(c2?.notification.deliveryId, c1?.notification.deliveryId);
      const delivered = (c: typeof c1) => ({ deliveryId: c?.notification.deliveryId ?? '', owner: c?.owner ?? '', attempt: c?.attempt ?? 0,
        outcome: 'delivered' as const, audit: [{ kind: 'message.delivered', actor: 'agent:agent-a', agentId: 'agent-a', data: { deliveryId: c?.notification.deliveryId } }] });
      assert.equal(await store.oncall.finishNotifications([delivered(c1)], T0 + 30_001), 0, 'a stale holder is fenced');
      assert.equal(await store.oncall.finishNotifications([delivered(c2)], T0 + 30_001), 1);
      assert.deepEqual((await store.oncall.claimNotifications('r3', T0 + 99 * MIN, 30_000, 10)).claimed, [], 'sent: never handed out again');
    });

    it('a notification waiting for its next round is held by nobody: due at its retry time for any sender, still queued when it was written', async () => {
      const store = await open();
      const plan = openPlan('k7');
      await store.oncall.applyPagePlan(plan, T0);
      const [c1] = (await store.oncall.claimNotifications('r1', T0 + 5, 60_000, 10)).claimed;
      assert.ok(c1 !== undefined);
      const retry = { deliveryId: c1.notification.deliveryId, owner: 'r1', attempt: c1.attempt, outcome: 'retry' as const, retryAtMs: T0 + 10_000,
        error: 'channel dm: HTTP 503', audit: [] };
      assert.equal(await store.oncall.finishNotifications([retry], T0 + 6), 1);
      const other = replicas ? await again() : store;
      assert.deepEqual((await other.oncall.claimNotifications('r2', T0 + 9_999, 60_000, 10)).claimed, [], 'not due before its retry time');
      const [c2] = (await other.oncall.claimNotifications('r2', T0 + 10_000, 60_000, 10)).claimed;
      assert.deepEqual([c2?.notification.deliveryId, c2?.attempt, c2?.queuedAtMs], [c1.notification.deliveryId, 2, T0],
        'due at its retry time, r1\'s lease (to +60 s) gone with the outcome');
    });

    it('a plan applied with a claim writes its notifications claimed by that sender, attempt 1, until the lease ends', async () => {
      const store = await open();
      const plan = openPlan('k6');
      const applied = await store.oncall.applyPagePlan(plan, T0, { owner: 'r1', leaseMs: 30_000 });
      const deliveryId = `${plan.page.id}.1.alice.dm`;
      assert.deepEqual(applied, { ok: true, claimed: [{ notification: plan.notifications[0], owner: 'r1', attempt: 1, queuedAtMs: T0 }] });
      assert.equal(await lastLook(store, { deliveryId, pageId: plan.page.id, owner: 'r1', attempt: 1 }, T0 + 1), 'send', 'the claim holds');
      const other = replicas ? await again() : store;
      assert.deepEqual((await other.oncall.claimNotifications('r2', T0 + 29_999, 30_000, 10)).claimed, [], 'leased to r1');
      const [later] = (await other.oncall.claimNotifications('r2', T0 + 30_000, 30_000, 10)).claimed;
      assert.deepEqual([later?.notification.deliveryId, later?.attempt, later?.queuedAtMs], [deliveryId, 2, T0],
        'r1 never sent it: the outbox hands it out again, queued when the plan wrote it');
      // A round the outbox already holds (the same deliveryId) is not claimed twice.
      const again2 = { ...plan, page: { ...plan.page, id: `${plan.page.id}x`, incidentKey: 'k6-other' } };
      assert.deepEqual(await store.oncall.applyPagePlan(again2, T0, { owner: 'r3', leaseMs: 30_000 }), { ok: true, claimed: [] });
    });

    it('releaseClaims gives back a previous run\'s notice claims and timer leases at once, and no one else\'s', async () => {
      const store = await open();
      const mine = openPlan('k-release-1');
      const theirs = openPlan('k-release-2');
      await store.oncall.applyPagePlan(mine, T0, { owner: 'replica-1/run-1', leaseMs: 120_000 });
      await store.oncall.applyPagePlan(theirs, T0, { owner: 'replica-2/run-1', leaseMs: 120_000 });
      assert.equal((await store.oncall.claimDuePages('replica-1/run-1', T0 + MIN, 60_000, 1)).pages.length, 1);
      assert.equal((await store.oncall.claimDuePages('replica-2/run-1', T0 + MIN, 60_000, 1)).pages.length, 1);
      assert.equal(await store.oncall.releaseClaims('replica-1/'), 2, 'one notice, one timer');
      const other = replicas ? await again() : store;
      assert.deepEqual((await other.oncall.claimNotifications('replica-1/run-2', T0 + MIN + 1, 60_000, 10)).claimed
        .map((c) => [c.notification.deliveryId, c.attempt]), [[mine.notifications[0]!.deliveryId, 2]], 'handed out again, attempt 2');
      assert.equal((await other.oncall.claimDuePages('replica-1/run-2', T0 + MIN + 1, 60_000, 10)).pages.length, 1,
        'the released timer; the other is still replica-2\'s');
    });

    it('an escalation notification is not handed out once the acknowledgement committed; the resolved notice is', async () => {
      const store = await open();
      const plan = openPlan('k4');
      await store.oncall.applyPagePlan(plan, T0);
      await store.oncall.applyPagePlan(must(planAck(plan.page, cli, null, T0 + 1)), T0 + 1);
      const told = (await store.oncall.claimNotifications('r1', T0 + 2, 30_000, 10)).claimed;
      assert.deepEqual(told.map((c) => [c.notification.kind, c.notification.deliveryId]),
        [['acknowledged', `${plan.page.id}.2.alice.dm`]], 'the opening notice was cancelled; the ack is told (§24.1)');
      assert.equal(await store.oncall.finishNotifications(told.map((c) => ({ deliveryId: c.notification.deliveryId, owner: c.owner, attempt: c.attempt,
        outcome: 'delivered' as const, audit: [] })), T0 + 2), 1);
      const acked = await store.oncall.getPage(plan.page.id) as PageRecord;
      await store.oncall.applyPagePlan(must(planResolve(acked, cli, null, null, T0 + 3)), T0 + 3);
      const claimed = (await store.oncall.claimNotifications('r1', T0 + 4, 30_000, 10)).claimed;
      assert.deepEqual(claimed.map((c) => [c.notification.kind, c.notification.deliveryId]), [['resolved', `${plan.page.id}.3.alice.dm`]]);
    });

    it('a join round not yet handed out when the ack commits is cancelled (§21.7); a join after the ack goes to the holder', async () => {
      const store = await open();
      const plan = openPlan('k4-join');
      await store.oncall.applyPagePlan(plan, T0);
      const joined = planJoin(plan.page, { id: 'e-join-acked', title: 'Disk full', severity: 'P1' }, T0 + 1, resolve) as PagePlan;
      await store.oncall.applyPagePlan(joined, T0 + 1);
      const acked = must(planAck(joined.page, { ...cli, by: 'alice' }, null, T0 + 2));
      await store.oncall.applyPagePlan(acked, T0 + 2);
      const later = planJoin(acked.page, { id: 'e-join-later', title: 'Disk full', severity: 'P1' }, T0 + 2 + MIN, resolve) as PagePlan;
      await store.oncall.applyPagePlan(later, T0 + 2 + MIN);
      const told = (await store.oncall.claimNotifications('r1', T0 + 3 + MIN, 30_000, 10)).claimed;
      assert.deepEqual(told.map((c) => [c.notification.kind, c.notification.deliveryId]), [['acknowledged', `${plan.page.id}.3.alice.dm`]],
        'the opening and the join round were cancelled');
      await store.oncall.finishNotifications(told.map((c) => ({ deliveryId: c.notification.deliveryId, owner: c.owner, attempt: c.attempt,
        outcome: 'delivered' as const, audit: [] })), T0 + 3 + MIN);
      const next = (await store.oncall.claimNotifications('r1', T0 + 4 + MIN, 30_000, 10)).claimed;
      assert.deepEqual(next.map((c) => [c.notification.kind, c.notification.deliveryId]), [['joined-acked', `${plan.page.id}.4.alice.dm`]],
        'in order, after the ack\'s notice');
    });

    it('the last look before a send: an ack committed since the claim cancels the escalation, audited; a lost claim is lost', async () => {
      const store = await open();
      const plan = openPlan('k5');
      await store.oncall.applyPagePlan(plan, T0);
      const [c] = (await store.oncall.claimNotifications('r1', T0 + 1, 30_000, 10)).claimed;
      assert.ok(c !== undefined);
      const ref = { deliveryId: c.notification.deliveryId, pageId: plan.page.id, owner: 'r1', attempt: c.attempt };
      assert.equal(await lastLook(store, ref, T0 + 2), 'send', 'still triggered: it goes');
      assert.equal(await lastLook(store, { ...ref, owner: 'r2' }, T0 + 2), 'lost');
      await store.oncall.applyPagePlan(must(planAck(plan.page, cli, null, T0 + 3)), T0 + 3);
      const other = replicas ? await again() : store;
      assert.equal(await lastLook(other, ref, T0 + 4), 'cancelled');
      assert.equal(await lastLook(store, ref, T0 + 5), 'lost', 'cancelled once: nothing left to send');
      const rows = (await store.listAudit(q({ order: 'asc' }), { kind: 'page.notice-cancelled' })).items;
      assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? 'null') as unknown),
        [{ pageId: plan.page.id, deliveryId: ref.deliveryId, notice: 'escalation', pageState: 'acknowledged' }]);
      assert.deepEqual((await store.oncall.claimNotifications('r1', T0 + 99 * MIN, 30_000, 10)).claimed.map((c) => c.notification.kind), ['acknowledged'],
        'only the ack\'s own notice is left');
    });

    it('a personal step (§21.1) is a timer of the page: it survives a restart, fires once on one replica, and an ack stops the next', async () => {
      const store = await open();
      const rules = (): NotifyRule[] => [{ afterMs: 0, via: ['dm'] }, { afterMs: 2_000, via: ['sms'] }, { afterMs: 4_000, via: ['phone'] }];
      const withRules: ResolveTargets = (targets) => ({ nobodyOnCall: [], rules,
        recipients: targets.flatMap((t) => ['dm', 'sms', 'phone'].map((channel) => ({ person: t.id, channel, to: `${t.id}@${channel}` }))) });
      n += 1;
      const plan = planOpen({ pageId: `ptest${String(n).padStart(6, '0')}`, agentId: 'agent-a', incidentKey: 'k-rules', policy, policySha256: 'abc',
        nowMs: T0, resolve: withRules, event: { id: `event-${n}`, title: 'Disk full', severity: 'P1' } });
      await store.oncall.applyPagePlan(plan, T0);
      assert.deepEqual(plan.notifications.map((x) => x.deliveryId), [`${plan.page.id}.1.alice.dm`]);
      // A second handle on the same database reads only what was stored: what a restarted daemon finds.
      const restarted = await again();
      assert.deepEqual((await restarted.oncall.claimDuePages('r1', T0 + 1_999, 10_000, 10)).pages, [], 'not due yet');
      const [claimed] = (await restarted.oncall.claimDuePages('r1', T0 + 2_000, 10_000, 10)).pages;
      assert.deepEqual(claimed?.personalSteps?.map((st) => st.rule), [1, 2], 'the steps came back with the row');
      const other = replicas ? await again() : restarted;
      assert.deepEqual((await other.oncall.claimDuePages('r2', T0 + 2_001, 10_000, 10)).pages, [], 'held by r1');
      const fired = planTimer(claimed, T0 + 2_000, withRules) as PagePlan;
      assert.deepEqual(await restarted.oncall.applyPagePlan(fired, T0 + 2_000), { ok: true });
      assert.deepEqual(await other.oncall.applyPagePlan(fired, T0 + 2_000), { ok: false, reason: 'conflict' }, 'a second firing is fenced');
      const notified = (await restarted.oncall.pageTimeline(plan.page.id)).filter((r) => r.kind === 'page.notified')
        .map((r) => JSON.parse(r.dataText ?? 'null') as { rule?: number; deliveryId: string });
      assert.deepEqual(notified.map((r) => [r.deliveryId, r.rule]), [[`${plan.page.id}.1.alice.dm`, undefined], [`${plan.page.id}.2.alice.sms`, 1]]);
      const page = await restarted.oncall.getPage(plan.page.id) as PageRecord;
      await restarted.oncall.applyPagePlan(must(planAck(page, cli, null, T0 + 3_000)), T0 + 3_000);
      const acked = await restarted.oncall.getPage(plan.page.id) as PageRecord;
      assert.equal(acked.personalSteps, undefined);
      assert.deepEqual((await other.oncall.claimDuePages('r2', T0 + 99 * MIN, 10_000, 10)).pages, [], 'the ack took the step to come with it');
    });

    it('a delivery of alerts already on the open page is a repeat (§24.4): page.repeated, no notification, the page remembers its alerts', async () => {
      const store = await open();
      n += 1;
      const plan = planOpen({ pageId: `ptest${String(n).padStart(6, '0')}`, agentId: 'agent-a', incidentKey: 'k-repeat', policy, policySha256: 'abc',
        nowMs: T0, resolve, event: { id: `event-${n}`, title: 'Disk full', severity: 'P1', alertIds: ['fp1@2026-01-01T00:00:00Z'] } });
      await store.oncall.applyPagePlan(plan, T0);
      const stored = await store.oncall.getPage(plan.page.id) as PageRecord;
      assert.deepEqual(stored.alertIds, ['fp1@2026-01-01T00:00:00Z']);
      const repeat = planJoin(stored, { id: 'e-repeat', title: 'Disk full', severity: 'P1', alertIds: ['fp1@2026-01-01T00:00:00Z'] }, T0 + 4 * 60 * MIN,
        resolve) as PagePlan;
      assert.deepEqual(await store.oncall.applyPagePlan(repeat, T0 + 4 * 60 * MIN), { ok: true });
      assert.deepEqual((await store.oncall.pageTimeline(plan.page.id)).map((r) => r.kind), ['page.opened', 'page.notified', 'page.repeated']);
      const [first] = (await store.oncall.claimNotifications('r1', T0 + 4 * 60 * MIN, 30_000, 10)).claimed;
      assert.equal(first?.notification.deliveryId, `${plan.page.id}.1.alice.dm`);
      assert.deepEqual((await store.oncall.claimNotifications('r1', T0 + 4 * 60 * MIN, 30_000, 10)).claimed, [], 'the opening notice only: the repeat sent nothing');
    });

    it('a schedule handoff timer moves once from the due time it was planned from, however many replicas race', async () => {
      const store = await open();
      const first = { agentId: 'agent-a', scheduleId: 'primary', expectedNextMs: undefined, nextMs: T0 + MIN, audit: [], notifications: [] };
      assert.equal(await store.oncall.applyHandoffPlan(first, T0), true);
      assert.equal(await store.oncall.applyHandoffPlan({ ...first, nextMs: T0 + 5 }, T0), false, 'first sight happens once');
      const told = (i: number) => ({ agentId: 'agent-a', scheduleId: 'primary', expectedNextMs: T0 + MIN, nextMs: T0 + 2 * MIN,
        audit: [{ kind: 'schedule.handoff', actor: 'agent:agent-a', agentId: 'agent-a', data: { schedule: 'primary', replica: i } }],
        notifications: [{ deliveryId: `handoff.primary.${T0 + MIN}.bob.dm.${i}`, pageId: null, agentId: 'agent-a', kind: 'handoff' as const, eventId: 'h',
          channelId: 'dm', person: 'bob', to: 'bob', severity: 'P3' as const, status: 'firing' as const, title: 'On call: primary', text: 'x' }] });
      const handles = replicas ? [store, await again(), await again(), await again()] : [store, store, store, store];
      const won = await Promise.all(handles.map((h, i) => h.oncall.applyHandoffPlan(told(i), T0 + MIN)));
      assert.equal(won.filter((w) => w).length, 1, `exactly one replica tells the handoff: ${JSON.stringify(won)}`);
      assert.equal((await store.listAudit(q(), { kind: 'schedule.handoff' })).items.length, 1);
      assert.equal(((await store.oncall.claimNotifications('r', T0 + MIN, 1000, 10)).claimed).length, 1);
      assert.deepEqual(await store.oncall.listHandoffs(), [{ agentId: 'agent-a', scheduleId: 'primary', nextMs: T0 + 2 * MIN }]);
    });

    it('a key is claimed once while its claim holds, on every replica; again once it has passed (a replayed request, issue 33)', async () => {
      const store = await open();
      const other = replicas ? await again() : store;
      assert.equal(await store.oncall.claimOnce('slack:s1:abc', T0 + 300_000, T0), true);
      assert.equal(await other.oncall.claimOnce('slack:s1:abc', T0 + 300_000, T0 + 1), false, 'the same request again');
      assert.equal(await other.oncall.claimOnce('slack:s1:abd', T0 + 300_000, T0 + 1), true, 'another request');
      const together = await Promise.all([store, other, store, other].map((s) => s.oncall.claimOnce('slack:s1:race', T0 + 300_000, T0 + 2)));
      assert.deepEqual(together.filter((x) => x).length, 1, 'claimed at once from several places: one wins');
      assert.equal(await store.oncall.claimOnce('slack:s1:abc', T0 + 600_000, T0 + 300_000), true, 'its claim passed');
    });

    it('overrides, silences and heartbeats: added, listed, removed or expired, audited', async () => {
      const store = await open();
      await store.oncall.addOverride({ id: 'o1', agentId: 'agent-a', scheduleId: 'primary', personId: 'bob', fromMs: T0, toMs: T0 + MIN,
        createdAtMs: T0, createdBy: 'cli:test' }, T0);
      assert.deepEqual((await store.oncall.listOverrides('agent-a', T0)).map((o) => o.id), ['o1']);
      assert.equal((await store.oncall.removeOverride('o1', 'cli:test', T0))?.personId, 'bob');
      assert.equal(await store.oncall.removeOverride('o1', 'cli:test', T0), null);
      await store.oncall.addSilence({ id: 's1', agentId: null, matchers: [{ label: 'alertname', op: '=', value: 'Disk' }], startsAtMs: T0,
        endsAtMs: T0 + MIN, reason: 'maintenance', createdBy: 'cli:test' }, T0);
      assert.equal((await store.oncall.listSilences(T0))[0]?.expiredAtMs, null);
      assert.equal((await store.oncall.expireSilence('s1', 'cli:test', T0 + 10))?.endsAtMs, T0 + 10);
      assert.equal(await store.oncall.expireSilence('nope', 'cli:test', T0 + 10), null);
      await store.oncall.touchHeartbeats('agent-a', ['watchdog'], T0 + 5);
      await store.oncall.touchHeartbeats('agent-a', ['watchdog'], T0 + 3);
      assert.deepEqual(await store.oncall.listHeartbeats(), [{ agentId: 'agent-a', heartbeatId: 'watchdog', lastSeenMs: T0 + 5 }]);
      const kinds = (await store.listAudit(q({ limit: 100, order: 'asc' }), {})).items.map((r) => r.kind);
      assert.deepEqual(kinds, ['schedule.override.added', 'schedule.override.removed', 'silence.created', 'silence.expired']);
    });

    it('through a console as a person (§24.6): each override and silence row says via console and by whom; without one, neither', async () => {
      const store = await open();
      const asAlice = { via: 'console' as const, by: 'alice' };
      await store.oncall.addOverride({ id: 'o2', agentId: 'agent-a', scheduleId: 'primary', personId: 'bob', fromMs: T0, toMs: T0 + MIN,
        createdAtMs: T0, createdBy: 'user:alice@example.com' }, T0, asAlice);
      await store.oncall.removeOverride('o2', 'user:alice@example.com', T0, asAlice);
      await store.oncall.addSilence({ id: 's2', agentId: null, matchers: [{ label: 'alertname', op: '=', value: 'Disk' }], startsAtMs: T0,
        endsAtMs: T0 + MIN, reason: 'maintenance', createdBy: 'local:root' }, T0, asAlice);
      await store.oncall.expireSilence('s2', 'local:root', T0 + 10, 'console');
      const rows = (await store.listAudit(q({ limit: 100, order: 'asc' }), {})).items.map((r) => {
        const data = JSON.parse(r.dataText ?? '{}') as { via?: string; by?: string };
        return [r.kind, r.actor, data.via, data.by];
      });
      assert.deepEqual(rows, [
        ['schedule.override.added', 'user:alice@example.com', 'console', 'alice'],
        ['schedule.override.removed', 'user:alice@example.com', 'console', 'alice'],
        ['silence.created', 'local:root', 'console', 'alice'],
        ['silence.expired', 'local:root', 'console', undefined],
      ]);
    });

    it('an override that changes who is on call now commits with its handoff notice; a removal of none writes neither (§17.6)', async () => {
      const store = await open();
      const notice = (person: string, change: string) => ({
        audit: [{ kind: 'schedule.handoff', actor: 'agent:agent-a', agentId: 'agent-a', data: { schedule: 'primary', person, change } }],
        notifications: [{ deliveryId: `handoff.primary.${change}.${person}.dm`, pageId: null, agentId: 'agent-a', kind: 'handoff' as const,
          eventId: 'h', channelId: 'dm', person, to: person, severity: 'P3' as const, status: 'firing' as const, title: 'On call: primary', text: 'x' }] });
      await store.oncall.addOverride({ id: 'o9', agentId: 'agent-a', scheduleId: 'primary', personId: 'bob', fromMs: T0 - 5000, toMs: T0 + MIN,
        createdAtMs: T0, createdBy: 'cli:test' }, T0, undefined, notice('bob', 'o9-add'));
      assert.equal(await store.oncall.removeOverride('nope', 'cli:test', T0 + 1, undefined, notice('alice', 'nope-rm')), null);
      assert.equal((await store.oncall.removeOverride('o9', 'cli:test', T0 + 2, undefined, notice('alice', 'o9-rm')))?.id, 'o9');
      const rows = (await store.listAudit(q({ order: 'asc' }), {})).items.filter((r) => r.kind.startsWith('schedule.'));
      assert.deepEqual(rows.map((r) => [r.kind, (JSON.parse(r.dataText ?? '{}') as { person?: string }).person]), [
        ['schedule.override.added', 'bob'], ['schedule.handoff', 'bob'], ['schedule.override.removed', 'bob'], ['schedule.handoff', 'alice']]);
      assert.deepEqual(rows.map((r) => r.seq - (rows[0]?.seq ?? 0)), [0, 1, 2, 3], 'each notice right after its override row');
      const claimed = (await store.oncall.claimNotifications('r', T0 + 3, 1000, 10)).claimed;
      assert.deepEqual(claimed.map((c) => c.notification.deliveryId).sort(), ['handoff.primary.o9-add.bob.dm', 'handoff.primary.o9-rm.alice.dm']);
    });
  });

  describe(`${name}: a row that cannot be decoded is set aside; one page's sends to a channel go in order`, () => {
    const kinds = async (store: Store, kind: string) => (await store.listAudit(q({ order: 'asc' }), { kind })).items
      .map((r) => JSON.parse(r.dataText ?? 'null') as Record<string, unknown>);

    it('a due page whose body was cut short: the rest of the batch is claimed, it is quarantined once, listed corrupt, its key freed', async () => {
      const store = await open();
      const plans = ['q-1', 'q-2', 'q-3'].map((k) => openPlan(k));
      for (const p of plans) assert.deepEqual(await store.oncall.applyPagePlan(p, T0), { ok: true });
      const bad = plans[1]!.page;
      const body = JSON.stringify(bad);
      await damage('pages', bad.id, body.slice(0, Math.floor(body.length / 2)));
      const claim = await store.oncall.claimDuePages('r1', T0 + MIN, 10_000, 10);
      assert.deepEqual(claim.pages.map((p) => p.id).sort(), [plans[0]!.page.id, plans[2]!.page.id].sort(), 'the readable ones fire');
      assert.deepEqual(claim.quarantined, [{ kind: 'page', id: bad.id, agentId: 'agent-a', pageId: bad.id,
        reason: `body is not JSON (${Math.floor(body.length / 2)} characters)` }]);
      const other = replicas ? await again() : store;
      assert.deepEqual(await other.oncall.claimDuePages('r2', T0 + MIN + 1, 10_000, 10), { pages: [], quarantined: [] },
        'the damaged one is never handed out again (the readable ones are r1\'s until their lease ends)');
      assert.deepEqual(await kinds(store, 'page.quarantined'), [{ pageId: bad.id, reason: claim.quarantined[0]?.reason }], 'audited once, no body in it');
      assert.deepEqual((await store.oncall.pageTimeline(bad.id)).map((r) => r.kind), ['page.opened', 'page.notified', 'page.quarantined']);
      const stored = await store.oncall.getPage(bad.id);
      assert.ok(stored !== null && isDamagedPage(stored), 'read back as damaged, not thrown');
      assert.deepEqual({ ...stored, reason: '' }, { corrupt: true, id: bad.id, agentId: 'agent-a', incidentKey: 'q-2', state: 'resolved',
        policy: 'default', openedAtMs: T0, reason: '' }, 'what its columns say; set aside, it counts as closed');
      const listed = (await store.oncall.listPages(q(), {})).items;
      assert.equal(listed.length, 3, 'listed with the others');
      assert.equal(listed.filter((p) => isDamagedPage(p)).length, 1);
      assert.equal(await store.oncall.quarantinePage(bad.id, T0 + 2 * MIN), null, 'set aside once');
      assert.deepEqual(await store.oncall.applyPagePlan(openPlan('q-2', T0 + 2 * MIN), T0 + 2 * MIN), { ok: true }, 'its incident key opens a new page');
      assert.equal((await store.verifyAudit()).ok, true);
    });

    it('a damaged page found by its incident key (no timer due) is set aside on request; a body of another page is damage too', async () => {
      const store = await open();
      const a = openPlan('k-found');
      const b = openPlan('k-other');
      await store.oncall.applyPagePlan(a, T0);
      await store.oncall.applyPagePlan(b, T0);
      await damage('pages', a.page.id, JSON.stringify(b.page));
      const found = await store.oncall.findPage('agent-a', 'k-found');
      assert.ok(found !== null && isDamagedPage(found));
      assert.match(found.reason, /another page/);
      assert.deepEqual(await store.oncall.applyPagePlan(openPlan('k-found'), T0 + 1), { ok: false, reason: 'conflict' }, 'open: the key is taken');
      const q1 = await store.oncall.quarantinePage(a.page.id, T0 + 2);
      assert.equal(q1?.id, a.page.id);
      assert.equal(await store.oncall.quarantinePage(b.page.id, T0 + 2), null, 'a readable page is not set aside');
      assert.deepEqual(await store.oncall.applyPagePlan(openPlan('k-found'), T0 + 3), { ok: true }, 'set aside: the key is free');
      assert.deepEqual(await store.oncall.getPage(b.page.id), b.page, 'the page whose body it held is untouched');
    });

    it('an outbox row whose body is not a notification: given up, audited on its page, never handed out; the batch goes on', async () => {
      const store = await open();
      const plans = ['n-1', 'n-2', 'n-3'].map((k) => openPlan(k));
      for (const p of plans) await store.oncall.applyPagePlan(p, T0);
      const badId = plans[1]!.notifications[0]!.deliveryId;
      await damage('page_notifications', badId, '{"deliveryId":');
      const claim = await store.oncall.claimNotifications('r1', T0 + 1, 30_000, 10);
      assert.deepEqual(claim.claimed.map((c) => c.notification.deliveryId).sort(),
        [plans[0]!.notifications[0]!.deliveryId, plans[2]!.notifications[0]!.deliveryId].sort());
      assert.deepEqual(claim.quarantined, [{ kind: 'notification', id: badId, agentId: 'agent-a', pageId: plans[1]!.page.id,
        reason: 'body is not JSON (14 characters)' }]);
      const other = replicas ? await again() : store;
      assert.deepEqual(await other.oncall.claimNotifications('r2', T0 + 2, 30_000, 10), { claimed: [], quarantined: [] },
        'given up: never handed out again (the others are r1\'s)');
      assert.deepEqual(await kinds(store, 'notification.quarantined'), [{ deliveryId: badId, pageId: plans[1]!.page.id, reason: claim.quarantined[0]?.reason }]);
      assert.deepEqual((await store.oncall.pageTimeline(plans[1]!.page.id)).map((r) => r.kind), ['page.opened', 'page.notified', 'notification.quarantined']);
    });

    it('a page\'s later message to a channel waits until its earlier one there is delivered or given up; to another channel it goes', async () => {
      const store = await open();
      const twoChannels: ResolveTargets = (targets) => ({ nobodyOnCall: [],
        recipients: targets.flatMap((t) => [{ person: t.id, channel: 'dm', to: t.id }, { person: t.id, channel: 'pd', to: t.id }]) });
      const opened = planOpen({ pageId: 'pordered00001', agentId: 'agent-a', incidentKey: 'ordered', policy, policySha256: 'abc', nowMs: T0,
        resolve: twoChannels, event: { id: 'e-ordered', title: 'Disk full', severity: 'P1' } });
      await store.oncall.applyPagePlan(opened, T0);
      const id = (round: number, channel: string): string => `pordered00001.${round}.alice.${channel}`;
      const ids = (c: { claimed: ClaimedNotification[] }): string[] => c.claimed.map((x) => x.notification.deliveryId).sort();
      // Round 1 to dm is under way (claimed); round 1 to pd fails and waits for its retry.
      const first = (await store.oncall.claimNotifications('r1', T0 + 1, 30_000, 10)).claimed;
      assert.deepEqual(first.map((c) => c.notification.deliveryId).sort(), [id(1, 'dm'), id(1, 'pd')]);
      const attemptOf = (channel: string): number => first.find((c) => c.notification.channelId === channel)?.attempt ?? 0;
      assert.equal(await store.oncall.finishNotifications([{ deliveryId: id(1, 'pd'), owner: 'r1', attempt: attemptOf('pd'), outcome: 'retry',
        retryAtMs: T0 + 10 * MIN, error: 'channel pd: HTTP 503', audit: [] }], T0 + 2), 1);
      // Round 2: another alert joins (the page stays triggered: round 1 is still true, and still to be sent).
      const joined = planJoin(opened.page, { id: 'e-ordered-2', title: 'Disk full', severity: 'P1' }, T0 + 3, twoChannels) as PagePlan;
      await store.oncall.applyPagePlan(joined, T0 + 3);
      const other = replicas ? await again() : store;
      assert.deepEqual(await other.oncall.claimNotifications('r2', T0 + 4, 30_000, 10), { claimed: [], quarantined: [] },
        'round 2 waits on both channels: dm\'s round 1 is under way, pd\'s waits for its retry');
      assert.equal(await store.oncall.finishNotifications([{ deliveryId: id(1, 'dm'), owner: 'r1', attempt: attemptOf('dm'), outcome: 'delivered',
        audit: [] }], T0 + 5), 1);
      const dm2 = await other.oncall.claimNotifications('r2', T0 + 6, 30_000, 10);
      assert.deepEqual(ids(dm2), [id(2, 'dm')], 'dm\'s round 1 delivered: its round 2 goes; pd\'s still waits');
      assert.equal(await other.oncall.finishNotifications([{ deliveryId: id(2, 'dm'), owner: 'r2', attempt: 1, outcome: 'delivered', audit: [] }], T0 + 7), 1);
      // pd's round 1 is due again and handed out; its round 2 waits until that one is given up.
      const pd1 = await other.oncall.claimNotifications('r2', T0 + 10 * MIN, 30_000, 10);
      assert.deepEqual(ids(pd1), [id(1, 'pd')]);
      assert.deepEqual(await store.oncall.claimNotifications('r1', T0 + 10 * MIN + 1, 30_000, 10), { claimed: [], quarantined: [] });
      assert.equal(await other.oncall.finishNotifications([{ deliveryId: id(1, 'pd'), owner: 'r2', attempt: pd1.claimed[0]!.attempt, outcome: 'failed',
        error: 'channel pd: HTTP 400', audit: [] }], T0 + 10 * MIN + 2), 1);
      assert.deepEqual(ids(await store.oncall.claimNotifications('r1', T0 + 10 * MIN + 3, 30_000, 10)), [id(2, 'pd')], 'given up: round 2 goes');
    });

    it('a claim gives no channel more than the sender\'s room for it: the rest wait where they are, the other channels\' rows behind them go', async () => {
      const store = await open();
      const twoChannels: ResolveTargets = (targets) => ({ nobodyOnCall: [],
        recipients: targets.flatMap((t) => [{ person: t.id, channel: 'pd', to: t.id }, { person: t.id, channel: 'dm', to: t.id }]) });
      const pages = [1, 2, 3].map((i) => planOpen({ pageId: `pbusy0000000${i}`, agentId: 'agent-a', incidentKey: `busy-${i}`, policy, policySha256: 'abc',
        nowMs: T0, resolve: twoChannels, event: { id: `e-busy-${i}`, title: 'Disk full', severity: 'P1' } }));
      for (const p of pages) await store.oncall.applyPagePlan(p, T0);
      // pd has one send under way already; room for two per channel.
      const claim = await store.oncall.claimNotifications('r1', T0 + 1, 30_000, 3, { max: 2, busy: [{ agentId: 'agent-a', channelId: 'pd', count: 1 }] });
      assert.deepEqual(claim.claimed.map((c) => c.notification.deliveryId), [`${pages[0]!.page.id}.1.alice.pd`, `${pages[0]!.page.id}.1.alice.dm`,
        `${pages[1]!.page.id}.1.alice.dm`], 'one more to pd, then dm, read past the pd rows in front of them');
      const other = replicas ? await again() : store;
      assert.deepEqual((await other.oncall.claimNotifications('r2', T0 + 2, 30_000, 10)).claimed.map((c) => c.notification.deliveryId).sort(),
        [`${pages[1]!.page.id}.1.alice.pd`, `${pages[2]!.page.id}.1.alice.dm`, `${pages[2]!.page.id}.1.alice.pd`].sort(),
        'the rest were left as they were, for a sender that has room');
    });

    it('PagerDuty never gets resolve before trigger: a resolve notice waits while the page\'s opening is still being sent', async () => {
      const store = await open();
      const plan = openPlan('k-pd');
      await store.oncall.applyPagePlan(plan, T0, { owner: 'r1', leaseMs: 30_000 });
      const resolved = must(planResolve(plan.page, cli, null, null, T0 + 1));
      await store.oncall.applyPagePlan(resolved, T0 + 1);
      const other = replicas ? await again() : store;
      assert.deepEqual(await other.oncall.claimNotifications('r2', T0 + 2, 30_000, 10), { claimed: [], quarantined: [] },
        'the opening (stale now, but in flight on r1) holds the resolve back');
      assert.equal(await store.oncall.finishNotifications([{ deliveryId: plan.notifications[0]!.deliveryId, owner: 'r1', attempt: 1,
        outcome: 'delivered', audit: [] }], T0 + 3), 1);
      assert.deepEqual((await other.oncall.claimNotifications('r2', T0 + 4, 30_000, 10)).claimed.map((c) => c.notification.kind), ['resolved']);
    });

    it('the last look, held: an acknowledgement of the page commits only once the send under its look is released', async () => {
      const store = await open();
      const plan = openPlan('k-fence');
      const applied = await store.oncall.applyPagePlan(plan, T0, { owner: 'r1', leaseMs: 30_000 });
      assert.ok(applied.ok && applied.claimed?.length === 1);
      const ref = { deliveryId: plan.notifications[0]!.deliveryId, pageId: plan.page.id, owner: 'r1', attempt: 1 };
      const hold = await store.oncall.holdSend(ref, T0 + 1);
      assert.equal(hold.check, 'send');
      const other = replicas ? await again() : store;
      let acked = false;
      const ack = other.oncall.applyPagePlan(must(planAck(plan.page, cli, null, T0 + 2)), T0 + 2).then((r) => { acked = true; return r; });
      // What the wire carries while the look is held: the page is still triggered, for every reader.
      for (let i = 0; i < 5; i++) assert.equal((await other.oncall.getPage(plan.page.id) as PageRecord).state, 'triggered');
      assert.equal(acked, false, 'the ack has not committed');
      if (hold.check === 'send') await hold.release();
      assert.deepEqual(await ack, { ok: true });
      assert.equal((await store.oncall.getPage(plan.page.id) as PageRecord).state, 'acknowledged');
      assert.equal(await lastLook(store, ref, T0 + 3), 'cancelled', 'a look after the ack stops the escalation');
    });
  });

  describe(`${name}: a resolve that overtook its firing in triage wins (§17.3)`, () => {
    const firing = async (store: Store, nowMs: number, status = 'firing'): Promise<string> => {
      const r = await store.ingestEvent({ agentId: 'agent-a', sourceId: 'am', kind: 'alert', fingerprint: null,
        payloadText: JSON.stringify({ status, groupKey: 'g', n: nowMs }) }, nowMs);
      return r.outcome === 'accepted' ? r.event.id : assert.fail('accepted');
    };
    const guarded = (plan: PagePlan, eventId: string): PagePlan => ({ ...plan, firingEventId: eventId });

    it('a plan for a firing received before a noted resolve of its key writes nothing (superseded); one received after it pages', async () => {
      const store = await open();
      const other = replicas ? await again() : store;
      const [early, late, resolved, fresh] = [await firing(store, T0), await firing(store, T0 + 1), await firing(store, T0 + 2, 'resolved'),
        await firing(store, T0 + 3)];
      // The resolve is noted on one replica, the firings' plans come from another.
      await store.oncall.noteResolve('agent-a', 'k-order', resolved, T0 + 10);
      await store.oncall.noteResolve('agent-a', 'k-order', early, T0 + 11);
      const head = await store.auditHead();
      for (const eventId of [early, late]) {
        assert.deepEqual(await other.oncall.applyPagePlan(guarded(openPlan('k-order', T0 + 20), eventId), T0 + 20),
          { ok: false, reason: 'superseded', resolvedBy: resolved }, 'the later resolve is kept: an older one noted after it changes nothing');
      }
      assert.deepEqual(await store.auditHead(), head, 'nothing written');
      assert.equal(await store.oncall.findPage('agent-a', 'k-order'), null);
      assert.deepEqual(await other.oncall.applyPagePlan(guarded(openPlan('k-order-other', T0 + 20), early), T0 + 20), { ok: true },
        'another key\'s resolve is not this one\'s');

      const opened = guarded(openPlan('k-order', T0 + 30), fresh);
      assert.deepEqual(await other.oncall.applyPagePlan(opened, T0 + 30), { ok: true }, 'a firing received after the resolve pages');
      const join = planJoin(opened.page, { id: late, title: 'Disk full', severity: 'P1' }, T0 + 31, resolve) as PagePlan;
      assert.deepEqual(await store.oncall.applyPagePlan(guarded(join, late), T0 + 31), { ok: false, reason: 'superseded', resolvedBy: resolved },
        'nor does it join the new page');
      assert.deepEqual((await store.oncall.getPage(opened.page.id) as PageRecord | null)?.eventIds, [opened.page.eventIds[0]]);
    });

    it('a noted resolve goes with the events it orders (retention)', async () => {
      const store = await open();
      const early = await firing(store, T0);
      const resolved = await firing(store, T0 + 1, 'resolved');
      await store.oncall.noteResolve('agent-a', 'k-kept', resolved, T0 + 2);
      await store.prune({ eventsBeforeMs: T0 + 2, deadLettersBeforeMs: null, fingerprintsBeforeMs: null, batch: 100 });
      assert.equal((await store.oncall.applyPagePlan(guarded(openPlan('k-kept'), early), T0 + 3)).ok, false, 'kept while younger than retention');
      await store.prune({ eventsBeforeMs: T0 + 3, deadLettersBeforeMs: null, fingerprintsBeforeMs: null, batch: 100 });
      assert.deepEqual(await store.oncall.applyPagePlan(guarded(openPlan('k-kept'), early), T0 + 4), { ok: true });
    });
  });

  describe(`${name}: silenced events are stored suppressed (§17.8)`, () => {
    const alerts = (status: string, ...names: string[]): string =>
      JSON.stringify({ status, alerts: names.map((alertname) => ({ status, labels: { alertname, instance: 'db-1' } })) });
    const ingest = async (store: Store, payloadText: string, nowMs: number, agentId = 'agent-a') => {
      const r = await store.ingestEvent({ agentId, sourceId: 'am', kind: 'alert', fingerprint: null, payloadText }, nowMs);
      assert.equal(r.outcome, 'accepted');
      return r.outcome === 'accepted' ? r.event : assert.fail('accepted');
    };

    it('every alert under a live silence: status suppressed, an event.suppressed row, never claimed, not in the backlog; the rest pass', async () => {
      const store = await open();
      await store.oncall.addSilence({ id: 's-disk', agentId: null, matchers: [{ label: 'alertname', op: '=~', value: 'Disk.*' }], startsAtMs: T0,
        endsAtMs: T0 + 60 * MIN, reason: 'swap', createdBy: 'cli:test' }, T0);
      await store.oncall.addSilence({ id: 's-b', agentId: 'agent-b', matchers: [{ label: 'alertname', op: '=', value: 'Cpu' }], startsAtMs: T0,
        endsAtMs: T0 + 60 * MIN, reason: 'b only', createdBy: 'cli:test' }, T0);
      const quiet = await ingest(store, alerts('firing', 'DiskFull', 'DiskSlow'), T0 + 1);
      const mixed = await ingest(store, alerts('firing', 'DiskFull', 'Cpu'), T0 + 2);
      const resolved = await ingest(store, alerts('resolved', 'DiskFull'), T0 + 3);
      const otherAgent = await ingest(store, alerts('firing', 'Cpu'), T0 + 4, 'agent-a');
      const agentB = await ingest(store, alerts('firing', 'Cpu'), T0 + 5, 'agent-b');
      const afterEnd = await ingest(store, alerts('firing', 'DiskFull'), T0 + 60 * MIN);
      assert.deepEqual([quiet, mixed, resolved, otherAgent, agentB, afterEnd].map((e) => e.status),
        ['suppressed', 'accepted', 'accepted', 'accepted', 'suppressed', 'accepted']);

      const rows = (await store.listAudit(q({ order: 'asc' }), { kind: 'event.suppressed' })).items;
      assert.deepEqual(rows.map((r) => [r.agentId, JSON.parse(r.dataText ?? 'null')]),
        [['agent-a', { eventId: quiet.id, silenceIds: ['s-disk'] }], ['agent-b', { eventId: agentB.id, silenceIds: ['s-b'] }]]);
      assert.deepEqual((await store.eventStory(quiet.id)).map((r) => r.kind), ['event.accepted', 'event.suppressed']);

      const listed = (await store.listEvents(q({ order: 'asc' }), { status: 'suppressed' })).items.map((e) => e.id);
      assert.deepEqual(listed, [quiet.id, agentB.id]);
      assert.equal((await store.getEvent(quiet.id))?.status, 'suppressed');
      const claimed = await store.claimEvents({ owner: 'w', agentId: 'agent-a', limit: 100, maxBytes: 1 << 30, leaseMs: MIN, nowMs: T0 + 61 * MIN });
      assert.deepEqual(claimed.map((c) => c.event.id), [mixed.id, resolved.id, otherAgent.id, afterEnd.id]);
      assert.deepEqual(await store.claimEvents({ owner: 'w', agentId: 'agent-b', limit: 100, maxBytes: 1 << 30, leaseMs: MIN, nowMs: T0 + 61 * MIN }), []);
      const backlog = (await store.backlog()).map((b) => [b.agentId, b.count]).sort();
      assert.deepEqual(backlog, [['agent-a', 4]]);
    });

    it('a pattern is matched in linear time (issue 33.1): a 2,000-dash label under .*-.*-.*-.*-prod; a stored pattern RE2 refuses matches nothing', async () => {
      const store = await open();
      // JavaScript's backtracking RegExp took hours here (O(n⁴)), with the store's writer busy all along.
      await store.oncall.addSilence({ id: 's-dash', agentId: null, matchers: [{ label: 'host', op: '=~', value: '.*-.*-.*-.*-prod' }], startsAtMs: T0,
        endsAtMs: T0 + 60 * MIN, reason: 'prod hosts', createdBy: 'cli:test' }, T0);
      // Stored before patterns were RE2: JavaScript's lookahead, which RE2 refuses.
      await store.oncall.addSilence({ id: 's-old', agentId: null, matchers: [{ label: 'host', op: '=~', value: 'db(?=-eu)' }], startsAtMs: T0,
        endsAtMs: T0 + 60 * MIN, reason: 'old syntax', createdBy: 'cli:test' }, T0);
      const host = (value: string): string => JSON.stringify({ status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'Down', host: value } }] });
      const hostile = await ingest(store, host('-'.repeat(2000)), T0 + 1);
      const bounded = await ingest(store, host('-'.repeat(256)), T0 + 2);
      const old = await ingest(store, host('db'), T0 + 3);
      const prod = await ingest(store, host('db-1-eu-west-prod'), T0 + 4);
      assert.deepEqual([hostile.status, bounded.status, old.status, prod.status], ['accepted', 'accepted', 'accepted', 'suppressed']);
    });

    it('an expired silence suppresses nothing; retention deletes suppressed events like finished ones', async () => {
      const store = await open();
      await store.oncall.addSilence({ id: 's1', agentId: null, matchers: [{ label: 'instance', op: '=', value: 'db-1' }], startsAtMs: T0,
        endsAtMs: T0 + 60 * MIN, reason: 'swap', createdBy: 'cli:test' }, T0);
      const quiet = await ingest(store, alerts('firing', 'DiskFull'), T0 + 1);
      await store.oncall.expireSilence('s1', 'cli:test', T0 + 2);
      const loud = await ingest(store, alerts('firing', 'DiskFull'), T0 + 3);
      assert.deepEqual([quiet.status, loud.status], ['suppressed', 'accepted']);
      const pruned = await store.prune({ eventsBeforeMs: T0 + 10, deadLettersBeforeMs: null, fingerprintsBeforeMs: null, batch: 100 });
      assert.deepEqual(pruned, { events: 1, deadLetters: 0, fingerprints: 0 }, 'the suppressed one; the accepted one waits for dispatch');
      assert.equal(await store.getEvent(quiet.id), null);
      assert.equal((await store.getEvent(loud.id))?.status, 'accepted');
    });
  });
}
