import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PagePlan } from './page.js';
import { isStaleNotification } from './page.js';
import type { Actor } from './page-plan.js';
import { JOIN_NOTICE_GAP_MS, NO_JOINS_OUT } from './join-spacing.js';
import { planAck, planJoin, planTimer, planUnack } from './page-plan.js';
import { isStatusUpdate } from '../runtime/channels/channel.js';
import { MIN, cli, event, harness, people, policy, route, slow } from '../../test/support/page-harness.js';

/** alice acknowledges from the CLI: she holds the page. */
const alice: Actor = { actor: 'cli:alice', by: 'alice', via: 'cli' };

/** Each notification of a plan as [person, channel, kind]. */
const told = (p: PagePlan | null | undefined): string[][] => (p?.notifications ?? []).map((n) => [n.person, n.channelId, n.kind]);

/** alice paged (push, slack; her SMS rule at 2 minutes), then carol at step 2 (slack, mail), then alice acks: the page at 11 minutes. */
function ackedByAlice(listed: Record<string, string[]> = {}) {
  const h = harness(slow, people);
  h.runTimers(10 * MIN + 30_000);
  assert.equal(h.page.step, 2);
  const acked = planAck(h.page, alice, null, h.clock.now(), route(listed));
  assert.ok(acked.ok);
  h.apply(acked.plan);
  h.clock.set(h.clock.now() + 30_000);
  return h;
}

describe('a join after the ack is a status update to the holder (§21.1, §21.7)', () => {
  it('tells the holder alone, on her statusUpdates contacts, without the ack action; nobody is counted as notified', () => {
    const h = ackedByAlice({ alice: ['sms'] });
    const notifiedBefore = h.page.notified;
    const joined = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route({ alice: ['sms'] })));
    assert.deepEqual(told(joined), [['alice', 'sms', 'joined-acked']], 'not carol, not alice\'s ringing push');
    assert.deepEqual(joined?.audit.map((a) => [a.kind, a.data.kind]), [['page.joined', undefined], ['page.notified', 'joined-acked']]);
    const n = joined?.notifications[0];
    assert.equal(n?.text, '[P1] Disk full on db-1\n2 alerts now on page p0000test.\nsvc resolve p0000test', 'the join\'s words; resolve, not ack');
    assert.deepEqual([n?.message?.happened, n?.message?.paged, n?.message?.actions], ['joined', null, ['resolve']]);
    assert.equal(isStatusUpdate({ status: 'firing', pageKind: n?.kind }), true, 'sent quietly by channels that ring (ntfy, Pushover)');
    assert.deepEqual(h.page.notified, notifiedBefore);
    assert.equal(h.page.state, 'acknowledged');
  });

  it('unlisted, the holder hears it on the contacts the page used for her, minus those that ring', () => {
    const h = ackedByAlice();
    const joined = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    assert.deepEqual(told(joined), [['alice', 'slack', 'joined-acked'], ['alice', 'sms', 'joined-acked']]);
  });

  it('a holder the page never notified hears it on her listed contacts, else nobody is told and no round is spent', () => {
    const h = harness(slow, people);
    const acked = planAck(h.page, cli, null, h.clock.now(), route());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    const listed = planJoin(h.page, event('e2'), h.clock.now(), people, route({ bob: ['mail'] }));
    assert.deepEqual(told(listed), [['bob', 'mail', 'joined-acked']]);
    const round = h.page.round;
    const unlisted = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    assert.deepEqual([told(unlisted), h.page.round, h.page.lastJoinNoticeAtMs], [[], round, h.clock.now()], 'the minute still counts');
    assert.deepEqual(unlisted?.audit.map((a) => a.kind), ['page.joined']);
  });

  it('two joins in a minute: one notice, the second counted into the next, still to the holder alone', () => {
    const h = ackedByAlice({ alice: ['sms'] });
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route({ alice: ['sms'] })));
    h.clock.set(h.clock.now() + 10_000);
    const counted = h.apply(planJoin(h.page, event('e3'), h.clock.now(), people, route({ alice: ['sms'] })));
    assert.deepEqual([told(counted), h.page.pendingJoins], [[], 1]);
    assert.equal(h.page.joinNoticeAtMs, (h.page.lastJoinNoticeAtMs ?? 0) + JOIN_NOTICE_GAP_MS);
    h.clock.set(h.page.joinNoticeAtMs ?? 0);
    const due = h.apply(planTimer(h.page, h.clock.now(), people, route({ alice: ['sms'] })));
    assert.deepEqual(told(due), [['alice', 'sms', 'joined-acked']]);
    assert.match(due?.notifications[0]?.text ?? '', /\n3 alerts now on page p0000test\.\n/);
  });
});

describe('a join after the ack reaches the room that carried the page too (§24.2)', () => {
  it('the step\'s channel target hears it with the holder, quietly, in the same round; a ringing room does not', () => {
    const withRoom = policy({ steps: [{ notify: [{ kind: 'schedule', id: 'primary' }, { kind: 'channel', id: 'team-room' }], afterMs: 10 * MIN }] });
    const h = harness(withRoom, people);
    const acked = planAck(h.page, alice, null, h.clock.now(), route());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    h.clock.set(h.clock.now() + 30_000);
    const round = h.page.round;
    const joined = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    assert.deepEqual(told(joined), [['alice', 'slack', 'joined-acked'], ['-', 'team-room', 'joined-acked']]);
    assert.deepEqual(joined?.notifications.map((n) => n.deliveryId), [`p0000test.${round + 1}.alice.slack`, `p0000test.${round + 1}.-.team-room`],
      'one status round, not a round that pages');
    assert.deepEqual(joined?.notifications[1]?.message?.actions, ['resolve']);
    const ringing = harness(withRoom, people);
    const ack2 = planAck(ringing.page, alice, null, ringing.clock.now(), route());
    assert.ok(ack2.ok);
    ringing.apply(ack2.plan);
    const rings = { ...route(), rings: (c: string) => c === 'team-room' || c === 'push' };
    assert.deepEqual(told(planJoin(ringing.page, event('e2'), ringing.clock.now(), people, rings)), [['alice', 'slack', 'joined-acked']]);
  });
});

describe('a join notice pending at the ack is no round after it', () => {
  it('comes due as a status update to the holder; a join round committed before the ack is cancelled at its claim', () => {
    const h = harness(policy(), people);
    h.clock.set(h.clock.now() + 10_000);
    const round = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    assert.deepEqual(told(round), [['alice', 'push', 'join'], ['alice', 'slack', 'join']], 'triggered: a round to the step');
    h.clock.set(h.clock.now() + 10_000);
    h.apply(planJoin(h.page, event('e3'), h.clock.now(), people, route()));
    assert.equal(h.page.pendingJoins, 1);
    const acked = planAck(h.page, alice, null, h.clock.now(), route());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    assert.equal(isStaleNotification('join', 'acknowledged'), true, 'the round above, unsent when the ack commits, is cancelled');
    assert.equal(h.page.joinNoticeAtMs, (h.page.lastJoinNoticeAtMs ?? 0) + JOIN_NOTICE_GAP_MS, 'the ack keeps the pending notice');
    h.clock.set(h.page.joinNoticeAtMs ?? 0);
    const due = h.apply(planTimer(h.page, h.clock.now(), people, route()));
    assert.deepEqual(told(due), [['alice', 'slack', 'joined-acked']], 'to the holder, not on her ringing push');
    assert.match(due?.notifications[0]?.text ?? '', /\n3 alerts now on page p0000test\.\nsvc resolve p0000test$/);
    assert.deepEqual([h.page.pendingJoins, h.page.joinNoticeAtMs], [0, null]);
    assert.equal(isStaleNotification('joined-acked', 'acknowledged'), false);
    assert.equal(isStaleNotification('joined-acked', 'resolved'), true);
  });
});

describe('after an unack a join is a round again', () => {
  it('manual unack: the current step is paged on its first rule, as before the ack', () => {
    const h = ackedByAlice({ alice: ['sms'] });
    const unacked = planUnack(h.page, cli, h.clock.now(), people, route({ alice: ['sms'] }));
    assert.ok(unacked.ok);
    h.apply(unacked.plan);
    h.clock.set(h.clock.now() + JOIN_NOTICE_GAP_MS);
    const joined = h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route({ alice: ['sms'] })));
    assert.deepEqual(told(joined), [['carol', 'slack', 'join'], ['carol', 'mail', 'join']]);
  });

  it('ack timeout: the pending notice due after the page is triggered again goes out as a round', () => {
    const h = harness(policy({ ackTimeoutMs: 30 * MIN }), people);
    const acked = planAck(h.page, alice, null, h.clock.now(), route());
    assert.ok(acked.ok);
    h.apply(acked.plan);
    h.clock.set(h.clock.now() + 30 * MIN - 30_000);
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    h.clock.set(h.clock.now() + 10_000);
    h.apply(planJoin(h.page, event('e3'), h.clock.now(), people, route()));
    const sent = h.plans.length;
    h.runTimers(JOIN_NOTICE_GAP_MS);
    const due = h.plans.slice(sent);
    assert.equal(due[0]?.audit[0]?.kind, 'page.unacknowledged', 'the ack timeout first');
    assert.deepEqual(told(due.at(-1)), [['alice', 'push', 'join'], ['alice', 'slack', 'join']]);
  });
});

describe('a join notice waits a minute from when the last one was out on the wire (§21.7)', () => {
  /** alice paged; a join told at once at +10 s; another counted at +20 s, due at +70 s. */
  function counted() {
    const h = harness(policy(), people);
    h.clock.set(h.clock.now() + 10_000);
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    const firstAtMs = h.clock.now();
    h.clock.set(firstAtMs + 10_000);
    h.apply(planJoin(h.page, event('e3'), h.clock.now(), people, route()));
    assert.equal(h.page.joinNoticeAtMs, firstAtMs + JOIN_NOTICE_GAP_MS);
    return { h, firstAtMs };
  }

  it('the first went out 1.5 s after its plan: the due notice waits until a minute after that, then goes', () => {
    const { h, firstAtMs } = counted();
    const out = { lastOutAtMs: firstAtMs + 1_500, onItsWay: false };
    h.clock.set(firstAtMs + JOIN_NOTICE_GAP_MS);
    const early = h.apply(planTimer(h.page, h.clock.now(), people, route(), out));
    assert.deepEqual([told(early), early?.audit, h.page.pendingJoins, h.page.joinNoticeAtMs], [[], [], 1, firstAtMs + 1_500 + JOIN_NOTICE_GAP_MS]);
    h.clock.set(firstAtMs + 1_500 + JOIN_NOTICE_GAP_MS);
    const due = h.apply(planTimer(h.page, h.clock.now(), people, route(), out));
    assert.deepEqual(told(due), [['alice', 'push', 'join'], ['alice', 'slack', 'join']]);
    assert.deepEqual([h.page.pendingJoins, h.page.joinNoticeAtMs, h.page.lastJoinNoticeAtMs], [0, null, h.clock.now()]);
  });

  it('the first is still on its way: the notice looks again a minute later; nothing known of the wire: the plan\'s minute', () => {
    const { h, firstAtMs } = counted();
    h.clock.set(firstAtMs + JOIN_NOTICE_GAP_MS);
    const waiting = h.apply(planTimer(h.page, h.clock.now(), people, route(), { lastOutAtMs: null, onItsWay: true }));
    assert.deepEqual([told(waiting), h.page.joinNoticeAtMs], [[], h.clock.now() + JOIN_NOTICE_GAP_MS]);
    const { h: h2, firstAtMs: first2 } = counted();
    h2.clock.set(first2 + JOIN_NOTICE_GAP_MS);
    assert.equal(told(h2.apply(planTimer(h2.page, h2.clock.now(), people, route(), NO_JOINS_OUT))).length, 2);
  });

  it('a join a minute after the last notice\'s plan but not yet a minute after it was out is counted, not told', () => {
    const h = harness(policy(), people);
    h.apply(planJoin(h.page, event('e2'), h.clock.now(), people, route()));
    const firstAtMs = h.clock.now();
    h.clock.set(firstAtMs + JOIN_NOTICE_GAP_MS + 500);
    const joined = h.apply(planJoin(h.page, event('e3'), h.clock.now(), people, route(), { lastOutAtMs: firstAtMs + 2_000, onItsWay: false }));
    assert.deepEqual([told(joined), h.page.pendingJoins, h.page.joinNoticeAtMs], [[], 1, firstAtMs + 2_000 + JOIN_NOTICE_GAP_MS]);
  });
});
