import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Target } from './oncall-config.js';
import type { PageRecord } from './page.js';
import { dueAtMs, isStaleNotification } from './page.js';
import type { ResolveTargets } from './page-plan.js';
import { planAck, planEscalate, planJoin, planNotifyOnce, planResolve, planTimer, planUnack } from './page-plan.js';
import { personalStepsView } from './personal-steps.js';
import { STATUS_UPDATE_KINDS } from '../report/page-facts.js';
import { isStatusUpdate } from '../runtime/channels/channel.js';
import { MIN, cli, event, harness, people, policy, route, slow } from '../../test/support/page-harness.js';

const ruleRows = (p: { audit: { kind: string; data: Record<string, unknown> }[] } | null | undefined): unknown[] =>
  (p?.audit ?? []).filter((a) => a.kind === 'page.notified').map((a) => [a.data.person, a.data.channel, a.data.rule, a.data.deliveryId]);

describe('personal notification rules (§21.1) in the page planner, on fake time', () => {
  it('a round sends only the first rule; each later rule is a step of the page, its own round with page.notified naming the rule', () => {
    const h = harness(slow, people);
    assert.deepEqual(h.sent(), ['p0000test.1.alice.push', 'p0000test.1.alice.slack']);
    assert.deepEqual(h.page.personalSteps?.map((s) => [s.person, s.rule, s.atMs - h.page.openedAtMs, s.contacts]),
      [['alice', 1, 2 * MIN, [{ channel: 'sms', to: 'alice@sms' }]], ['alice', 2, 5 * MIN, [{ channel: 'phone', to: 'alice@phone' }]]]);
    assert.equal(dueAtMs(h.page), h.page.openedAtMs + 2 * MIN, 'the first personal step is the page\'s due time');
    h.runTimers(2 * MIN - 1);
    assert.equal(h.plans.length, 1, 'nothing before its time');
    h.runTimers(1);
    assert.deepEqual(ruleRows(h.plans.at(-1)), [['alice', 'sms', 1, 'p0000test.2.alice.sms']]);
    const n = h.plans.at(-1)?.notifications[0];
    assert.deepEqual([n?.kind, n?.rule, n?.to], ['escalation', 1, 'alice@sms']);
    // The step says again what the round that named her said, with who is paged as of now (§24.1).
    const opening = (h.plans[0]?.notifications[0]?.text ?? '').split('\n');
    assert.deepEqual((n?.text ?? '').split('\n').slice(0, 2), opening.slice(0, 2));
    assert.match(n?.text ?? '', /next: carol at 03:10 UTC \(in 8m\)/);
    h.runTimers(3 * MIN);
    assert.deepEqual(ruleRows(h.plans.at(-1)), [['alice', 'phone', 2, 'p0000test.3.alice.phone']]);
    assert.equal(h.page.personalSteps, undefined, 'no step left');
    assert.equal(dueAtMs(h.page), h.page.openedAtMs + 10 * MIN, 'the policy\'s next step is due next');
  });

  it('an ack cancels the steps to come: nothing of them is planned, and their notices are stale like an escalation\'s', () => {
    const h = harness(slow, people);
    h.runTimers(3 * MIN); // rule 1 sent, rule 2 pending
    const acked = planAck(h.page, cli, null, h.clock.now(), route());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    assert.equal(h.page.personalSteps, undefined);
    assert.equal(dueAtMs(h.page), null);
    assert.equal(planTimer(h.page, h.clock.now() + 60 * MIN, people), null, 'a late claim of the old due time plans nothing');
    assert.equal(isStaleNotification('escalation', 'acknowledged'), true, 'the notifier\'s last look cancels an already planned step after the ack');
  });

  it('a resolve cancels the steps to come', () => {
    const h = harness(slow, people);
    const done = planResolve(h.page, cli, null, null, h.clock.now(), route());
    assert.ok(done.ok);
    h.apply(done.plan);
    assert.equal(h.page.personalSteps, undefined);
    assert.equal(dueAtMs(h.page), null);
  });

  it('a later round naming the same person restarts their rules (no duplicates pending)', () => {
    const h = harness(slow, people);
    h.runTimers(1 * MIN);
    const again = planEscalate(h.page, 1, cli, h.clock.now(), people);
    assert.ok(again.ok);
    h.apply(again.plan);
    assert.deepEqual(h.page.personalSteps?.map((s) => [s.rule, s.atMs - h.clock.now()]), [[1, 2 * MIN], [2, 5 * MIN]]);
  });

  it('an escalation keeps earlier people\'s pending rules until the ack', () => {
    const h = harness(policy({ steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 1 * MIN },
      { notify: [{ kind: 'person', id: 'carol' }], afterMs: 10 * MIN }] }), people);
    h.runTimers(1 * MIN);
    assert.deepEqual(h.plans.at(-1)?.notifications.map((n) => n.deliveryId), ['p0000test.2.carol.slack', 'p0000test.2.carol.mail'],
      'carol has no rules: every contact at once');
    assert.deepEqual(h.page.personalSteps?.map((s) => [s.person, s.rule]), [['alice', 1], ['alice', 2]]);
    h.runTimers(1 * MIN);
    assert.deepEqual(ruleRows(h.plans.at(-1)), [['alice', 'sms', 1, 'p0000test.3.alice.sms']]);
  });

  it('a join notice uses only the first rule and starts no timer; a notify: route uses only the first rule', () => {
    const h = harness(slow, people);
    const before = h.page.personalSteps;
    h.runTimers(MIN);
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), people));
    assert.deepEqual(h.plans.at(-1)?.notifications.map((n) => [n.deliveryId, n.kind]), [['p0000test.2.alice.push', 'join'], ['p0000test.2.alice.slack', 'join']]);
    assert.deepEqual(h.page.personalSteps, before, 'the steps to come are as they were');
    const once = planNotifyOnce('ops', { ...event('e9'), status: 'firing', text: 'disk' }, [{ kind: 'person', id: 'alice' }], 0, people);
    assert.deepEqual(once.notifications.map((n) => n.deliveryId), ['e9.notify.alice.push', 'e9.notify.alice.slack']);
  });

  it('the page\'s steps as GET /pages/<id> shows them: sent (one per round and person, with its channels) and to come', () => {
    const h = harness(slow, people);
    h.runTimers(2 * MIN);
    const iso = (ms: number): string => new Date(ms).toISOString();
    const timeline = h.plans.flatMap((p, i) => p.audit.map((a) => ({ ts: iso(h.page.openedAtMs + i), kind: a.kind, data: a.data })));
    assert.deepEqual(personalStepsView(h.page, timeline, iso), [
      { person: 'alice', rule: 1, channels: ['sms'], at: iso(h.page.openedAtMs + 1), state: 'sent' },
      { person: 'alice', rule: 2, channels: ['phone'], at: iso(h.page.openedAtMs + 5 * MIN), state: 'pending' },
    ]);
  });

  it('a step survives a restart: a stored row (JSON) fires it; a row stored before steps existed loads as before', () => {
    const h = harness(slow, people);
    const stored = JSON.parse(JSON.stringify(h.page)) as PageRecord;
    const fired = planTimer(stored, stored.openedAtMs + 2 * MIN, people);
    assert.deepEqual(ruleRows(fired), [['alice', 'sms', 1, 'p0000test.2.alice.sms']]);
    assert.equal(planTimer(fired?.page ?? stored, stored.openedAtMs + 2 * MIN, people), null, 'fired once: the next plan finds nothing due');
    const { personalSteps: _steps, alertIds: _alerts, ...old } = stored;
    assert.equal(dueAtMs(old), old.nextEscalationAtMs);
    assert.equal(planTimer(old, old.openedAtMs + MIN, people), null);
  });
});

describe('status updates (§21.1, §24.1): everyone notified hears the ack, the unack and the resolve', () => {
  it('on the contacts the page used, minus channels that ring; a listed statusUpdates wins; a follower always hears it', () => {
    const h = harness(slow, people);
    h.runTimers(1 * MIN);
    const up = planEscalate(h.page, 2, cli, h.clock.now(), people);
    assert.ok(up.ok);
    h.apply(up.plan);
    const acked = planAck(h.page, cli, null, h.clock.now(), route());
    assert.ok(acked.ok && acked.plan);
    assert.deepEqual(acked.plan.notifications.map((n) => [n.deliveryId, n.kind]),
      [['p0000test.3.alice.slack', 'acknowledged'], ['p0000test.3.carol.slack', 'acknowledged'], ['p0000test.3.carol.mail', 'acknowledged']],
      'alice\'s push rings: not told');
    h.apply(acked.plan);
    const un = planUnack(h.page, cli, h.clock.now(), people, route({ alice: ['push'], carol: [] }));
    assert.ok(un.ok && un.plan);
    assert.deepEqual(un.plan.notifications.map((n) => n.deliveryId), ['p0000test.4.alice.push'], 'listed: only these, a ringing one too');
    h.apply(un.plan);
    const done = planResolve(h.page, cli, null, null, h.clock.now(), route({ carol: ['mail'] }));
    assert.ok(done.ok && done.plan);
    assert.deepEqual(done.plan.notifications.map((n) => [n.deliveryId, n.status]),
      [['p0000test.5.alice.slack', 'resolved'], ['p0000test.5.carol.mail', 'resolved']]);
    assert.equal(done.plan.page.notified.length, 4, 'status updates notify nobody new (alice push and slack, carol slack and mail)');
  });

  it('a channel that follows the page state hears it even when the person listed other contacts; a channel target unless it rings', () => {
    const resolveWith = (extra: Target[]): ResolveTargets => (targets, at) => people([...targets, ...extra], at);
    const h = harness(slow, resolveWith([{ kind: 'channel', id: 'pd' }, { kind: 'channel', id: 'push' }, { kind: 'channel', id: 'room' }]));
    const acked = planAck(h.page, cli, null, h.clock.now(), route({ alice: ['sms'] }));
    assert.ok(acked.ok && acked.plan);
    assert.deepEqual(acked.plan.notifications.map((n) => n.deliveryId).sort(),
      ['p0000test.2.-.pd', 'p0000test.2.-.room', 'p0000test.2.alice.sms'].sort());
  });
});

describe('repeats are not news (§24.4)', () => {
  it('a delivery of alerts already on the page refreshes it without notifying anyone; a new alert joins and the count is of distinct alerts', () => {
    const h = harness(slow, people, event('e1', ['a@t1']));
    assert.deepEqual(h.page.alertIds, ['a@t1']);
    h.runTimers(3 * MIN);
    const repeat = planJoin(h.page, event('e2', ['a@t1']), h.clock.now(), people);
    assert.deepEqual(repeat?.audit.map((a) => [a.kind, a.data.eventId]), [['page.repeated', 'e2']]);
    assert.deepEqual(repeat?.notifications, []);
    h.apply(repeat);
    assert.deepEqual([h.page.eventIds, h.page.pendingJoins, h.page.round], [['e1'], 0, 2], 'nothing counted, no round');
    const joined = planJoin(h.page, event('e3', ['a@t1', 'b@t2', 'c@t2']), h.clock.now(), people);
    h.apply(joined);
    assert.deepEqual(joined?.audit[0]?.data, { pageId: 'p0000test', eventId: 'e3', alerts: 3, newAlerts: 2 });
    assert.match(joined?.notifications[0]?.text ?? '', /\n3 alerts now on page p0000test\./);
    const refired = planJoin(h.page, event('e4', ['a@t9']), h.clock.now() + 2 * MIN, people);
    assert.equal(refired?.audit[0]?.kind, 'page.joined', 'the same alert with a new startsAt fired again: news');
    assert.equal(planJoin(h.page, event('e5', ['c@t2', 'b@t2']), h.clock.now(), people)?.audit[0]?.kind, 'page.repeated');
  });

  it('a payload without alerts joins as before; a page remembers at most 1,000 alerts, the newest', () => {
    const h = harness(slow, people, event('e1', ['a@t1']));
    assert.equal(planJoin(h.page, event('e2'), h.clock.now(), people)?.audit[0]?.kind, 'page.joined');
    const many = Array.from({ length: 1200 }, (_, i) => `f${i}@t`);
    const big = planJoin(h.page, event('e3', many), h.clock.now(), people);
    assert.equal(big?.page.alertIds?.length, 1000);
    assert.equal(big?.page.alertIds?.at(-1), 'f1199@t');
    assert.equal(big?.page.alertIds?.includes('a@t1'), false, 'the oldest gave way');
  });
});

describe('an escalation past a person is a status update (§21.1)', () => {
  /** Step 1 pages alice (push and slack at once, by her first rule), step 2 carol after a minute; step 3 alice again. */
  const climb = policy({ steps: [{ notify: [{ kind: 'schedule', id: 'primary' }], afterMs: 1 * MIN },
    { notify: [{ kind: 'person', id: 'carol' }], afterMs: 1 * MIN }, { notify: [{ kind: 'person', id: 'alice' }], afterMs: 1 * MIN }] });
  const told = (p: { notifications: { deliveryId: string; kind: string }[] } | null | undefined): unknown[] =>
    (p?.notifications ?? []).filter((n) => n.kind === 'escalated-past').map((n) => n.deliveryId);

  it('by timeout: alice hears "escalated to carol" on her statusUpdates channels, after the round that pages carol; the ringing push is not used', () => {
    const h = harness(climb, people);
    const up = planTimer(h.page, h.clock.now() + 1 * MIN, people, route());
    assert.ok(up);
    assert.deepEqual(up.notifications.map((n) => [n.deliveryId, n.kind]), [['p0000test.2.carol.slack', 'escalation'],
      ['p0000test.2.carol.mail', 'escalation'], ['p0000test.3.alice.slack', 'escalated-past']]);
    const row = up.audit.filter((a) => a.kind === 'page.notified').at(-1);
    assert.deepEqual(row?.data, { pageId: 'p0000test', step: 2, loop: 0, person: 'alice', channel: 'slack', deliveryId: 'p0000test.3.alice.slack',
      kind: 'escalated-past' });
    // As alice reads it: what is wrong, what happened, the one way to act; nobody "Paged" line (she is not paged by it).
    assert.equal(up.notifications.at(-1)?.text, '[P1] Disk full on db-1\nPage p0000test escalated to carol.\nsvc ack p0000test');
    assert.equal(up.page.notified.filter((n) => n.person === 'alice').length, 2, 'a status update notifies nobody new');
    // Listed statusUpdates win, a ringing channel too when listed; none listed for her: nothing.
    assert.deepEqual(told(planTimer(h.page, h.clock.now() + 1 * MIN, people, route({ alice: ['push', 'sms'] }))),
      ['p0000test.3.alice.push', 'p0000test.3.alice.sms']);
    assert.deepEqual(told(planTimer(h.page, h.clock.now() + 1 * MIN, people, route({ alice: [] }))), []);
  });

  it('by hand: "escalated by hand to carol"; a person also in the step climbed to hears nothing of it', () => {
    const h = harness(climb, people);
    const up = planEscalate(h.page, null, cli, h.clock.now(), people, route());
    assert.ok(up.ok && up.plan);
    assert.deepEqual(told(up.plan), ['p0000test.3.alice.slack']);
    assert.equal(up.plan.notifications.at(-1)?.message?.said, 'Page p0000test escalated by hand to carol.');
    h.apply(up.plan);
    // Step 3 pages alice again: carol (passed) hears it on all her contacts (none ring), alice (named again) does not.
    const back = planEscalate(h.page, 3, cli, h.clock.now(), people, route());
    assert.ok(back.ok && back.plan);
    assert.deepEqual(told(back.plan), ['p0000test.5.carol.slack', 'p0000test.5.carol.mail']);
    assert.equal(back.plan.notifications.at(-1)?.message?.said, 'Page p0000test escalated by hand to alice.');
  });

  it('reports do not count it as an interruption, it is sent quietly, and a resolve before it is sent makes it stale', () => {
    assert.ok((STATUS_UPDATE_KINDS as readonly string[]).includes('escalated-past'));
    assert.equal(isStatusUpdate({ status: 'firing', pageKind: 'escalated-past' }), true);
    assert.deepEqual(['triggered', 'acknowledged', 'resolved'].map((s) => isStaleNotification('escalated-past', s)), [false, false, true]);
    const h = harness(climb, people);
    assert.deepEqual(told(planTimer(h.page, h.clock.now() + 1 * MIN, people)), [], 'without a status route (fixtures): nobody is told');
  });
});
