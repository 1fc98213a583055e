import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { ResolveTargets } from './page-plan.js';
import { dueAtMs, isStaleNotification } from './page.js';
import { MIN, cli, event, harness, policy, resolve } from '../../test/support/page-harness.js';
import type { StatusRoute } from './status-updates.js';
import { planAck, planEscalate, planJoin, planOpen, planReopen, planResolve, planTimer, planUnack } from './page-plan.js';

describe('page planner on fake time', () => {
  it('opens at step 1, notifies the one on call with round 1, and audits page.opened and page.notified', () => {
    const h = harness();
    assert.equal(h.page.state, 'triggered');
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm']);
    assert.deepEqual(h.kinds(), ['page.opened', 'page.notified']);
    assert.deepEqual(h.plans[0]?.audit[0]?.data, { pageId: 'p0000test', incidentKey: 'disk/db-1', policy: 'default', policySha256: 'sha-a', eventId: 'e1' });
    assert.deepEqual(h.plans[0]?.audit[1]?.data, { pageId: 'p0000test', step: 1, loop: 0, person: 'alice', channel: 'dm', deliveryId: 'p0000test.1.alice.dm',
      kind: 'escalation' });
    // §24.1: what happened, who is paged now and next (in UTC when stored; the notifier renders it in the reader's zone), one way to act.
    assert.equal(h.plans[0]?.notifications[0]?.text, '[P1] Disk full on db-1\nPage p0000test opened.\n'
      + 'Paged: step 1 of 2: alice; next: carol at 03:05 UTC (in 5m)\nsvc ack p0000test');
    assert.deepEqual(h.plans[0]?.notifications[0]?.message?.paged, { step: 1, steps: 2, now: ['alice'], pass: null,
      next: { step: 2, who: ['carol'], atMs: Date.UTC(2026, 10, 25, 3, 5) } });
  });

  it('carries the opening event\'s links in every message that asks for action, and a reopening event\'s after it', () => {
    const clock = fakeClock(Date.UTC(2026, 10, 25, 3, 0, 0));
    const facts = ['Runbook: https://rb.example/disk', 'Source: http://prom.example/graph'];
    const opened = planOpen({ pageId: 'p0000test', agentId: 'ops', incidentKey: 'disk/db-1', policy: policy(), policySha256: 'sha-a',
      event: { ...event('e1'), facts }, nowMs: clock.now(), resolve });
    assert.equal(opened.notifications[0]?.text, '[P1] Disk full on db-1\nRunbook: https://rb.example/disk\nSource: http://prom.example/graph\n'
      + 'Page p0000test opened.\nPaged: step 1 of 2: alice; next: carol at 03:05 UTC (in 5m)\nsvc ack p0000test');
    const escalated = planTimer(opened.page, clock.now() + 5 * MIN, resolve);
    assert.match(escalated?.notifications[0]?.text ?? '', /\nRunbook: https:\/\/rb\.example\/disk\nSource: http:\/\/prom\.example\/graph\nPage p0000test escalated: .*\n.*\nsvc ack p0000test$/);
    // Telling someone it was resolved still says what it was (§24.1) but asks nothing of them: nobody paged, nothing to type.
    const resolved = planResolve(opened.page, cli, null, 'e2', clock.now());
    assert.ok(resolved.ok && resolved.plan !== null);
    assert.equal(resolved.plan.notifications[0]?.text, 'RESOLVED [P1] Disk full on db-1\nRunbook: https://rb.example/disk\n'
      + 'Source: http://prom.example/graph\nPage p0000test resolved by bob.');
    const closed = resolved.plan.page;
    const reopened = planReopen(closed, { ...event('e3'), facts: ['Runbook: https://rb.example/other'] }, clock.now(), resolve);
    assert.match(reopened.notifications[0]?.text ?? '', /\nRunbook: https:\/\/rb\.example\/other\nPage /);
    // The same id as the page the person saw resolved: the message says it is that page again, not a new one.
    assert.match(reopened.notifications[0]?.text ?? '', new RegExp(`\\nPage ${closed.id} reopened: it fired again after it was resolved\\.\\nPaged: step 1 of `));
    assert.equal(planReopen(closed, event('e4'), clock.now(), resolve).page.facts, undefined);
  });

  it('page.opened names the event\'s alert (a report counts pages per alert name, §23) when it has one, opening and reopening', () => {
    const at = Date.UTC(2026, 10, 25, 3, 0, 0);
    const opened = planOpen({ pageId: 'p0000name', agentId: 'ops', incidentKey: 'k', policy: policy(), policySha256: 'sha-a', nowMs: at, resolve,
      event: { ...event('e1'), alertname: 'DiskFull' } });
    assert.deepEqual(opened.audit[0]?.data, { pageId: 'p0000name', incidentKey: 'k', policy: 'default', policySha256: 'sha-a', eventId: 'e1', alertname: 'DiskFull' });
    const resolved = planResolve(opened.page, cli, null, null, at + MIN);
    assert.ok(resolved.ok && resolved.plan !== null);
    const reopened = planReopen(resolved.plan.page, { ...event('e2'), alertname: 'DiskFull' }, at + 2 * MIN, resolve);
    assert.equal(reopened.audit[0]?.data.alertname, 'DiskFull');
    const unnamed = planOpen({ pageId: 'p0000none', agentId: 'ops', incidentKey: 'k2', policy: policy(), policySha256: 'sha-a', nowMs: at, resolve, event: event('e3') });
    assert.equal('alertname' in (unnamed.audit[0]?.data ?? {}), false, 'no name: no field');
  });

  it('escalates to the next step after `after` without an ack, each round with its own deliveryIds', () => {
    const h = harness();
    h.runTimers(5 * MIN - 1);
    assert.equal(h.page.step, 1, 'not a millisecond early');
    h.runTimers(1);
    assert.equal(h.page.step, 2);
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.carol.dm']);
    const escalated = h.plans[1]?.audit.find((a) => a.kind === 'page.escalated');
    assert.deepEqual(escalated?.data, { pageId: 'p0000test', from: 1, to: 2, fromLoop: 0, loop: 0, reason: 'timeout' });
  });

  it('loops over all steps `repeat` times, then is exhausted: stays triggered and open, onExhausted told once', () => {
    const h = harness(policy({ repeat: 1 }));
    h.runTimers(15 * MIN);
    assert.deepEqual([h.page.step, h.page.loop], [1, 1], 'second pass starts at step 1');
    h.runTimers(15 * MIN);
    assert.equal(h.page.exhausted, true);
    assert.equal(h.page.state, 'triggered');
    assert.equal(h.page.nextEscalationAtMs, null);
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.carol.dm', 'p0000test.3.alice.dm', 'p0000test.4.carol.dm',
      'p0000test.5.-.team-room']);
    assert.equal(h.kinds().filter((k) => k === 'page.exhausted').length, 1);
    h.runTimers(24 * 60 * MIN);
    assert.equal(h.sent().length, 5, 'exhaustion is told once; no timer is left');
    assert.equal(dueAtMs(h.page), null);
  });

  it('an ack stops everything: no step, no loop, nothing more sent', () => {
    const h = harness(policy({ repeat: 3 }));
    h.runTimers(2 * MIN);
    const acked = planAck(h.page, cli, 'looking', h.clock.now());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    assert.equal(h.page.state, 'acknowledged');
    assert.deepEqual(h.plans.at(-1)?.audit[0]?.data, { pageId: 'p0000test', by: 'bob', via: 'cli', step: 1, loop: 0, note: 'looking' });
    assert.equal(dueAtMs(h.page), null);
    assert.equal(planTimer(h.page, h.clock.now() + 365 * 24 * 60 * MIN, resolve), null, 'even a late timer plans nothing');
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.alice.dm'], 'the first page and the ack told to alice; no step after it');
    const again = planAck(h.page, cli, null, h.clock.now());
    assert.deepEqual(again, { ok: true, plan: null }, 'acking twice writes nothing');
  });

  it('everyone notified hears ack and unack in a new round, on the contacts the page used; a channel that rings only when listed', () => {
    const h = harness();
    const acked = planAck(h.page, cli, null, h.clock.now());
    assert.ok(acked.ok && acked.plan);
    assert.deepEqual(acked.plan.notifications.map((n) => [n.deliveryId, n.kind, n.status, n.text]), [
      ['p0000test.2.alice.dm', 'acknowledged', 'firing', '[P1] Disk full on db-1\nPage p0000test acknowledged by bob.\nsvc resolve p0000test'],
    ]);
    h.apply(acked.plan);
    const unacked = planUnack(h.page, cli, h.clock.now(), resolve);
    assert.ok(unacked.ok && unacked.plan);
    assert.deepEqual(unacked.plan.notifications.map((n) => [n.deliveryId, n.kind]), [['p0000test.3.alice.dm', 'unacknowledged']]);
    // §24.1: an unack pages again, so its notice says who is paged now and next, like every round that pages.
    assert.equal(unacked.plan.notifications[0]?.text, '[P1] Disk full on db-1\nPage p0000test is no longer acknowledged: escalation resumes.\n'
      + 'Paged: step 1 of 2: alice; next: carol at 03:05 UTC (in 5m)\nsvc ack p0000test');
    const h2 = harness();
    const rings: StatusRoute = { follows: () => false, rings: (c) => c === 'dm', listed: () => null };
    const quiet = planAck(h2.page, cli, null, h2.clock.now(), rings);
    assert.ok(quiet.ok && quiet.plan);
    assert.deepEqual(quiet.plan.notifications, [], 'dm rings and alice listed nothing');
    assert.equal(quiet.plan.page.round, 1, 'nobody to tell, no new round');
    const follows: StatusRoute = { ...rings, follows: (c) => c === 'dm' };
    const told = planAck(h2.page, cli, null, h2.clock.now(), follows);
    assert.deepEqual(told.ok && told.plan?.notifications.map((n) => n.deliveryId), ['p0000test.2.alice.dm'], 'a channel following the page state always hears it');
  });

  it('a state notification the page has since left is stale when claimed', () => {
    assert.equal(isStaleNotification('acknowledged', 'acknowledged'), false);
    assert.equal(isStaleNotification('acknowledged', 'resolved'), true);
    assert.equal(isStaleNotification('acknowledged', 'triggered'), true);
    assert.equal(isStaleNotification('unacknowledged', 'triggered'), false);
    assert.equal(isStaleNotification('unacknowledged', 'resolved'), true, 'a trigger after the resolve would open a new incident');
    assert.equal(isStaleNotification('escalation', 'acknowledged'), true);
    assert.equal(isStaleNotification('join', 'resolved'), true);
    assert.equal(isStaleNotification('resolved', 'resolved'), false);
  });

  it('ack timeout: acknowledged and not resolved for ackTimeout → triggered again and the current step paged again', () => {
    const h = harness(policy({ ackTimeoutMs: 30 * MIN }));
    h.runTimers(6 * MIN); // at step 2
    const acked = planAck(h.page, cli, null, h.clock.now());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    h.runTimers(30 * MIN - 1);
    assert.equal(h.page.state, 'acknowledged');
    h.runTimers(1);
    assert.equal(h.page.state, 'triggered');
    assert.equal(h.page.acknowledgedBy, null);
    const last = h.plans.at(-1);
    assert.deepEqual(last?.audit[0]?.data, { pageId: 'p0000test', reason: 'ack-timeout', acknowledgedBy: 'bob' });
    assert.deepEqual(last?.notifications.map((n) => n.deliveryId), ['p0000test.4.carol.dm'], 'round 3 told carol of the ack');
    assert.equal(h.page.nextEscalationAtMs, h.clock.now() + 10 * MIN, 'escalation resumes from the current step');
  });

  it('unack returns to triggered and the climb resumes from the current step; unack of a triggered page is refused', () => {
    const h = harness();
    const acked = planAck(h.page, cli, null, h.clock.now());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    h.runTimers(60 * MIN);
    assert.equal(h.page.step, 1);
    const un = planUnack(h.page, cli, h.clock.now(), resolve);
    assert.ok(un.ok);
    h.apply(un.plan);
    assert.equal(h.page.state, 'triggered');
    assert.deepEqual(h.plans.at(-1)?.audit[0]?.data, { pageId: 'p0000test', reason: 'manual', by: 'bob', acknowledgedBy: 'bob' });
    h.runTimers(5 * MIN);
    assert.equal(h.page.step, 2);
    assert.deepEqual(planUnack(h.page, cli, h.clock.now(), resolve), { ok: false, reason: 'page p0000test is not acknowledged' });
  });

  it('resolved by the source: every timer stops and everyone who was notified hears it once, in a new round', () => {
    const h = harness();
    h.runTimers(5 * MIN);
    const done = planResolve(h.page, { actor: 'source:am', by: 'source', via: 'source' }, null, 'e9', h.clock.now());
    assert.ok(done.ok);
    h.apply(done.plan);
    assert.equal(h.page.state, 'resolved');
    assert.deepEqual(done.plan?.notifications.map((n) => [n.deliveryId, n.status, n.kind]),
      [['p0000test.3.alice.dm', 'resolved', 'resolved'], ['p0000test.3.carol.dm', 'resolved', 'resolved']]);
    assert.deepEqual(done.plan?.audit[0]?.data, { pageId: 'p0000test', by: 'source', via: 'source', eventId: 'e9' });
    assert.equal(dueAtMs(h.page), null);
    assert.deepEqual(planAck(h.page, cli, null, h.clock.now()), { ok: false, reason: 'page p0000test is already resolved' });
    assert.deepEqual(planEscalate(h.page, null, cli, h.clock.now(), resolve), { ok: false, reason: 'page p0000test is already resolved' });
  });

  it('a joining event re-notifies the current step at once, then at most once a minute with the joins counted', () => {
    const h = harness();
    h.clock.set(h.clock.now() + 10_000);
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), resolve));
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.alice.dm']);
    assert.match(h.plans.at(-1)?.notifications[0]?.text ?? '', /^\[P1\] Disk full on db-1\n2 alerts now on page p0000test/);
    h.clock.set(h.clock.now() + 10_000);
    h.apply(planJoin(h.page, event('e3'), h.clock.now(), resolve));
    h.apply(planJoin(h.page, event('e4'), h.clock.now(), resolve));
    assert.equal(h.sent().length, 2, 'inside the minute: counted, not sent');
    assert.equal(h.page.pendingJoins, 2);
    assert.equal(planJoin(h.page, event('e4'), h.clock.now(), resolve), null, 'an event already on the page changes nothing');
    h.runTimers(50_000 - 1);
    assert.equal(h.sent().length, 2);
    h.runTimers(1);
    assert.deepEqual(h.sent().slice(2), ['p0000test.3.alice.dm']);
    assert.match(h.plans.at(-1)?.notifications[0]?.text ?? '', /\n4 alerts now on page p0000test/);
    assert.equal(h.kinds().filter((k) => k === 'page.joined').length, 3);
    assert.equal(h.page.step, 1, 'a join does not escalate');
  });

  it('a policy edit leaves an open page alone: its steps come from the snapshot it opened with', () => {
    const h = harness();
    // oncall.yaml now says one step to person:dave; the stored page still climbs its own policy.
    const edited = policy({ steps: [{ notify: [{ kind: 'person', id: 'dave' }], afterMs: MIN }] });
    assert.notDeepEqual(edited, h.page.policy);
    h.runTimers(5 * MIN);
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.carol.dm']);
    assert.equal(h.page.policySha256, 'sha-a');
  });

  it('a schedule with nobody on call is audited and the step counts as sent', () => {
    const h = harness(policy({ steps: [{ notify: [{ kind: 'schedule', id: 'empty' }], afterMs: MIN }, { notify: [{ kind: 'person', id: 'carol' }], afterMs: MIN }] }));
    assert.deepEqual(h.plans[0]?.audit.map((a) => a.kind), ['page.opened', 'page.nobody-on-call']);
    assert.equal(h.page.round, 1);
    h.runTimers(MIN);
    assert.equal(h.page.step, 2);
  });

  it('a step to a person the file no longer has (a reload removed them) is page.nobody-on-call naming the person, never silence', () => {
    const gone: ResolveTargets = (targets) => ({ recipients: [], nobodyOnCall: targets.flatMap((t) => (t.kind === 'channel' ? [] : [{ target: t, known: false }])) });
    const opened = planOpen({ pageId: 'p0000gone', agentId: 'ops', incidentKey: 'k', policy: policy({ steps: [{ notify: [{ kind: 'person', id: 'dave' }], afterMs: MIN }] }),
      policySha256: 'sha-a', event: event('e1'), nowMs: 0, resolve: gone });
    assert.deepEqual(opened.audit.filter((a) => a.kind === 'page.nobody-on-call').map((a) => a.data), [{ pageId: 'p0000gone', person: 'dave', missing: true, step: 1, loop: 0 }]);
    assert.deepEqual(opened.notifications, []);
  });

  it('manual escalation: the next step, or --to-step N (in range), and an acknowledged page is triggered again', () => {
    const h = harness();
    const acked = planAck(h.page, cli, null, h.clock.now());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    assert.deepEqual(planEscalate(h.page, 3, cli, h.clock.now(), resolve), { ok: false, reason: 'policy default has steps 1..2; there is no step 3' });
    const up = planEscalate(h.page, 2, cli, h.clock.now(), resolve);
    assert.ok(up.ok);
    h.apply(up.plan);
    assert.deepEqual([h.page.state, h.page.step], ['triggered', 2]);
    assert.deepEqual(up.plan?.audit[0]?.data, { pageId: 'p0000test', from: 1, to: 2, fromLoop: 0, loop: 0, reason: 'manual', by: 'bob' });
    assert.deepEqual(h.sent(), ['p0000test.1.alice.dm', 'p0000test.2.alice.dm', 'p0000test.3.carol.dm'], 'the page, its ack, the step');
  });

  it('a resolved page that fires again reopens at step 1 under its own policy, rounds going on', () => {
    const h = harness();
    const done = planResolve(h.page, cli, null, null, h.clock.now());
    assert.ok(done.ok);
    h.apply(done.plan);
    h.clock.set(h.clock.now() + MIN);
    h.apply(planReopen(h.page, event('e5'), h.clock.now(), resolve));
    assert.deepEqual([h.page.state, h.page.step, h.page.round], ['triggered', 1, 3]);
    assert.deepEqual(h.sent().at(-1), 'p0000test.3.alice.dm');
  });
});
