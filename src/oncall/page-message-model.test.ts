import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Policy } from './oncall-config.js';
import type { Happened } from './page-message-model.js';
import { pageMessage } from './page-message-model.js';
import { actLine, clockAt, pageLines, pageMessageText } from './page-text.js';

const MIN = 60_000;
// 2026-11-29 02:05Z: 03:05 in Berlin, 21:05 the day before in New York.
const NOW = Date.UTC(2026, 10, 29, 2, 5);
const policy: Policy = { id: 'default', repeat: 1, ackTimeoutMs: 30 * MIN, onExhausted: [], steps: [
  { notify: [{ kind: 'person', id: 'alice' }], afterMs: 5 * MIN },
  { notify: [{ kind: 'person', id: 'bob' }], afterMs: 10 * MIN },
] };
const page: Parameters<typeof pageMessage>[0] = {
  id: 'p7xq2m4k9a', title: 'CheckoutErrors (2 alerts)', severity: 'P1', policy, eventIds: ['e1'], loop: 0, state: 'triggered',
  acknowledgedBy: null, resolvedBy: null,
  alerts: { more: 3, alertmanagerUrl: 'http://am:9093', alerts: [
    { name: 'CheckoutErrors on api-1', summary: 'Checkout 5xx ratio 12%', instance: 'api-1', runbookUrl: 'https://rb/c' },
    { name: 'CheckoutErrors on api-2', instance: 'api-2', sourceUrl: 'http://prom/2' },
  ] },
};
const paged = { step: 1, steps: 2, now: ['alice'], next: { step: 2, who: ['bob'], atMs: NOW + 5 * MIN } };
const msg = (happened: Happened, over: Partial<typeof page> = {}) => pageMessage({ ...page, ...over }, happened, paged, NOW);

describe('the page message model (§24.1)', () => {
  it('says what is wrong alert by alert, what happened, who is paged now and next in the reader\'s zone', () => {
    const m = msg({ kind: 'opened' });
    assert.deepEqual(m.actions, ['ack', 'resolve', 'escalate']);
    assert.deepEqual(pageLines(m, 'Europe/Berlin'), [
      '[P1] CheckoutErrors (2 alerts)',
      '- CheckoutErrors on api-1: Checkout 5xx ratio 12%', '  Runbook: https://rb/c',
      '- CheckoutErrors on api-2', '  Source: http://prom/2',
      '… and 3 more',
      'Alertmanager: http://am:9093',
      'Page p7xq2m4k9a opened.',
      'Paged: step 1 of 2 (pass 1 of 2): alice; next: bob at 03:10 CET (in 5m)',
    ]);
    // The same message read in New York, and by a channel's own recipient in UTC (§24.5): the zone is always printed.
    assert.match(pageMessageText(m, 'America/New_York', null), /next: bob at 21:10 EST \(in 5m\)\nsvc ack p7xq2m4k9a$/);
    assert.match(pageMessageText(m, 'UTC', null), /next: bob at 02:10 UTC \(in 5m\)/);
  });

  it('one alert: its summary, then its instance and links on lines of their own', () => {
    const one = msg({ kind: 'opened' }, { title: 'CheckoutErrors on api-1', alerts: { more: 0, alerts: [page.alerts?.alerts[0] ?? { name: '' }] } });
    assert.deepEqual(pageLines(one, 'UTC').slice(0, 4), ['[P1] CheckoutErrors on api-1', 'Checkout 5xx ratio 12%', 'Instance: api-1', 'Runbook: https://rb/c']);
  });

  it('only the actions that still make sense: acknowledged → resolve; resolved → none; nobody is paged any more', () => {
    const acked = msg({ kind: 'acknowledged' }, { state: 'acknowledged', acknowledgedBy: 'alice' });
    assert.deepEqual([acked.actions, acked.paged, acked.said], [['resolve'], null, 'Page p7xq2m4k9a acknowledged by alice.']);
    assert.equal(actLine(acked, null), 'svc resolve p7xq2m4k9a');
    assert.equal(actLine(acked, { ack: 'https://a/1', resolve: 'https://a/2' }), 'Resolve: https://a/2');
    const resolved = msg({ kind: 'resolved' }, { state: 'resolved', resolvedBy: 'source' });
    assert.deepEqual([resolved.actions, resolved.paged], [[], null]);
    assert.equal(actLine(resolved, { ack: 'https://a/1', resolve: 'https://a/2' }), null);
    assert.equal(pageLines(resolved, 'UTC')[0], 'RESOLVED [P1] CheckoutErrors (2 alerts)');
    assert.equal(actLine(msg({ kind: 'opened' }), { ack: 'https://a/1', resolve: 'https://a/2' }), 'Acknowledge: https://a/1 | Resolve: https://a/2');
  });

  it('an alert joining an acknowledged page pages nobody: no Paged line, only Resolve', () => {
    const joined = msg({ kind: 'joined' }, { state: 'acknowledged', acknowledgedBy: 'alice', eventIds: ['e1', 'e2'] });
    assert.deepEqual([joined.paged, joined.actions, pageMessageText(joined, 'UTC', null).split('\n').slice(-2)],
      [null, ['resolve'], ['2 alerts now on page p7xq2m4k9a.', 'svc resolve p7xq2m4k9a']]);
  });

  it('says what happened in words for each happening', () => {
    assert.deepEqual([
      msg({ kind: 'escalated', manual: false }).said, msg({ kind: 'escalated', manual: true }).said, msg({ kind: 'ack-timeout' }).said,
      msg({ kind: 'joined' }, { eventIds: ['e1', 'e2'] }).said, msg({ kind: 'exhausted' }).said,
    ], [
      'Page p7xq2m4k9a escalated: nobody acknowledged the previous step.', 'Page p7xq2m4k9a escalated by hand.',
      'Page p7xq2m4k9a was acknowledged 30m ago and is not resolved: paging again.', '2 alerts now on page p7xq2m4k9a.',
      'Nobody acknowledged page p7xq2m4k9a: every step of policy default was tried 2 time(s). It stays open.',
    ]);
  });

  it('a page stored before its alerts were kept shows its link lines as they were', () => {
    const { alerts: _a, ...old } = page;
    const m = pageMessage({ ...old, facts: ['Runbook: https://rb/old'] }, { kind: 'opened' }, paged, NOW);
    assert.deepEqual(pageLines(m, 'UTC').slice(0, 3), ['[P1] CheckoutErrors (2 alerts)', 'Runbook: https://rb/old', 'Page p7xq2m4k9a opened.']);
  });

  it('a time on another day in the reader\'s zone names the day; a zone without a common name prints its offset', () => {
    assert.equal(clockAt(NOW + 5 * MIN, 'Europe/Berlin', NOW), '03:10 CET');
    assert.equal(clockAt(Date.UTC(2026, 10, 29, 23, 30), 'Europe/Berlin', NOW), 'Mon 00:30 CET');
    assert.equal(clockAt(NOW, 'Asia/Kolkata', NOW), '07:35 GMT+5:30');
    assert.equal(clockAt(Date.UTC(2026, 6, 1, 12), 'Europe/Berlin', Date.UTC(2026, 6, 1, 11)), '14:00 CEST');
  });
});
