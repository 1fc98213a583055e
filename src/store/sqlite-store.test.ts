import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createChainVerifier } from '../audit/chain.js';
import type { Clock } from '../core/clock.js';
import { fakeClock, systemClock } from '../core/clock.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { InvalidCursorError, openSqliteStore } from './sqlite-store.js';
import type { NewEvent, PageQuery, Store } from './store.js';

const WINDOW_MS = 15 * 60_000;
const T0 = Date.UTC(2024, 0, 1);

const root = mkdtempSync(join(tmpdir(), 'svc-store-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dbCount = 0;
const freshPath = (): string => join(root, `db-${++dbCount}`, 'svc.db');

const open = (path = freshPath(), clock: Clock = fakeClock(T0)): { store: Store; path: string } =>
  ({ store: openSqliteStore({ path, clock }), path });

const ev = (over: Partial<NewEvent> = {}): NewEvent => ({
  agentId: 'agent-a', sourceId: 'alertmanager', kind: 'webhook', fingerprint: null, payload: { n: 1 }, ...over,
});

const q = (over: Partial<PageQuery> = {}): PageQuery =>
  ({ limit: 100, cursor: null, order: 'desc', sinceMs: null, untilMs: null, ...over });

async function accept(store: Store, e: NewEvent): Promise<string> {
  const r = await store.ingestEvent(e, WINDOW_MS);
  assert.equal(r.outcome, 'accepted');
  return r.outcome === 'accepted' ? r.event.id : '';
}

async function verifyStore(store: Store, chunk = 7) {
  const v = createChainVerifier();
  let afterSeq = 0;
  for (;;) {
    const rows = await store.auditChunk(afterSeq, chunk);
    if (rows.length === 0) break;
    for (const r of rows) v.push(r);
    afterSeq = rows[rows.length - 1]!.seq;
  }
  return v.result();
}

/** Every page of a listing, following nextCursor; `between` runs after each page. */
async function walk<T>(list: (cursor: string | null) => Promise<{ items: T[]; nextCursor: string | null }>,
  between?: () => Promise<void>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await list(cursor);
    all.push(...page.items);
    if (page.nextCursor === null) return all;
    cursor = page.nextCursor;
    if (between) await between();
  }
}

describe('sqlite store: idempotency', () => {
  it('a fingerprint repeated inside the window is a duplicate naming the first event; after it, accepted', async () => {
    const clock = fakeClock(T0);
    const { store } = open(freshPath(), clock);
    const first = await store.ingestEvent(ev({ fingerprint: 'fp-1' }), WINDOW_MS);
    assert.equal(first.outcome, 'accepted');
    assert.ok(first.outcome === 'accepted');
    assert.deepEqual(first.event, {
      id: first.event.id, ts: '2024-01-01T00:00:00.000Z', agentId: 'agent-a', sourceId: 'alertmanager',
      kind: 'webhook', fingerprint: 'fp-1', status: 'accepted', payload: { n: 1 },
    });
    clock.advance(WINDOW_MS - 1);
    assert.deepEqual(await store.ingestEvent(ev({ fingerprint: 'fp-1' }), WINDOW_MS),
      { outcome: 'duplicate', eventId: first.event.id });
    clock.advance(1);
    const second = await store.ingestEvent(ev({ fingerprint: 'fp-1' }), WINDOW_MS);
    assert.equal(second.outcome, 'accepted');
    assert.ok(second.outcome === 'accepted');
    assert.notEqual(second.event.id, first.event.id);
    clock.advance(1000);
    assert.deepEqual(await store.ingestEvent(ev({ fingerprint: 'fp-1' }), WINDOW_MS),
      { outcome: 'duplicate', eventId: second.event.id });
    // A duplicate records nothing.
    const events = await store.listEvents(q(), {});
    assert.equal(events.items.length, 2);
    await store.close();
  });

  it('events without a fingerprint are never duplicates', async () => {
    const { store } = open();
    await accept(store, ev());
    await accept(store, ev());
    await store.close();
  });

  it('fingerprints are per (agent, source)', async () => {
    const { store } = open();
    await accept(store, ev({ fingerprint: 'same' }));
    await accept(store, ev({ fingerprint: 'same', sourceId: 'other-source' }));
    await accept(store, ev({ fingerprint: 'same', agentId: 'agent-b' }));
    assert.equal((await store.ingestEvent(ev({ fingerprint: 'same', agentId: 'agent-b' }), WINDOW_MS)).outcome,
      'duplicate');
    await store.close();
  });

  it('events, fingerprints and the chain survive close and reopen', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    const id = await accept(store, ev({ fingerprint: 'persist' }));
    await store.appendAudit({ kind: 'runtime.started', actor: 'svc', agentId: null, data: {} });
    await store.close();
    await store.close(); // idempotent
    await assert.rejects(store.listEvents(q(), {}));

    clock.advance(60_000);
    const reopened = openSqliteStore({ path, clock });
    assert.deepEqual(await reopened.ingestEvent(ev({ fingerprint: 'persist' }), WINDOW_MS),
      { outcome: 'duplicate', eventId: id });
    assert.deepEqual((await reopened.pendingEvents()).map((e) => e.id), [id]);
    const row = await reopened.appendAudit({ kind: 'runtime.started', actor: 'svc', agentId: null, data: {} });
    assert.equal(row.seq, 3);
    assert.equal((await verifyStore(reopened)).ok, true);
    await reopened.close();
    // Owner-only file: payloads may be sensitive.
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it('expired fingerprints are pruned, live ones kept', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    await accept(store, ev({ fingerprint: 'old' })); // first ingest after open prunes (nothing yet)
    await store.close();
    clock.advance(WINDOW_MS + 1);
    const reopened = openSqliteStore({ path, clock });
    await accept(reopened, ev({ fingerprint: 'new' })); // prunes 'old'
    await reopened.close();
    const db = new Database(path, { readonly: true });
    const fps = db.prepare('SELECT fingerprint FROM fingerprints ORDER BY fingerprint').pluck().all();
    db.close();
    assert.deepEqual(fps, ['new']);
  });
});

describe('sqlite store: atomicity and the audit chain', () => {
  it('ingest writes event, fingerprint and audit row together, or nothing', async () => {
    const { store, path } = open();
    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER fail_audit BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`);
    await assert.rejects(store.ingestEvent(ev({ fingerprint: 'fp' }), WINDOW_MS), /disk on fire/);
    const count = (t: string) => raw.prepare(`SELECT count(*) FROM ${t}`).pluck().get();
    assert.deepEqual([count('events'), count('fingerprints'), count('audit')], [0, 0, 0]);
    raw.exec('DROP TRIGGER fail_audit');
    raw.close();
    // The sender's retry is accepted, not a duplicate.
    const id = await accept(store, ev({ fingerprint: 'fp' }));
    const [row] = (await store.listAudit(q({ order: 'asc' }), {})).items;
    assert.deepEqual({ ...row, hash: '', ts: '' }, {
      seq: 1, ts: '', kind: 'event.accepted', actor: 'source:alertmanager', agentId: 'agent-a',
      data: { eventId: id, sourceId: 'alertmanager', fingerprint: 'fp' }, prevHash: '0'.repeat(64), hash: '',
    });
    await store.close();
  });

  it('a dead letter, its event status and its audit row are written together, or nothing', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    const eventId = await accept(store, ev());
    const letter = { agentId: 'agent-a', sourceId: 'alertmanager', eventId, reason: 'delivery-failed',
      error: 'HTTP 503', attempts: 3, payload: { text: 'hi' } };

    const raw = new Database(path);
    raw.exec(`CREATE TRIGGER fail_audit BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'no'); END`);
    await assert.rejects(store.addDeadLetter(letter));
    assert.equal(raw.prepare('SELECT count(*) FROM dead_letters').pluck().get(), 0);
    assert.equal(raw.prepare('SELECT status FROM events').pluck().get(), 'accepted');
    raw.exec('DROP TRIGGER fail_audit');
    raw.close();

    await assert.rejects(store.addDeadLetter({ ...letter, eventId: 'no-such-event' }));

    clock.advance(5000);
    const dl = await store.addDeadLetter(letter);
    assert.deepEqual(dl, { ...letter, id: dl.id, ts: '2024-01-01T00:00:05.000Z' });
    assert.deepEqual((await store.listDeadLetters(q(), {})).items, [dl]);
    assert.equal((await store.listEvents(q(), {})).items[0]!.status, 'dead-lettered');
    assert.deepEqual(await store.pendingEvents(), []);
    const audit = (await store.listAudit(q({ order: 'asc' }), {})).items;
    assert.deepEqual(audit.map((r) => r.seq), [1, 2]);
    assert.deepEqual({ kind: audit[1]!.kind, actor: audit[1]!.actor, agentId: audit[1]!.agentId, data: audit[1]!.data }, {
      kind: 'event.dead-lettered', actor: 'agent:agent-a', agentId: 'agent-a',
      data: { eventId, deadLetterId: dl.id, reason: 'delivery-failed', attempts: 3 },
    });
    await store.close();
  });

  it('the chain verifies after mixed operations, and tampering in the file is found', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      clock.advance(10);
      const r = await store.ingestEvent(ev({ fingerprint: `f${i % 15}`, payload: { i } }), WINDOW_MS);
      ids.push(r.outcome === 'accepted' ? r.event.id : r.eventId);
      if (i % 3 === 0) await store.appendAudit({ kind: 'dispatch.done', actor: 'agent:agent-a', agentId: 'agent-a',
        data: { i, nested: { b: [1, 2], a: 'ü' }, dropped: undefined } });
      if (i % 5 === 0) await store.setEventStatus(ids[i]!, 'processing');
    }
    await store.addDeadLetter({ agentId: 'agent-a', sourceId: 'alertmanager', eventId: ids[0]!, reason: 'triage-failed',
      error: 'x', attempts: 1, payload: null });
    await assert.rejects(store.setEventStatus('missing', 'processed'));
    await assert.rejects(store.appendAudit({ kind: 'bad', actor: 'svc', agentId: null, data: { x: Number.NaN } }));

    const result = await verifyStore(store);
    const head = (await store.listAudit(q({ limit: 1 }), {})).items[0]!;
    assert.deepEqual(result, { ok: true, checked: head.seq, headSeq: head.seq, headHash: head.hash,
      firstBadSeq: null, problem: null });
    assert.equal(head.seq, 15 + 7 + 1); // 15 accepted (5 duplicates), 7 dispatch rows, 1 dead letter
    await store.close();

    const raw = new Database(path);
    raw.prepare(`UPDATE audit SET data = '{"i":99}' WHERE seq = 4`).run();
    raw.close();
    const tampered = openSqliteStore({ path, clock });
    const bad = await verifyStore(tampered);
    assert.deepEqual({ ok: bad.ok, problem: bad.problem, firstBadSeq: bad.firstBadSeq, checked: bad.checked },
      { ok: false, problem: 'hash-mismatch', firstBadSeq: 4, checked: 4 });
    await tampered.close();
  });

  it('two store instances on one file append alternately without forking the chain', async () => {
    const path = freshPath();
    const a = openSqliteStore({ path, clock: systemClock });
    const b = openSqliteStore({ path, clock: systemClock });
    for (let i = 0; i < 50; i++) {
      const ra = await a.appendAudit({ kind: 'w', actor: 'a', agentId: null, data: { i } });
      const rb = await b.appendAudit({ kind: 'w', actor: 'b', agentId: null, data: { i } });
      assert.equal(rb.seq, ra.seq + 1);
      assert.equal(rb.prevHash, ra.hash);
      await (i % 2 === 0 ? a : b).ingestEvent(ev(), WINDOW_MS);
    }
    assert.deepEqual(await verifyStore(a, 33), { ...(await verifyStore(b)), checked: 150 });
    assert.equal((await verifyStore(a)).ok, true);
    await a.close();
    await b.close();
  });

  it('two processes appending at the same time do not fork the chain', async () => {
    const path = freshPath();
    const init = openSqliteStore({ path, clock: systemClock });
    await init.close();
    const storeUrl = new URL('./sqlite-store.ts', import.meta.url).href;
    const script = join(root, 'writer.mts');
    writeFileSync(script, `import { openSqliteStore } from ${JSON.stringify(storeUrl)};
      const s = openSqliteStore({ path: process.argv[2], clock: { now: () => Date.now() } });
      for (let i = 0; i < 200; i++) await s.appendAudit({ kind: 'w', actor: process.argv[3], agentId: null, data: { i } });
      await s.close();`);
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const runWriter = (name: string) => new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, path, name], { cwd, stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', resolve);
    });
    assert.deepEqual(await Promise.all([runWriter('p1'), runWriter('p2')]), [0, 0]);
    const store = openSqliteStore({ path, clock: systemClock });
    const r = await verifyStore(store, 97);
    assert.deepEqual({ ok: r.ok, checked: r.checked }, { ok: true, checked: 400 });
    await store.close();
  });
});

describe('sqlite store: pages', () => {
  it('walking every page while rows are written returns each earlier row exactly once, in order', async () => {
    const { store } = open(freshPath(), systemClock);
    const before: string[] = [];
    for (let i = 0; i < 2500; i++) before.push(await accept(store, ev({ agentId: i % 2 ? 'agent-a' : 'agent-b' })));
    let added = 0;
    const writeMore = async () => { for (let k = 0; k < 3; k++, added++) await accept(store, ev({ payload: { added } })); };

    for (const order of ['asc', 'desc'] as const) {
      const seen = (await walk((cursor) => store.listEvents(q({ order, cursor }), {}), writeMore)).map((e) => e.id);
      assert.equal(new Set(seen).size, seen.length, `${order}: no row twice`);
      const known = new Set(before);
      const old = seen.filter((id) => known.has(id));
      assert.deepEqual(old, order === 'asc' ? before : [...before].reverse());
    }
    assert.ok(added > 0);
    await store.close();
  });

  it('nextCursor is null on the last page, also when the rows fill it exactly', async () => {
    const { store } = open();
    for (let i = 0; i < 200; i++) await accept(store, ev());
    const p1 = await store.listEvents(q(), {});
    assert.equal(p1.items.length, 100);
    assert.notEqual(p1.nextCursor, null);
    const p2 = await store.listEvents(q({ cursor: p1.nextCursor }), {});
    assert.equal(p2.items.length, 100);
    assert.equal(p2.nextCursor, null);
    assert.deepEqual(await store.listEvents(q(), { agent: 'nobody' }), { items: [], nextCursor: null });
    await store.close();
  });

  it('filters: events by agent, source and kind; dead letters by reason; audit by kind and agent', async () => {
    const { store } = open();
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      ids.push(await accept(store, ev({ agentId: `agent-${i % 3}`, sourceId: `src-${i % 2}`, kind: i % 5 ? 'webhook' : 'manual' })));
    }
    const events = (f: Parameters<Store['listEvents']>[1]) => walk((cursor) => store.listEvents(q({ limit: 7, cursor }), f));
    const byAgent = await events({ agent: 'agent-1' });
    assert.equal(byAgent.length, 20);
    assert.ok(byAgent.every((e) => e.agentId === 'agent-1'));
    const combo = await events({ agent: 'agent-0', source: 'src-0', kind: 'manual' });
    assert.deepEqual(combo.map((e) => e.id), [ids[30], ids[0]]); // i ≡ 0 mod 30, newest first
    assert.equal((await events({ kind: 'manual' })).length, 12);

    for (let i = 0; i < 9; i++) {
      await store.addDeadLetter({ agentId: `agent-${i % 3}`, sourceId: `src-${i % 2}`, eventId: ids[i]!,
        reason: i % 2 ? 'triage-failed' : 'delivery-failed', error: 'e', attempts: 1, payload: {} });
    }
    const dl = await walk((cursor) => store.listDeadLetters(q({ limit: 2, cursor }), { reason: 'triage-failed', source: 'src-1' }));
    assert.deepEqual(dl.map((d) => d.eventId), [ids[7], ids[5], ids[3], ids[1]]);
    assert.equal((await store.listDeadLetters(q(), { agent: 'agent-2' })).items.length, 3);

    const audit = await walk((cursor) => store.listAudit(q({ order: 'asc', limit: 4, cursor }), { kind: 'event.dead-lettered', agent: 'agent-0' }));
    assert.deepEqual(audit.map((r) => r.data.eventId), [ids[0], ids[3], ids[6]]);
    assert.ok(audit.every((r, k) => k === 0 || r.seq > audit[k - 1]!.seq));
    await store.close();
  });

  it('since and until are inclusive ms bounds on ts, for every listing', async () => {
    const clock = fakeClock(T0);
    const { store } = open(freshPath(), clock);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      clock.set(T0 + i * 1000);
      ids.push(await accept(store, ev()));
    }
    const range = async (sinceMs: number | null, untilMs: number | null, order: 'asc' | 'desc' = 'asc') =>
      (await walk((cursor) => store.listEvents(q({ order, cursor, sinceMs, untilMs, limit: 4 }), {}))).map((e) => e.id);
    assert.deepEqual(await range(T0 + 10_000, T0 + 14_000), ids.slice(10, 15));
    assert.deepEqual(await range(T0 + 10_500, T0 + 14_999, 'desc'), ids.slice(11, 15).reverse());
    assert.deepEqual(await range(T0 + 25_000, null), ids.slice(25));
    assert.deepEqual(await range(null, T0 + 2000), ids.slice(0, 3));
    assert.deepEqual(await range(T0 + 100_000, null), []);
    assert.deepEqual(await range(null, T0 - 1), []);
    assert.deepEqual(await range(T0 + 5000, T0 + 4000), []);

    const audit = await store.listAudit(q({ sinceMs: T0 + 28_000, order: 'asc' }), {});
    assert.deepEqual(audit.items.map((r) => r.data.eventId), ids.slice(28));
    await store.addDeadLetter({ agentId: 'agent-a', sourceId: 'alertmanager', eventId: ids[0]!, reason: 'r',
      error: 'e', attempts: 1, payload: null });
    assert.equal((await store.listDeadLetters(q({ sinceMs: T0 + 29_000, untilMs: T0 + 29_000 }), {})).items.length, 1);
    assert.equal((await store.listDeadLetters(q({ untilMs: T0 + 28_999 }), {})).items.length, 0);
    await store.close();
  });

  it('timestamps never go backwards in seq order, even when the clock does', async () => {
    const clock = fakeClock(T0 + 10_000);
    const { store } = open(freshPath(), clock);
    await accept(store, ev());
    clock.set(T0); // wall clock stepped back 10 s
    const r = await store.ingestEvent(ev(), WINDOW_MS);
    assert.ok(r.outcome === 'accepted');
    assert.equal(r.event.ts, '2024-01-01T00:00:10.000Z');
    const audit = (await store.listAudit(q({ order: 'asc' }), {})).items;
    assert.deepEqual(audit.map((a) => a.ts), ['2024-01-01T00:00:10.000Z', '2024-01-01T00:00:10.000Z']);
    await store.close();
  });

  it('a malformed cursor or one from the other order is an InvalidCursorError', async () => {
    const { store } = open();
    for (let i = 0; i < 3; i++) await accept(store, ev());
    const asc = (await store.listEvents(q({ order: 'asc', limit: 1 }), {})).nextCursor;
    assert.ok(asc !== null);
    const bad = [
      'not a cursor', '!!!', '', 'x'.repeat(201), Buffer.from('{"v":2,"k":1,"o":"asc"}').toString('base64url'),
      Buffer.from('{"v":1,"k":1.5,"o":"asc"}').toString('base64url'), Buffer.from('[1]').toString('base64url'),
      Buffer.from('{"v":1,"k":1,"o":"up"}').toString('base64url'),
    ];
    for (const cursor of bad) {
      await assert.rejects(store.listEvents(q({ cursor }), {}), (err: unknown) =>
        err instanceof InvalidCursorError && err.param === 'cursor' && err.code === 'EINVALID_CURSOR', cursor);
    }
    await assert.rejects(store.listEvents(q({ order: 'desc', cursor: asc }), {}), InvalidCursorError);
    await assert.rejects(store.listAudit(q({ order: 'desc', cursor: asc }), {}), InvalidCursorError);
    assert.equal((await store.listEvents(q({ order: 'asc', cursor: asc }), {})).items.length, 2);
    await store.close();
  });

  it('cursors round-trip and stay short', () => {
    const c = encodeCursor({ key: 9_007_199_254_740_991, order: 'desc' });
    assert.ok(c.length < 60 && /^[A-Za-z0-9_-]+$/.test(c));
    assert.deepEqual(decodeCursor(c), { ok: true, key: 9_007_199_254_740_991, order: 'desc' });
    assert.deepEqual(decodeCursor(encodeCursor({ key: -1, order: 'asc' })), { ok: false });
  });
});

describe('sqlite store: group commit', () => {
  const all = { limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null } as const;

  it('concurrent ingests of one fingerprint in one batch: one accepted, the rest duplicates of it', async () => {
    const { store } = open();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.ingestEvent(ev({ fingerprint: 'same' }), WINDOW_MS)));
    const accepted = results.filter((r) => r.outcome === 'accepted');
    assert.equal(accepted.length, 1);
    const first = accepted[0]?.outcome === 'accepted' ? accepted[0].event.id : '';
    for (const r of results) if (r.outcome === 'duplicate') assert.equal(r.eventId, first);
    assert.equal((await store.listEvents(all, {})).items.length, 1);
    await store.close();
  });

  it('an event that cannot be stored fails alone; the rest of its batch is committed', async () => {
    const { store } = open();
    const settled = await Promise.allSettled([
      store.ingestEvent(ev({ fingerprint: 'a' }), WINDOW_MS),
      store.ingestEvent(ev({ fingerprint: 'b', payload: { big: 1n } }), WINDOW_MS), // JSON cannot hold a BigInt
      store.ingestEvent(ev({ fingerprint: 'c' }), WINDOW_MS),
    ]);
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    const events = (await store.listEvents(all, {})).items;
    assert.deepEqual(events.map((e) => e.fingerprint), ['a', 'c']);
    // The failed one left no fingerprint: a retry is accepted, not a duplicate.
    assert.equal((await store.ingestEvent(ev({ fingerprint: 'b' }), WINDOW_MS)).outcome, 'accepted');
    const verifier = createChainVerifier();
    for (const row of (await store.listAudit(all, {})).items) verifier.push(row);
    assert.equal(verifier.result().ok, true);
    assert.equal(verifier.result().checked, 3);
    await store.close();
  });

  it('ingests pending when the store closes are rejected, never half-written', async () => {
    const { store, path } = open();
    const pendingIngest = store.ingestEvent(ev({ fingerprint: 'late' }), WINDOW_MS);
    await store.close();
    await assert.rejects(pendingIngest, /store closed/);
    const { store: reopened } = open(path);
    assert.equal((await reopened.listEvents(all, {})).items.length, 0);
    await reopened.close();
  });
});

describe('sqlite store: audit export cursors and head', () => {
  const entry = (n: number) => ({ kind: 'test.row', actor: 'svc', agentId: null, data: { n } });

  it('auditHead is null on an empty chain, then the last row with its timestamp', async () => {
    const clock = fakeClock(T0);
    const { store } = open(freshPath(), clock);
    assert.equal(await store.auditHead(), null);
    await store.appendAudit(entry(1));
    clock.advance(1500);
    await store.appendAudit(entry(2));
    assert.deepEqual(await store.auditHead(), { seq: 2, tsMs: T0 + 1500 });
    await store.close();
  });

  it('a cursor is 0 before the first export, per exporter, and survives close and reopen', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    assert.equal(await store.exportCursor('siem'), 0);
    await store.advanceExportCursor('siem', 7);
    await store.advanceExportCursor('other', 3);
    assert.equal(await store.exportCursor('siem'), 7);
    assert.equal(await store.exportCursor('other'), 3);
    assert.equal(await store.exportCursor('never'), 0);
    await store.close();

    const reopened = openSqliteStore({ path, clock });
    assert.equal(await reopened.exportCursor('siem'), 7);
    assert.equal(await reopened.exportCursor('other'), 3);
    await reopened.close();
  });

  it('a cursor never moves back: a smaller or equal seq is ignored, with its timestamp', async () => {
    const clock = fakeClock(T0);
    const { store, path } = open(freshPath(), clock);
    await store.advanceExportCursor('siem', 10);
    clock.advance(1000);
    await store.advanceExportCursor('siem', 4);
    await store.advanceExportCursor('siem', 10);
    assert.equal(await store.exportCursor('siem'), 10);
    clock.advance(1000);
    await store.advanceExportCursor('siem', 11);
    assert.equal(await store.exportCursor('siem'), 11);
    await assert.rejects(store.advanceExportCursor('siem', -1), RangeError);
    await assert.rejects(store.advanceExportCursor('siem', 1.5), RangeError);
    await store.close();

    const db = new Database(path, { readonly: true });
    assert.deepEqual(db.prepare('SELECT exporter_id, last_seq, updated_ms FROM audit_export_cursors').all(),
      [{ exporter_id: 'siem', last_seq: 11, updated_ms: T0 + 2000 }]);
    db.close();
  });

  it('a store at schema version 1 is upgraded in place: rows kept, cursor table added', async () => {
    const { store, path } = open();
    await store.appendAudit(entry(1));
    await store.close();
    // Back to what an svc of schema version 1 left on disk.
    const db = new Database(path);
    db.exec('DROP TABLE audit_export_cursors');
    db.pragma('user_version = 1');
    db.close();

    const { store: upgraded } = open(path);
    assert.equal(await upgraded.exportCursor('siem'), 0);
    await upgraded.advanceExportCursor('siem', 1);
    assert.equal(await upgraded.exportCursor('siem'), 1);
    assert.equal((await upgraded.auditHead())?.seq, 1);
    assert.equal((await verifyStore(upgraded)).ok, true);
    await upgraded.close();
    const check = new Database(path, { readonly: true });
    assert.equal(check.pragma('user_version', { simple: true }), 2);
    check.close();
  });
});
