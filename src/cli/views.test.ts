import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTable } from './table.js';
import { fakeClock } from '../core/clock.js';
import { auditView, dlqView, eventsView, verifyLine, verifyPassed, viewParams } from './views.js';
import type { DeadLetterItem, EventItem } from './views.js';

const alert = {
  status: 'resolved', commonLabels: { alertname: 'HighErrorRate', severity: 'critical' },
  commonAnnotations: { summary: 'checkout-api 5xx ratio above 5% for 10 minutes' },
};
const events: EventItem[] = [
  { id: 'cd69cc87-5f8b-426c-b5af-394f4ba0eec1', ts: '2026-11-25T18:21:54.013Z', agentId: 'oncall-escalator', sourceId: 'alertmanager', kind: 'alert',
    fingerprint: 'f'.repeat(64), status: 'processed', payload: alert,
    triage: { title: 'HighErrorRate on checkout-api-7f9c:8080', severity: 'P1', status: 'firing', triagedBy: 'anthropic:claude-haiku-4-5' } },
  { id: 'e713a3f4-2567-4a64-a375-e16a6e7b9bc7', ts: '2026-11-25T18:21:52.363Z', agentId: 'oncall-escalator', sourceId: 'alertmanager', kind: 'alert',
    status: 'accepted', payload: alert },
];
const letters: DeadLetterItem[] = [
  { id: '0b8f3c1e-9d7a-4e55-8a51-7d2f0c6b9e12', ts: '2026-11-25T18:30:00.000Z', agentId: 'oncall-escalator', sourceId: 'alertmanager',
    eventId: 'cd69cc87-5f8b-426c-b5af-394f4ba0eec1', reason: 'delivery-failed', error: 'connect ECONNREFUSED 127.0.0.1:9 after 31 attempts', attempts: 31,
    replayedAt: '2026-11-25T18:45:10.500Z' },
  { id: '7a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6', ts: '2026-11-25T18:29:00.000Z', agentId: 'oncall-escalator', sourceId: 'alertmanager',
    eventId: 'e713a3f4-2567-4a64-a375-e16a6e7b9bc7', reason: 'triage-failed', error: 'HTTP 529 overloaded', attempts: 3, replayedAt: null },
];
const table = <T>(view: { columns: typeof eventsView.columns; row: (i: T) => string[] }, items: T[], width: number): string =>
  formatTable(view.columns, items.map((i) => view.row(i)), { width });

describe('svc events as a person sees it', () => {
  it('at 80 columns: whole ids, firing/resolved, the title cut', () => {
    assert.equal(table(eventsView, events, 80), [
      'TS                    ID                                    STATUS    TITLE',
      '2026-11-25T18:21:54…  cd69cc87-5f8b-426c-b5af-394f4ba0eec1  firing    HighError…',
      '2026-11-25T18:21:52…  e713a3f4-2567-4a64-a375-e16a6e7b9bc7  resolved  checkout-…',
      '',
    ].join('\n'));
  });

  it('at 120 columns: severity beside the title; the payload speaks for an event not triaged yet', () => {
    assert.equal(table(eventsView, events, 120), [
      'TS                        ID                                    STATUS    SEV       TITLE',
      '2026-11-25T18:21:54.013Z  cd69cc87-5f8b-426c-b5af-394f4ba0eec1  firing    P1        HighErrorRate on checkout-api-7f9c:…',
      '2026-11-25T18:21:52.363Z  e713a3f4-2567-4a64-a375-e16a6e7b9bc7  resolved  critical  checkout-api 5xx ratio above 5% for…',
      '',
    ].join('\n'));
  });

  it('on a wide terminal: who triaged, agent, source, state and fingerprint too; piped: everything', () => {
    const wide = table(eventsView, events, 300);
    assert.match(wide, /^TS {24}ID {36}STATUS {4}SEV {7}TITLE {43}TRIAGED BY {18}AGENT {13}SOURCE {8}STATE {6}FINGERPRINT$/m);
    assert.match(wide, / anthropic:claude-haiku-4-5 {2}oncall-escalator {2}alertmanager {2}processed {2}f{64}$/m);
    assert.equal(formatTable(eventsView.columns, events.map((e) => eventsView.row(e))).split('\n')[0]?.split(/ {2,}/).length, 10);
  });
});

describe('svc dlq as a person sees it', () => {
  it('at 80 columns: whole ids and REPLAYED', () => {
    assert.equal(table(dlqView, letters, 80), [
      'TS                    ID                                    REASON      REPLAYED',
      '2026-11-25T18:30:00…  0b8f3c1e-9d7a-4e55-8a51-7d2f0c6b9e12  delivery-…  yes 202…',
      '2026-11-25T18:29:00…  7a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6  triage-fa…  no',
      '',
    ].join('\n'));
  });
  it('at 120 columns: when it was replayed, and the error', () => {
    assert.equal(table(dlqView, letters, 120), [
      'TS                     ID                                    REASON           REPLAYED                  ERROR',
      '2026-11-25T18:30:00.…  0b8f3c1e-9d7a-4e55-8a51-7d2f0c6b9e12  delivery-failed  yes 2026-11-25T18:45:10Z  connect ECONNRE…',
      '2026-11-25T18:29:00.…  7a1d2e3f-4b5c-4d6e-8f70-8192a3b4c5d6  triage-failed    no                        HTTP 529 overlo…',
      '',
    ].join('\n'));
  });
});

describe('svc audit as a person sees it', () => {
  it('at 80 columns: seq and hash whole', () => {
    const rows = [{ seq: 1650, ts: '2026-11-25T18:21:51.823Z', kind: 'message.delivered', actor: 'agent:oncall-escalator', agentId: 'oncall-escalator',
      prevHash: '0'.repeat(64), hash: 'f5309fb7d9ad4b36'.padEnd(64, '0'), data: {} }];
    assert.equal(formatTable(auditView.columns, rows.map((r) => auditView.row(r as never)), { width: 80 }), [
      'SEQ   TS                    KIND               ACTOR            HASH',
      '1650  2026-11-25T18:21:51…  message.delivered  agent:oncall-e…  f5309fb7d9ad4b36',
      '',
    ].join('\n'));
  });
});

describe('svc audit --verify as a person sees it', () => {
  const chain = { ok: true, checked: 18, headSeq: 18, headHash: 'a'.repeat(64), firstBadSeq: null, problem: null };
  it('the chain alone; the newest checkpoint holding; a checkpoint the chain contradicts fails though the chain verifies', () => {
    assert.equal(verifyLine(chain), `chain ok: 18 rows checked, head seq 18 ${'a'.repeat(64)}`);
    assert.equal(verifyPassed(chain), true);
    const none = { ...chain, checkpoints: { ok: true, checked: [], contradiction: null } };
    assert.equal(verifyLine(none), verifyLine(chain), 'nothing signed yet: nothing said');
    const holds = { ...chain, checkpoints: { ok: true, checked: [{ source: 'file' as const, seq: 17 }, { source: 'store' as const, seq: 15 }], contradiction: null } };
    assert.equal(verifyLine(holds), `chain ok: 18 rows checked, head seq 18 ${'a'.repeat(64)}; the newest checkpoint holds (seq 17)`);
    assert.equal(verifyPassed(holds), true);
    const message = '/h/checkpoints.jsonl: the checkpoint signed at 2026-11-25T15:49:00.615Z covers seq 20, but the chain ends at seq 18: rows after seq 18 were deleted';
    const cut = { ...chain, checkpoints: { ok: false, checked: [{ source: 'file' as const, seq: 20 }], contradiction: { source: 'file' as const,
      kind: 'missing-row' as const, seq: 20, hash: 'b'.repeat(64), chainHash: null, signedAt: '2026-11-25T15:49:00.615Z', headSeq: 18, message } } };
    assert.equal(verifyLine(cut), `chain ok: 18 rows checked, head seq 18 ${'a'.repeat(64)}; checkpoint CONTRADICTED: ${message}`);
    assert.equal(verifyPassed(cut), false);
  });
});

describe('--since and --until of the views', () => {
  it('a refused time names the command it was given to', () => {
    const clock = fakeClock(Date.parse('2026-11-29T12:00:00Z'));
    assert.throws(() => viewParams(eventsView, { since: '2026-11-29T10:00', json: false }, clock),
      { message: 'svc events: --since: "2026-11-29T10:00" has no time zone; write ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds' });
    assert.throws(() => viewParams(auditView, { until: 'yesterday', json: false }, clock), { message: /^svc audit: --until: expected an ISO-8601 timestamp/ });
    assert.equal(viewParams(dlqView, { since: '2h', json: false }, clock).get('since'), String(Date.parse('2026-11-29T10:00:00Z')));
  });
});
