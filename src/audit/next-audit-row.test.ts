import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { parseStoredAuditRow } from './audit-row.js';
import { createChainVerifier, GENESIS_HASH, storedRowHashMatches } from './chain.js';
import { EMPTY_AUDIT_HEAD, headAfter, nextAuditRow, planAuditRows, stampMs } from './next-audit-row.js';

const T0 = Date.UTC(2026, 0, 1);
const entry = (n: number) => ({ kind: 'test.row', actor: 'operator:a', agentId: 'agent-1', data: { n, z: 'last', a: 'first' } });

test('the first row follows genesis: seq 1, prevHash of 64 zeros, ts from the clock', () => {
  const clock = fakeClock(T0);
  const row = nextAuditRow(EMPTY_AUDIT_HEAD, entry(1), clock.now());
  assert.equal(row.seq, 1);
  assert.equal(row.prevHash, GENESIS_HASH);
  assert.equal(row.ts, '2026-01-01T00:00:00.000Z');
  assert.equal(row.tsMs, T0);
  // Data is stored as RFC 8785 text: keys sorted, so any verifier recomputes the same hash.
  assert.equal(row.dataText, '{"a":"first","n":1,"z":"last"}');
  assert.ok(storedRowHashMatches(row));
});

test('timestamps never go back in seq when the wall clock steps back', () => {
  const clock = fakeClock(T0);
  const first = nextAuditRow(EMPTY_AUDIT_HEAD, entry(1), clock.now());
  clock.set(T0 - 60_000); // NTP steps the clock back a minute
  const second = nextAuditRow(headAfter(first), entry(2), clock.now());
  assert.equal(second.tsMs, T0, 'stamped with the head\'s time, not the earlier clock');
  clock.set(T0 + 5_000);
  const third = nextAuditRow(headAfter(second), entry(3), clock.now());
  assert.equal(third.tsMs, T0 + 5_000, 'and with the clock again once it is ahead');
  assert.equal(stampMs(T0, null), T0);
  assert.equal(stampMs(T0, T0 + 1), T0 + 1);
});

test('planned rows form a chain the verifier accepts, and the head moves to the last one', () => {
  const clock = fakeClock(T0);
  const { rows, head } = planAuditRows(EMPTY_AUDIT_HEAD, [entry(1), entry(2), entry(3)], clock.now());
  assert.deepEqual(rows.map((r) => r.seq), [1, 2, 3]);
  const verifier = createChainVerifier();
  for (const r of rows) verifier.push(parseStoredAuditRow(r));
  assert.deepEqual(verifier.result(), { ok: true, checked: 3, headSeq: 3, headHash: rows[2]?.hash, firstBadSeq: null, problem: null });
  assert.deepEqual(head, { seq: 3, hash: rows[2]?.hash, tsMs: T0 });
  // A row planned against a stale head does not link: the verifier names it.
  const stale = nextAuditRow(headAfter(rows[0]!), entry(9), clock.now());
  const broken = createChainVerifier();
  for (const r of [...rows, { ...stale, seq: 4 }]) broken.push(parseStoredAuditRow(r));
  assert.equal(broken.result().problem, 'prev-link-mismatch');
});
