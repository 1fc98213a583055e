import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PageNotification } from '../oncall/page.js';
import {
  noticeCancelledAudit, notificationRows, overrideAddedAudit, overrideRemovedAudit, planNotificationFinish, planSilenceExpiry,
  silenceCreatedAudit,
} from './oncall-plans.js';
import type { StoredOverride, StoredSilence } from './oncall-store.js';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const override: StoredOverride = { id: 'ov-1', agentId: 'ops', scheduleId: 'primary', personId: 'bob', fromMs: T0, toMs: T0 + 8 * HOUR,
  createdAtMs: T0 - 1000, createdBy: 'admin:alice' };
const silence: StoredSilence = { id: 'si-1', agentId: null, matchers: [{ label: 'alertname', op: '=', value: 'DiskFull' }], startsAtMs: T0,
  endsAtMs: T0 + 2 * HOUR, reason: 'maintenance', createdBy: 'admin:alice', expiredAtMs: null };

test('an override added and removed: who, which schedule and person, the window in ISO time, the console\'s via when given', () => {
  assert.deepEqual(overrideAddedAudit(override), { kind: 'schedule.override.added', actor: 'admin:alice', agentId: 'ops',
    data: { overrideId: 'ov-1', schedule: 'primary', person: 'bob', from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T08:00:00.000Z' } });
  assert.equal(overrideAddedAudit(override, 'console').data.via, 'console');
  assert.equal(overrideRemovedAudit(override, 'admin:carol', 'console').data.via, 'console');
  assert.deepEqual(overrideRemovedAudit(override, 'admin:carol'), { kind: 'schedule.override.removed', actor: 'admin:carol', agentId: 'ops',
    data: { overrideId: 'ov-1', schedule: 'primary', person: 'bob' } });
});

test('a silence created names its matchers, its window and reason; its creator is the actor', () => {
  assert.deepEqual(silenceCreatedAudit(silence), { kind: 'silence.created', actor: 'admin:alice', agentId: null,
    data: { silenceId: 'si-1', matchers: silence.matchers, startsAt: '2026-01-01T00:00:00.000Z', endsAt: '2026-01-01T02:00:00.000Z',
      reason: 'maintenance' } });
});

test('a silence expired by hand ends now, or keeps an end already past; the row says manual', () => {
  const live = planSilenceExpiry(silence, 'admin:carol', T0 + HOUR);
  assert.equal(planSilenceExpiry(silence, 'admin:carol', T0 + HOUR, 'console').audit[0]?.data.via, 'console');
  assert.deepEqual(live.silence, { ...silence, expiredAtMs: T0 + HOUR, endsAtMs: T0 + HOUR });
  assert.deepEqual(live.audit, [{ kind: 'silence.expired', actor: 'admin:carol', agentId: null, data: { silenceId: 'si-1', reason: 'manual' } }]);
  const over = planSilenceExpiry(silence, 'admin:carol', T0 + 3 * HOUR);
  assert.equal(over.silence.endsAtMs, T0 + 2 * HOUR, 'a silence that was over stays over when it was');
  assert.equal(over.silence.expiredAtMs, T0 + 3 * HOUR);
});

test('a notice cancelled at the last look names its page, delivery, kind and the page state that made it stale', () => {
  assert.deepEqual(noticeCancelledAudit({ deliveryId: 'p1.2.bob.slack', kind: 'escalation', agentId: 'ops', pageId: 'p1', pageState: 'acknowledged' }),
    { kind: 'page.notice-cancelled', actor: 'agent:ops', agentId: 'ops',
      data: { pageId: 'p1', deliveryId: 'p1.2.bob.slack', notice: 'escalation', pageState: 'acknowledged' } });
});

test('a sender\'s outcome: delivered is sent, failed is failed with its error, retry stays pending until its time', () => {
  const ref = { deliveryId: 'd1', owner: 'r1', attempt: 1 };
  const row = { kind: 'page.notified', actor: 'agent:ops', agentId: 'ops', data: { pageId: 'p1' } };
  assert.deepEqual(planNotificationFinish({ ...ref, audit: [row], outcome: 'delivered' }, T0),
    { status: 'sent', notBeforeMs: T0, error: null, audit: [row], receipt: null });
  assert.deepEqual(planNotificationFinish({ ...ref, audit: [], outcome: 'failed', error: 'channel_not_found' }, T0),
    { status: 'failed', notBeforeMs: T0, error: 'channel_not_found', audit: [], receipt: null });
  assert.deepEqual(planNotificationFinish({ ...ref, audit: [], outcome: 'retry', retryAtMs: T0 + 30_000, error: 'HTTP 503' }, T0),
    { status: 'pending', notBeforeMs: T0 + 30_000, error: 'HTTP 503', audit: [], receipt: null });
});

test('a delivery that left a vendor receipt (§21.3) keeps it with the page, in the outcome\'s own write', () => {
  const receipt = { receipt: 'r1', agentId: 'ops', pageId: 'p1', channelId: 'pushover', person: 'alice', deliveryId: 'd1', sentAtMs: T0,
    expiresAtMs: T0 + 3_600_000 };
  assert.deepEqual(planNotificationFinish({ deliveryId: 'd1', owner: 'r1', attempt: 1, audit: [], outcome: 'delivered', receipt }, T0).receipt, receipt);
});

test('new notifications are outbox rows claimable from now, carrying the whole notification', () => {
  const n = { deliveryId: 'p1.1.bob.slack', pageId: 'p1', agentId: 'ops', kind: 'escalation', eventId: 'e1', channelId: 'slack', person: 'bob',
    to: 'U1', severity: 'P1', status: 'firing', title: 'DiskFull', text: 'disk full' } satisfies PageNotification;
  assert.deepEqual(notificationRows([n], T0), [{ deliveryId: 'p1.1.bob.slack', pageId: 'p1', agentId: 'ops', channelId: 'slack', kind: 'escalation', createdMs: T0,
    notBeforeMs: T0, body: JSON.stringify(n) }]);
  assert.deepEqual(JSON.parse(notificationRows([n], T0)[0]?.body ?? 'null'), n);
});
