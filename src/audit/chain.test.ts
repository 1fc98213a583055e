import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { AuditRow } from '../audit/audit-row.js';
import {
  AUDIT_PROBLEMS, canonicalJson, canonicalRow, createChainVerifier, GENESIS_HASH, hashRow,
} from './chain.js';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

function makeChain(n: number): AuditRow[] {
  const rows: AuditRow[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const unhashed = {
      seq, ts: new Date(Date.UTC(2024, 0, 1, 0, 0, seq)).toISOString(), kind: 'test.row', actor: 'svc',
      agentId: seq % 2 === 0 ? 'agent-a' : null, data: { n: seq, tags: ['x', seq] }, prevHash,
    };
    const hash = hashRow(prevHash, unhashed);
    rows.push({ ...unhashed, hash });
    prevHash = hash;
  }
  return rows;
}

function verify(rows: AuditRow[]) {
  const v = createChainVerifier();
  for (const r of rows) v.push(r);
  return v.result();
}

/** Re-hashes rows from index `from` on, so only the tampering under test is visible. */
function rehashFrom(rows: AuditRow[], from: number): void {
  for (let i = from; i < rows.length; i++) {
    const row = rows[i]!;
    row.hash = hashRow(row.prevHash, row);
    if (i + 1 < rows.length) rows[i + 1]!.prevHash = row.hash;
  }
}

describe('audit chain', () => {
  it('genesis is 64 zeros and the problem vocabulary is the contract one', () => {
    assert.equal(GENESIS_HASH, '0'.repeat(64));
    assert.deepEqual([...AUDIT_PROBLEMS].sort(), ['hash-mismatch', 'prev-link-mismatch', 'seq-gap']);
  });

  it('known answer: SHA-256 of prevHash, newline and the RFC 8785 text of the row', () => {
    const row = {
      seq: 1, ts: '2024-01-01T00:00:00.000Z', kind: 'event.accepted', actor: 'source:alertmanager',
      agentId: null, data: { zeta: 1.5e-7, alpha: 'é€', mid: [true, null, 10] }, prevHash: GENESIS_HASH,
    };
    // Written by hand: keys sorted by UTF-16 code units, no whitespace, ES number formatting.
    const canonical = '{"actor":"source:alertmanager","agentId":null,"data":{"alpha":"é€","mid":[true,null,10],'
      + `"zeta":1.5e-7},"kind":"event.accepted","prevHash":"${GENESIS_HASH}","seq":1,`
      + '"ts":"2024-01-01T00:00:00.000Z"}';
    assert.equal(canonicalRow(row), canonical);
    assert.equal(hashRow(GENESIS_HASH, row), sha256(`${GENESIS_HASH}\n${canonical}`));
    // A `hash` property on the input is not part of what is hashed.
    assert.equal(canonicalRow({ ...row, hash: 'ff' } as AuditRow), canonical);
  });

  it('canonicalJson refuses values JSON cannot carry', () => {
    assert.throws(() => canonicalJson({ x: Number.NaN }));
    assert.throws(() => canonicalJson(undefined));
  });

  it('an intact chain verifies', () => {
    const rows = makeChain(25);
    assert.deepEqual(verify(rows), {
      ok: true, checked: 25, headSeq: 25, headHash: rows[24]!.hash, firstBadSeq: null, problem: null,
    });
  });

  it('an empty chain verifies with no head', () => {
    assert.deepEqual(verify([]), { ok: true, checked: 0, headSeq: 0, headHash: null, firstBadSeq: null, problem: null });
  });

  it('tampered data → hash-mismatch at that seq; later rows are not checked', () => {
    const rows = makeChain(10);
    rows[4]!.data = { n: 999, tags: ['x', 5] };
    assert.deepEqual(verify(rows), {
      ok: false, checked: 5, headSeq: 10, headHash: rows[9]!.hash, firstBadSeq: 5, problem: 'hash-mismatch',
    });
  });

  it('tampered stored hash → hash-mismatch at that row', () => {
    const rows = makeChain(6);
    rows[2]!.hash = 'a'.repeat(64);
    const r = verify(rows);
    assert.equal(r.problem, 'hash-mismatch');
    assert.equal(r.firstBadSeq, 3);
  });

  it('tampered prevHash (row re-hashed) → prev-link-mismatch', () => {
    const rows = makeChain(10);
    rows[3]!.prevHash = 'b'.repeat(64);
    rehashFrom(rows, 3);
    const r = verify(rows);
    assert.deepEqual({ ok: r.ok, problem: r.problem, firstBadSeq: r.firstBadSeq, checked: r.checked },
      { ok: false, problem: 'prev-link-mismatch', firstBadSeq: 4, checked: 4 });
  });

  it('first row not linked to genesis → prev-link-mismatch at 1', () => {
    const rows = makeChain(3);
    rows[0]!.prevHash = '1'.repeat(64);
    rehashFrom(rows, 0);
    assert.equal(verify(rows).problem, 'prev-link-mismatch');
    assert.equal(verify(rows).firstBadSeq, 1);
  });

  it('deleted row → seq-gap naming the missing seq', () => {
    const rows = makeChain(10);
    rows.splice(2, 1); // seq 3 gone
    const r = verify(rows);
    assert.deepEqual({ ok: r.ok, problem: r.problem, firstBadSeq: r.firstBadSeq, checked: r.checked, headSeq: r.headSeq },
      { ok: false, problem: 'seq-gap', firstBadSeq: 3, checked: 3, headSeq: 10 });
  });

  it('a chain that does not start at 1 → seq-gap at 1', () => {
    const rows = makeChain(4).slice(1);
    const r = verify(rows);
    assert.equal(r.problem, 'seq-gap');
    assert.equal(r.firstBadSeq, 1);
    assert.equal(r.checked, 1);
  });

  it('seq is checked before the link, the link before the hash', () => {
    const rows = makeChain(5);
    rows.splice(1, 1); // seq 2 gone: row 3 has a seq gap *and* a broken link
    assert.equal(verify(rows).problem, 'seq-gap');
    const rows2 = makeChain(5);
    rows2[2]!.prevHash = 'c'.repeat(64); // link broken and hash stale
    assert.equal(verify(rows2).problem, 'prev-link-mismatch');
  });

  it('verifies incrementally: pushing in chunks gives the same result', () => {
    const rows = makeChain(50);
    rows[37]!.kind = 'forged';
    const v = createChainVerifier();
    for (let i = 0; i < rows.length; i += 7) for (const r of rows.slice(i, i + 7)) v.push(r);
    assert.deepEqual(v.result(), verify(rows));
    assert.equal(v.result().firstBadSeq, 38);
  });
});
