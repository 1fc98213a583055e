import assert from 'node:assert/strict';
import type { AuditRow, NewAuditEntry, StoredAuditRow } from '../audit/audit-row.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { fakeClock, systemClock } from '../core/clock.js';
import { openAuditReader } from './sqlite/audit-reader.js';
import type { Store } from './store.js';
import type { SegmentResult, VerifyResult } from '../audit/chain.js';
import {
  canonicalJson, canonicalRow, createChainVerifier, createSegmentVerifier, GENESIS_HASH, hashRow, mergeSegments,
  sha256Hex, storedRowHashMatches, storedRowText,
} from '../audit/chain.js';
import { sharedSqliteStore } from '../../test/support/shared-store.js';
import type { AuditChainVerifier } from './read-chain-verifier.js';
import { createReadChainVerifier, sharedRuns } from './read-chain-verifier.js';
import { createSqliteChainVerifier } from './sqlite/chain-verifier.js';

/** The generic verifier over a store's streaming reads. */
const readVerifier = (store: Store, chunkRows?: number): AuditChainVerifier => createReadChainVerifier({
  head: () => store.auditHead(), read: (afterSeq, limit) => store.readAudit(afterSeq, limit), clock: systemClock,
  ...(chunkRows === undefined ? {} : { chunkRows }) });

const T0 = Date.UTC(2024, 0, 1);
const root = mkdtempSync(join(tmpdir(), 'svc-verify-test-'));
// One store for the file, emptied for each test that seeds one (test/support/shared-store.ts): the
// verifiers read whatever chain the file holds, so a new file per test proved nothing more.
const shared = sharedSqliteStore('svc-verify-store-');
after(async () => {
  await shared.close();
  rmSync(root, { recursive: true, force: true });
});

/** Entries whose text exercises every branch of JSON string and number serialisation. */
const VARIED: NewAuditEntry[] = [
  { kind: 'event.accepted', actor: 'source:alertmanager', agentId: 'oncall-escalator', data: { eventId: 'e-1', fingerprint: null } },
  { kind: 'k', actor: 'svc', agentId: null, data: {} },
  { kind: 'unicode', actor: 'agent:é€😀中文', agentId: 'a.b_c-d', data: { 'é': 'ü', 'Z': 1, 'a': 2, '€': ['😀', '\u2028\u2029'] } },
  { kind: 'controls "quoted" \\ back', actor: 'tab\there\nnewline\r\u0001\u001f\u007f\b\f', agentId: 'x',
    data: { s: '\u0000\u0008\u000b\u001b"\\/</script>', lone: '\ud800', nested: { deep: [{ z: [1, [2, { y: null }]] }] } } },
  { kind: 'numbers', actor: 'svc', agentId: null,
    data: { n: [0, -0, 1, -5, 0.1, 1.5e-7, 1e21, 1e-7, 2 ** 53, 123456789.123, Number.MAX_VALUE, Number.MIN_VALUE, 5e-324] } },
  { kind: 'bools', actor: 'svc', agentId: 'agent-0', data: { t: true, f: false, arr: [], obj: { b: {}, a: [] } } },
  { kind: 'keys', actor: 'svc', agentId: null, data: { b: 1, a: 2, A: 3, '10': 4, '9': 5, '': 6, 'aa': 7, '\u0080': 8, '\uffff': 9 } },
];

function chainOf(entries: NewAuditEntry[]): AuditRow[] {
  const rows: AuditRow[] = [];
  let prevHash = GENESIS_HASH;
  entries.forEach((e, i) => {
    const unhashed = { seq: i + 1, ts: new Date(T0 + i).toISOString(), ...e, prevHash };
    const hash = hashRow(prevHash, unhashed);
    rows.push({ ...unhashed, hash });
    prevHash = hash;
  });
  return rows;
}

const stored = (r: AuditRow): StoredAuditRow => ({ ...r, dataText: canonicalJson(r.data) });

describe('audit chain: the fast stored-row path', () => {
  it('storedRowText is the RFC 8785 text of the row, and hashes like hashRow, for varied rows', () => {
    for (const row of chainOf(VARIED)) {
      assert.equal(storedRowText(stored(row)), canonicalRow(row));
      assert.equal(sha256Hex(`${row.prevHash}\n${storedRowText(stored(row))}`), hashRow(row.prevHash, row));
      assert.equal(storedRowHashMatches(stored(row)), true);
    }
  });

  it('the text SQLite builds for a stored row is the same text, for rows written by the store', async () => {
    const { path } = shared;
    const store = await shared.fresh();
    const written: AuditRow[] = [];
    for (const e of VARIED) written.push(await store.appendAudit(e, T0));
    const reader = openAuditReader(path);
    try {
      const rows = reader.hashRows(0, 1e9, 100);
      assert.equal(rows.length, VARIED.length);
      rows.forEach(([seq, prevHash, hash, hashInput], i) => {
        const w = written[i]!;
        assert.deepEqual([seq, prevHash, hash], [w.seq, w.prevHash, w.hash]);
        assert.equal(hashInput, `${w.prevHash}\n${canonicalRow(w)}`, `row ${seq}`);
        assert.equal(sha256Hex(hashInput), w.hash);
        assert.equal(storedRowHashMatches(reader.row(seq)!), true);
      });
      assert.deepEqual(reader.head(), { seq: VARIED.length, hash: written.at(-1)!.hash });
    } finally {
      reader.close();
      await store.close();
    }
  });

  it('data text that is not canonical but equal still matches; tampered or non-JSON data does not', () => {
    const row = stored(chainOf([{ kind: 'k', actor: 'a', agentId: null, data: { b: [1, 2], a: 'x' } }])[0]!);
    assert.equal(storedRowHashMatches({ ...row, dataText: '{ "b": [1, 2.0], "a": "\\u0078" }' }), true);
    assert.equal(storedRowHashMatches({ ...row, dataText: '{"a":"y","b":[1,2]}' }), false);
    assert.equal(storedRowHashMatches({ ...row, dataText: '{"a":' }), false);
    assert.equal(storedRowHashMatches({ ...row, kind: 'K' }), false);
  });
});

/** Deterministic PRNG, so a failure reproduces. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sequential(rows: AuditRow[]): VerifyResult {
  const v = createChainVerifier();
  for (const r of rows) v.push(r);
  return v.result();
}

function segmented(rows: AuditRow[], cuts: number[]): VerifyResult {
  const last = rows.at(-1);
  const head = last === undefined ? null : { seq: last.seq, hash: last.hash };
  const bounds = [0, ...cuts.filter((c) => head !== null && c > 0 && c < head.seq).sort((a, b) => a - b), head?.seq ?? 0];
  const results: SegmentResult[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [lo, hi] = [bounds[i]!, bounds[i + 1]!];
    const bySeq = new Map(rows.map((r) => [r.seq, r]));
    const v = createSegmentVerifier(lo, (seq) => storedRowHashMatches(stored(bySeq.get(seq)!)));
    for (const r of rows.filter((x) => x.seq > lo && x.seq <= hi)) {
      // A deliberately wrong fast text for some rows: the recheck must keep the verdict.
      const input = r.seq % 5 === 0 ? 'not the row' : `${r.prevHash}\n${storedRowText(stored(r))}`;
      if (!v.push(r.seq, r.prevHash, r.hash, input)) break;
    }
    results.push(v.result());
  }
  return mergeSegments(results, head);
}

describe('audit chain: slices merged', () => {
  it('any split of any tampered chain gives exactly the sequential result', () => {
    const rand = prng(42);
    const tampers = ['none', 'data', 'hash', 'prev', 'prev-rehashed', 'delete', 'delete-first', 'delete-last', 'two'] as const;
    for (let trial = 0; trial < 600; trial++) {
      const n = 1 + Math.floor(rand() * 30);
      const rows = chainOf(Array.from({ length: n }, (_, i) => ({ kind: 'k', actor: 'a', agentId: null, data: { i } })));
      const at = Math.floor(rand() * n);
      const tamper = tampers[trial % tampers.length]!;
      const r = rows[at]!;
      if (tamper === 'data') r.data = { i: -1 };
      if (tamper === 'hash') r.hash = 'f'.repeat(64);
      if (tamper === 'prev') r.prevHash = 'e'.repeat(64);
      if (tamper === 'prev-rehashed') {
        r.prevHash = 'e'.repeat(64);
        for (let i = at; i < rows.length; i++) {
          rows[i]!.hash = hashRow(rows[i]!.prevHash, rows[i]!);
          if (i + 1 < rows.length) rows[i + 1]!.prevHash = rows[i]!.hash;
        }
      }
      if (tamper === 'delete') rows.splice(at, 1);
      if (tamper === 'delete-first') rows.shift();
      if (tamper === 'delete-last') rows.pop();
      if (tamper === 'two') {
        r.data = { i: -2 };
        rows.splice(Math.floor(rand() * rows.length), 1);
      }
      const cuts = Array.from({ length: Math.floor(rand() * 6) }, () => Math.floor(rand() * (n + 2)));
      assert.deepEqual(segmented(rows, cuts), sequential(rows), `trial ${trial}: ${tamper} at ${at + 1}, cuts ${cuts.join(',')}`);
    }
  });
});

// ---- the verifiers on a real store file ----

async function seedStore(n: number): Promise<{ store: Store; path: string }> {
  const { path } = shared;
  const store = await shared.fresh();
  for (let i = 0; i < n; i++) {
    await store.appendAudit(VARIED[i % VARIED.length]!, T0);
  }
  return { store, path };
}

function sql(path: string, statement: string, ...params: unknown[]): void {
  const db = new Database(path);
  try {
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

/**
 * The worker verifier, with slices small enough that tampering lands on boundaries: one for the file's
 * store, as the daemon keeps one, so its threads start once (each start loads the worker's module
 * graph: most of a second) rather than once per case.
 */
let workerVerifier: AuditChainVerifier | null = null;
after(async () => { await workerVerifier?.close(); });

/** Both verifiers' answers for the shared store's file, which must agree. */
async function verifyBoth(store: Store, afterSeq?: number): Promise<VerifyResult> {
  workerVerifier ??= createSqliteChainVerifier({ path: shared.path, threads: 2, segmentRows: 7, chunkRows: 3 });
  const slow = readVerifier(store, 4);
  try {
    const a = await workerVerifier.verify(afterSeq);
    const b = await slow.verify(afterSeq);
    assert.deepEqual(a, b);
    return a;
  } finally {
    await slow.close();
  }
}

describe('audit chain verifiers on a SQLite file', () => {
  it('an empty chain verifies with no head', async () => {
    const { store } = await seedStore(0);
    assert.deepEqual(await verifyBoth(store),
      { ok: true, checked: 0, headSeq: 0, headHash: null, firstBadSeq: null, problem: null });
    await store.close();
  });

  it('an intact chain verifies whole, head included', async () => {
    const { store } = await seedStore(30);
    const head = (await store.listAudit({ limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, {})).items[0]!;
    assert.deepEqual(await verifyBoth(store),
      { ok: true, checked: 30, headSeq: 30, headHash: head.hash, firstBadSeq: null, problem: null });
    await store.close();
  });

  const cases: Array<{ name: string; tamper: (path: string) => void; problem: string; firstBadSeq: number; checked: number }> = [
    { name: 'data changed in the file', tamper: (p) => sql(p, `UPDATE audit SET data = '{"forged":true}' WHERE seq = 12`),
      problem: 'hash-mismatch', firstBadSeq: 12, checked: 12 },
    { name: 'data of a slice\'s first row', tamper: (p) => sql(p, `UPDATE audit SET data = '{}' WHERE seq = 8`),
      problem: 'hash-mismatch', firstBadSeq: 8, checked: 8 },
    { name: 'data that is not JSON', tamper: (p) => sql(p, `UPDATE audit SET data = '{"a":' WHERE seq = 20`),
      problem: 'hash-mismatch', firstBadSeq: 20, checked: 20 },
    { name: 'kind stored as a BLOB', tamper: (p) => sql(p, `UPDATE audit SET kind = X'6B' WHERE seq = 3`),
      problem: 'hash-mismatch', firstBadSeq: 3, checked: 3 },
    { name: 'prevHash changed', tamper: (p) => sql(p, `UPDATE audit SET prev_hash = ? WHERE seq = 17`, 'a'.repeat(64)),
      problem: 'prev-link-mismatch', firstBadSeq: 17, checked: 17 },
    { name: 'prevHash of a slice\'s first row', tamper: (p) => sql(p, `UPDATE audit SET prev_hash = ? WHERE seq = 15`, 'b'.repeat(64)),
      problem: 'prev-link-mismatch', firstBadSeq: 15, checked: 15 },
    { name: 'first row not linked to genesis', tamper: (p) => sql(p, `UPDATE audit SET prev_hash = ? WHERE seq = 1`, 'c'.repeat(64)),
      problem: 'prev-link-mismatch', firstBadSeq: 1, checked: 1 },
    { name: 'stored hash changed', tamper: (p) => sql(p, `UPDATE audit SET hash = ? WHERE seq = 25`, 'd'.repeat(64)),
      problem: 'hash-mismatch', firstBadSeq: 25, checked: 25 },
    { name: 'a row deleted', tamper: (p) => sql(p, 'DELETE FROM audit WHERE seq = 10'),
      problem: 'seq-gap', firstBadSeq: 10, checked: 10 },
    { name: 'the last row of a slice deleted', tamper: (p) => sql(p, 'DELETE FROM audit WHERE seq = 14'),
      problem: 'seq-gap', firstBadSeq: 14, checked: 14 },
    { name: 'a whole slice deleted', tamper: (p) => sql(p, 'DELETE FROM audit WHERE seq BETWEEN 7 AND 15'),
      problem: 'seq-gap', firstBadSeq: 7, checked: 7 },
    { name: 'the first row deleted', tamper: (p) => sql(p, 'DELETE FROM audit WHERE seq = 1'),
      problem: 'seq-gap', firstBadSeq: 1, checked: 1 },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.problem} at seq ${c.firstBadSeq}`, async () => {
      const { store, path } = await seedStore(30);
      const head = (await store.listAudit({ limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, {})).items[0]!;
      c.tamper(path);
      assert.deepEqual(await verifyBoth(store), {
        ok: false, checked: c.checked, headSeq: 30, headHash: head.hash, firstBadSeq: c.firstBadSeq, problem: c.problem,
      });
      await store.close();
    });
  }

  it('the rows after a seq (the story of an event, §20.3): what is before it is not read, its link to that row is', async () => {
    const { store, path } = await seedStore(30);
    const head = (await store.listAudit({ limit: 1, cursor: null, order: 'desc', sinceMs: null, untilMs: null }, {})).items[0]!;
    const result = (checked: number, problem: { seq: number; kind: string } | null = null) => ({ ok: problem === null, checked, headSeq: 30,
      headHash: head.hash, firstBadSeq: problem?.seq ?? null, problem: problem?.kind ?? null });
    assert.deepEqual(await verifyBoth(store, 20), result(10));
    assert.deepEqual(await verifyBoth(store, 30), result(0), 'nothing after the head');
    sql(path, `UPDATE audit SET data = '{"forged":true}' WHERE seq = 12`);
    assert.deepEqual(await verifyBoth(store, 20), result(10), 'a row before it is not its business');
    assert.deepEqual(await verifyBoth(store, 8), result(4, { seq: 12, kind: 'hash-mismatch' }));
    sql(path, `UPDATE audit SET hash = ? WHERE seq = 20`, 'e'.repeat(64));
    assert.deepEqual(await verifyBoth(store, 20), result(1, { seq: 21, kind: 'prev-link-mismatch' }), 'the first row checked must link to it');
    sql(path, 'DELETE FROM audit WHERE seq = 25');
    assert.deepEqual(await verifyBoth(store, 25), result(0, { seq: 25, kind: 'seq-gap' }), 'the row it starts after is gone');
    await store.close();
  });

  it('equal but non-canonical data text still verifies (the reference path decides)', async () => {
    const { store, path } = await seedStore(10);
    sql(path, `UPDATE audit SET data = '{ "fingerprint" : null, "eventId" : "e-1" }' WHERE seq = 1`);
    assert.equal((await verifyBoth(store)).ok, true);
    await store.close();
  });

  it('rows appended after a run started are left to the next run', async () => {
    const { store, path } = await seedStore(20);
    const v = createSqliteChainVerifier({ path, segmentRows: 5 });
    const running = v.verify();
    await store.appendAudit(VARIED[0]!, T0);
    assert.equal((await running).headSeq, 20);
    assert.equal((await v.verify()).headSeq, 21);
    await v.close();
    await store.close();
  });
});

describe('audit chain verifiers: single flight and lifecycle', () => {
  it('sharedRuns: calls during a run share the next one, started when it settles; never a run older than the call', async () => {
    let runs = 0;
    const f = sharedRuns(async () => { runs += 1; await new Promise((r) => setTimeout(r, 20)); return runs; });
    const first = f();
    const [a, b, c] = await Promise.all([first, f(), f()]);
    assert.deepEqual([a, b, c, runs], [1, 2, 2, 2]);
    assert.equal(await f(), 3);
    // Callers waiting for the next run share one from the lowest seq they asked for: never fewer rows.
    const from: number[] = [];
    const g = sharedRuns(async (afterSeq) => { from.push(afterSeq); await new Promise((r) => setTimeout(r, 20)); return afterSeq; });
    const all = g();
    assert.deepEqual(await Promise.all([all, g(12), g(5), g(9)]), [0, 5, 5, 5]);
    assert.deepEqual(from, [0, 5]);
    const failing = sharedRuns(() => Promise.reject(new Error('boom')));
    const failed = failing();
    const after = failing();
    await assert.rejects(failed, /boom/);
    await assert.rejects(after, /boom/);
  });

  it('concurrent verify() calls of the SQLite verifier are at most two runs', async () => {
    const { store, path } = await seedStore(15);
    const v = createSqliteChainVerifier({ path, segmentRows: 4 });
    const p1 = v.verify();
    const p2 = v.verify();
    const p3 = v.verify();
    assert.notEqual(p1, p2);
    assert.equal(p2, p3);
    assert.equal((await p1).ok, true);
    assert.equal((await p2).ok, true);
    const p4 = v.verify();
    assert.notEqual(p4, p2);
    await p4;
    await v.close();
    await store.close();
  });

  it('a call made while a run is under way sees a row the run had read already, as changed since (contract §20.1)', async () => {
    const { store, path } = await seedStore(40);
    let reads = 0;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    let firstChunkRead: () => void = () => undefined;
    const firstChunk = new Promise<void>((resolve) => { firstChunkRead = resolve; });
    // The first run reads rows 1-4, then waits until the test lets it go on.
    const v = createReadChainVerifier({ head: () => store.auditHead(), clock: systemClock, chunkRows: 4, read: async (afterSeq, limit) => {
      const rows = await store.readAudit(afterSeq, limit);
      if (++reads === 1) {
        firstChunkRead();
        await gate;
      }
      return rows;
    } });
    const outside = new Database(path);
    try {
      const running = v.verify();
      await firstChunk;
      outside.prepare('UPDATE audit SET data = ? WHERE seq = 2').run('{"tampered":true}');
      const later = v.verify();
      open();
      assert.equal((await running).ok, true, 'the run under way read row 2 before the change');
      const result = await later;
      assert.deepEqual([result.ok, result.firstBadSeq, result.problem], [false, 2, 'hash-mismatch']);
    } finally {
      outside.close();
      await v.close();
      await store.close();
    }
  });

  it('close() rejects a run under way and every later one', async () => {
    const { store, path } = await seedStore(15);
    const v = createSqliteChainVerifier({ path, segmentRows: 2 });
    const running = v.verify();
    const closing = v.close();
    await assert.rejects(running, /closed/);
    await closing;
    await assert.rejects(v.verify(), /closed/);
    const s = readVerifier(store);
    await s.close();
    await assert.rejects(s.verify(), /closed/);
    await store.close();
  });

  it('workers that stay silent fail the run instead of hanging it; the next run starts afresh', async () => {
    const { store, path } = await seedStore(5);
    // No worker can even start in 1 ms.
    const v = createSqliteChainVerifier({ path, stallMs: 1 });
    await assert.rejects(v.verify(), /silent for 1 ms/);
    await assert.rejects(v.verify(), /silent for 1 ms/);
    await v.close();
    const patient = createSqliteChainVerifier({ path });
    assert.equal((await patient.verify()).ok, true);
    await patient.close();
    await store.close();
  });

  it('a run begun while idle workers are being stopped is not failed by their exit', async () => {
    const { store, path } = await seedStore(15);
    const clock = fakeClock();
    const v = createSqliteChainVerifier({ path, segmentRows: 2, idleMs: 1_000, clock });
    try {
      assert.equal((await v.verify()).ok, true);
      // The idle stop begins: the workers are told to terminate, and their exits come later, while the
      // next run is already under way (under load, seconds later). Before, each exit failed that run
      // with 'audit verify worker exited (code 1)' — a 500 for a request after 30 quiet seconds.
      clock.advance(1_000);
      const next = await v.verify();
      assert.deepEqual([next.ok, next.checked], [true, 15]);
    } finally {
      await v.close();
      await store.close();
    }
  });

  it('a store file that cannot be read rejects the run (the route turns it into a 500)', async () => {
    const v = createSqliteChainVerifier({ path: join(root, 'missing', 'svc.db') });
    await assert.rejects(v.verify());
    await v.close();
  });
});
