import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stampMs } from '../audit/next-audit-row.js';
import { fakeClock } from '../core/clock.js';
import type { Completion } from './store.js';
import { completionUpdate, isDuplicate, planCompletion, planIngest, replayAudit } from './write-plans.js';

const T0 = Date.UTC(2026, 0, 1);
const WINDOW = 15 * 60_000;
const event = { agentId: 'agent-1', sourceId: 'alerts', kind: 'webhook', fingerprint: 'fp-1', payloadText: '{"a":1}' };
const claim = { eventId: 'ev-1', owner: 'replica-a:1', attempt: 2 };

test('the duplicate window: a fingerprint seen less than the window ago is a duplicate, at the window it is new again', () => {
  const clock = fakeClock(T0);
  const seen = { eventId: 'ev-0', seenMs: clock.now() };
  clock.advance(WINDOW - 1);
  assert.equal(isDuplicate(seen, clock.now(), WINDOW), true);
  const dup = planIngest(event, { id: 'ev-1', nowMs: clock.now(), tsMs: clock.now(), windowMs: WINDOW, seen });
  assert.deepEqual(dup, { outcome: 'duplicate', eventId: 'ev-0' });
  clock.advance(1);
  assert.equal(isDuplicate(seen, clock.now(), WINDOW), false);
  assert.equal(planIngest(event, { id: 'ev-1', nowMs: clock.now(), tsMs: clock.now(), windowMs: WINDOW, seen }).outcome, 'accepted');
  assert.equal(isDuplicate(undefined, clock.now(), WINDOW), false);
});

test('an accepted ingest plans its event, its fingerprint (seen now) and its event.accepted row', () => {
  const clock = fakeClock(T0);
  clock.set(T0 - 1_000); // the clock stepped back: the event is stamped after the last one
  const tsMs = stampMs(clock.now(), T0);
  const plan = planIngest(event, { id: 'ev-1', nowMs: clock.now(), tsMs, windowMs: WINDOW, seen: undefined });
  assert.deepEqual(plan, {
    outcome: 'accepted',
    event: { id: 'ev-1', ts: '2026-01-01T00:00:00.000Z', tsMs: T0, agentId: 'agent-1', sourceId: 'alerts', kind: 'webhook', fingerprint: 'fp-1',
      status: 'accepted', payloadText: '{"a":1}' },
    fingerprint: { agentId: 'agent-1', sourceId: 'alerts', fingerprint: 'fp-1', eventId: 'ev-1', seenMs: T0 - 1_000 },
    audit: [{ kind: 'event.accepted', actor: 'source:alerts', agentId: 'agent-1', data: { eventId: 'ev-1', sourceId: 'alerts', fingerprint: 'fp-1' } }],
  });
  // No fingerprint: never a duplicate, nothing to upsert, whatever was seen.
  const bare = planIngest({ ...event, fingerprint: null }, { id: 'ev-2', nowMs: T0, tsMs: T0, windowMs: WINDOW, seen: { eventId: 'ev-0', seenMs: T0 } });
  assert.equal(bare.outcome, 'accepted');
  assert.equal(bare.outcome === 'accepted' ? bare.fingerprint : 'x', null);
});

test('a silenced ingest is stored suppressed with its event.suppressed row; a duplicate never asks the silences', () => {
  let asked = 0;
  const silencedBy = (): string[] => { asked += 1; return ['sil-1', 'sil-2']; };
  const plan = planIngest(event, { id: 'ev-1', nowMs: T0, tsMs: T0, windowMs: WINDOW, seen: undefined, silencedBy });
  assert.equal(plan.outcome === 'accepted' ? plan.event.status : 'x', 'suppressed');
  assert.deepEqual(plan.outcome === 'accepted' ? plan.audit.map((r) => [r.kind, r.data]) : [], [
    ['event.accepted', { eventId: 'ev-1', sourceId: 'alerts', fingerprint: 'fp-1' }],
    ['event.suppressed', { eventId: 'ev-1', silenceIds: ['sil-1', 'sil-2'] }],
  ]);
  const dup = planIngest(event, { id: 'ev-2', nowMs: T0 + 1, tsMs: T0 + 1, windowMs: WINDOW, seen: { eventId: 'ev-1', seenMs: T0 }, silencedBy });
  assert.equal(dup.outcome, 'duplicate');
  assert.equal(asked, 1);
  const open = planIngest(event, { id: 'ev-3', nowMs: T0, tsMs: T0, windowMs: WINDOW, seen: undefined, silencedBy: () => [] });
  assert.equal(open.outcome === 'accepted' ? `${open.event.status} ${open.audit.length}` : 'x', 'accepted 1');
});

test('what each completion sets on its event', () => {
  const row = { kind: 'message.sent', actor: 'agent:agent-1', agentId: 'agent-1', data: {} };
  assert.deepEqual(completionUpdate({ claim, outcome: 'processed', audit: [row], delivery: 'd' }), { status: 'processed', dueMs: null, delivery: 'd' });
  assert.deepEqual(completionUpdate({ claim, outcome: 'retry', dueMs: T0 + 5_000, delivery: 'd', audit: [] }),
    { status: 'accepted', dueMs: T0 + 5_000, delivery: 'd' });
  assert.deepEqual(completionUpdate({ claim, outcome: 'released' }), { status: 'accepted', dueMs: null, delivery: null });
  assert.deepEqual(completionUpdate({ claim, outcome: 'dead-lettered', deadLetter: { reason: 'r', error: 'e', attempts: 3 }, audit: [] }),
    { status: 'dead-lettered', dueMs: null, delivery: null });
});

test('a dead letter: the letter with the event\'s payload, the completion\'s rows, then event.dead-lettered', () => {
  const failed = { kind: 'message.failed', actor: 'agent:agent-1', agentId: 'agent-1', data: { channel: 'slack' } };
  const c: Completion = { claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'HTTP 500\u0000', attempts: 3 }, audit: [failed] };
  const plan = planCompletion(c, { agentId: 'agent-1', sourceId: 'alerts', payloadText: '{"a":1}' }, 'dl-1');
  assert.deepEqual(plan.result, { ok: true, deadLetterId: 'dl-1' });
  assert.deepEqual(plan.deadLetter, { id: 'dl-1', agentId: 'agent-1', sourceId: 'alerts', eventId: 'ev-1', reason: 'delivery-failed',
    error: 'HTTP 500\uFFFD', attempts: 3, payloadText: '{"a":1}' });
  assert.deepEqual(plan.audit, [failed, { kind: 'event.dead-lettered', actor: 'agent:agent-1', agentId: 'agent-1',
    data: { eventId: 'ev-1', deadLetterId: 'dl-1', reason: 'delivery-failed', attempts: 3 } }]);
  // Processed and retried completions write only their own rows; a release writes none.
  assert.deepEqual(planCompletion({ claim, outcome: 'processed', audit: [failed] }, { agentId: 'a', sourceId: 's', payloadText: '' }, 'x'),
    { result: { ok: true }, deadLetter: null, audit: [failed] });
  assert.deepEqual(planCompletion({ claim, outcome: 'released' }, { agentId: 'a', sourceId: 's', payloadText: '' }, 'x'),
    { result: { ok: true }, deadLetter: null, audit: [] });
});

test('a replay\'s audit row names the letter, its event and, from the console, the way it came', () => {
  const letter = { id: 'dl-1', event_id: 'ev-1', agent_id: 'agent-1', source_id: 'alerts', reason: 'delivery-failed' };
  assert.deepEqual(replayAudit(letter, 'operator:ana', 'console'), { kind: 'dlq.replayed', actor: 'operator:ana', agentId: 'agent-1',
    data: { deadLetterId: 'dl-1', eventId: 'ev-1', sourceId: 'alerts', reason: 'delivery-failed', via: 'console' } });
  assert.equal('via' in replayAudit(letter, 'operator:ana', undefined).data, false);
});
