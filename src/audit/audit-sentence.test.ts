import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditSentence } from './audit-sentence.js';

describe('auditSentence: one audit row as the sentence svc explain, svc page and the console show', () => {
  it('says what happened to an event and its messages, exactly', () => {
    assert.equal(auditSentence('event.accepted', 'source:alertmanager', { sourceId: 'alertmanager', fingerprint: 'fp-1', eventId: 'e1' }),
      'accepted from alertmanager, fingerprint fp-1');
    assert.equal(auditSentence('event.accepted', 'source:alertmanager', { sourceId: 'alertmanager' }), 'accepted from alertmanager');
    assert.equal(auditSentence('event.suppressed', 'agent:ops', { eventId: 'e1', silenceIds: ['s1a', 's2b'], incidentKey: 'k' }),
      'suppressed by silence s1a, s2b: nobody paged');
    assert.equal(auditSentence('event.superseded', 'agent:ops', { eventId: 'e1', incidentKey: 'k', resolvedBy: 'e2' }),
      'firing overtaken by the resolve in event e2, received after it: nobody paged');
    assert.equal(auditSentence('message.failed', 'agent:ops', { channelId: 'pager', attempt: 2, tries: 2, error: 'HTTP 503' }),
      'delivery to pager failed (attempt 2): HTTP 503');
    assert.equal(auditSentence('message.failed', 'agent:ops', { channelId: 'oncall-dm', attempts: 1, error: 'ECONNREFUSED' }),
      'delivery to oncall-dm failed (attempt 1): ECONNREFUSED');
    assert.equal(auditSentence('message.delivered', 'agent:ops', { channelId: 'oncall-dm', person: 'alice', deliveryId: 'e1.notify.alice', attempt: 1 }),
      'delivered to oncall-dm for alice, delivery e1.notify.alice, attempt 1');
    assert.equal(auditSentence('message.shadowed', 'agent:ops', { channelId: 'oncall-dm', person: 'alice', deliveryId: 'p1.1.alice.oncall-dm', attempt: 1 }),
      'shadow run: not sent to oncall-dm for alice, delivery p1.1.alice.oncall-dm');
    assert.equal(auditSentence('dlq.replayed', 'local:ana', { deadLetterId: 'd1', via: 'console' }), 'replayed by local:ana via console, letter d1');
  });

  it('says what happened to a page, exactly', () => {
    assert.equal(auditSentence('page.opened', 'agent:ops', { incidentKey: 'k', policy: 'default', eventId: 'e1' }), 'opened under policy default');
    assert.equal(auditSentence('page.opened', 'agent:ops', { policy: 'default', reopened: true }), 'reopened under policy default');
    assert.equal(auditSentence('page.notified', 'agent:ops', { step: 1, loop: 0, person: 'alice', channel: 'oncall-dm', deliveryId: 'x' }),
      'notified alice on oncall-dm (step 1)');
    assert.equal(auditSentence('page.notified', 'agent:ops', { step: 1, loop: 0, person: 'alice', channel: 'sms', deliveryId: 'x', rule: 1 }),
      'notified alice on sms (step 1, personal rule 1)');
    // A status update says what it told; a round says nothing more.
    assert.equal(auditSentence('page.notified', 'agent:ops', { step: 1, loop: 0, person: 'alice', channel: 'oncall-dm', deliveryId: 'x', kind: 'acknowledged' }),
      'notified alice on oncall-dm (step 1): told of the acknowledgement');
    assert.equal(auditSentence('page.notified', 'agent:ops', { step: 2, loop: 0, person: 'alice', channel: 'oncall-dm', deliveryId: 'x', kind: 'escalated-past' }),
      'notified alice on oncall-dm (step 2): told the page escalated past them');
    assert.equal(auditSentence('page.notified', 'agent:ops', { step: 1, loop: 0, person: 'alice', channel: 'oncall-dm', deliveryId: 'x', kind: 'escalation' }),
      'notified alice on oncall-dm (step 1)');
    assert.equal(auditSentence('page.repeated', 'agent:ops', { pageId: 'p1', eventId: 'e7', alerts: 2 }),
      'event e7 repeated alerts already on the page: nobody notified');
    assert.equal(auditSentence('page.acknowledged', 'slack:U123', { by: 'alice', via: 'slack', step: 1, loop: 0 }), 'acknowledged by alice via slack');
    assert.equal(auditSentence('page.acknowledged', 'cli:bob', { by: 'bob', via: 'cli', note: 'on it' }), 'acknowledged by bob via cli: on it');
    assert.equal(auditSentence('page.unacknowledged', 'agent:ops', { reason: 'ack-timeout', acknowledgedBy: 'alice' }),
      'back to triggered: alice did not resolve in time');
    assert.equal(auditSentence('page.escalated', 'cli:bob', { from: 1, to: 2, reason: 'manual', by: 'bob' }), 'escalated to step 2 (manual by bob)');
    assert.equal(auditSentence('page.resolved', 'user:ana', { by: 'user:ana', via: 'console' }), 'resolved by user:ana via console');
    assert.equal(auditSentence('page.nobody-on-call', 'agent:ops', { schedule: 'primary' }), 'nobody on call in primary');
    assert.equal(auditSentence('page.nobody-on-call', 'agent:ops', { person: 'bob', missing: true }), 'nobody reached: person bob is not in oncall.yaml');
    assert.equal(auditSentence('page.nobody-on-call', 'agent:ops', { schedule: 'old', missing: true }), 'nobody reached: schedule old is not in oncall.yaml');
    assert.equal(auditSentence('page.nobody-on-call', 'agent:ops', { channel: 'room', missing: true }), 'nobody reached: channel room is not in channels.yaml');
    assert.equal(auditSentence('page.call-failed', 'twilio:calls', { pageId: 'p1', person: 'alice', channel: 'phone', status: 'no-answer', callSid: 'CA1' }),
      'call to alice on phone not taken: no-answer (a failed try; the next step still comes)');
    assert.equal(auditSentence('page.ack-refused', 'telegram:42', { pageId: 'p1', via: 'telegram', user: '42', action: 'ack', reason: 'unknown-user' }),
      'ack by 42 via telegram refused: unknown-user');
  });

  it('says what operators did to schedules and silences, exactly', () => {
    assert.equal(auditSentence('schedule.override.added', 'local:ana', { overrideId: 'o1', schedule: 'primary', person: 'bob',
      from: '2026-11-26T09:00:00.000Z', to: '2026-11-26T18:00:00.000Z', via: 'console' }),
    'override: bob on call for primary from 2026-11-26T09:00:00.000Z to 2026-11-26T18:00:00.000Z, by local:ana via console');
    assert.equal(auditSentence('silence.created', 'cli:ana', { silenceId: 's1', endsAt: '2026-11-26T11:00:00.000Z', reason: 'disk swap' }),
      'silence s1 until 2026-11-26T11:00:00.000Z by cli:ana: disk swap');
    assert.equal(auditSentence('silence.expired', 'local:ana', { silenceId: 's1', reason: 'manual', via: 'console' }), 'silence s1 expired by local:ana via console');
    // Through a console as a person (§24.6): the person first, the door's identity beside.
    assert.equal(auditSentence('silence.expired', 'local:root', { silenceId: 's1', reason: 'manual', via: 'console', by: 'ana' }),
      'silence s1 expired by ana (local:root) via console');
    assert.equal(auditSentence('schedule.override.removed', 'user:ana@example.com', { schedule: 'primary', person: 'bob', via: 'console', by: 'ana' }),
      'override of bob in primary removed by ana (user:ana@example.com) via console');
    assert.equal(auditSentence('schedule.calendar.issued', 'cli:ana', { schedule: 'primary', person: 'bob' }), 'calendar URL of primary (bob\'s shifts) issued to cli:ana');
    assert.equal(auditSentence('schedule.calendar.issued', 'cli:ana', { schedule: 'primary', person: null }), 'calendar URL of primary issued to cli:ana');
  });

  it('tells a raised severity and a configuration reload in words', () => {
    assert.equal(auditSentence('triage.severity-raised', 'agent:a', { provider: 'anthropic', from: 'P3', to: 'P1', floor: 'rules' }),
      'model anthropic said P3; raised to P1 by llm.severityFloor (rules)');
    assert.equal(auditSentence('config.reloaded', 'signal:SIGHUP', { files: [], agents: ['a'] }), 'configuration reloaded by signal:SIGHUP');
    assert.equal(auditSentence('config.reload-refused', 'admin-socket', { reason: 'needs-restart', error: 'a: agent.yaml controlPlane.port' }),
      'configuration reload refused (needs-restart): a: agent.yaml controlPlane.port');
  });

  it('shows a kind it does not know, and missing or odd fields, without inventing anything', () => {
    assert.equal(auditSentence('store.backup', 'admin', { path: '/x' }), 'store.backup by admin');
    assert.equal(auditSentence('page.notified', 'agent:ops', null), 'notified ? on ? (step ?)');
    assert.equal(auditSentence('page.notified', 'agent:ops', { person: { nested: true }, channel: 'c', step: 1 }), 'notified ? on c (step 1)');
  });
});
