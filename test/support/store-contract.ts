/**
 * The store contract (contract §5, §9.3, §10, §11.4): what every `Store` must do, whatever keeps the
 * data. The SQLite store runs it (src/store/sqlite/sqlite-store.test.ts) and so must any other
 * implementation. Time is fake: every call carries `nowMs` from the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { StoreSettings } from '../../src/config/store.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../../src/config/store.js';
import { InvalidCursorError } from '../../src/store/cursor.js';
import type { ClaimedEvent, Completion, NewEvent, PageQuery, Store } from '../../src/store/store.js';
import { oncallStoreContract } from './oncall-store-contract.js';
import { reportStoreContract } from './report-store-contract.js';
import { pageAnswerStoreContract } from './page-answer-store-contract.js';
import { receiptStoreContract } from './receipt-store-contract.js';
import { waitFor } from './wait.js';

export interface OpenOptions {
  pageBudget?: number;
  idempotencyWindowMs?: number;
}

export interface ContractSubject {
  /**
   * Opens a fresh, empty store (`pageBudget`: the views' byte budget per page, when a test lowers it;
   * `idempotencyWindowMs`: the store's window, when a test sets its own).
   */
  open(opts?: OpenOptions): Promise<Store>;
  /** Another handle on the store last opened: another process or replica would hold one. */
  openAgain(): Promise<Store>;
  /** What `openStore` takes to reach the store last opened, from another process. */
  settings(): StoreSettings;
  /** Changes the stored data of audit row `seq` behind the store's back (to `dataText`, default `{"tampered":true}`). */
  tamperAudit(seq: number, dataText?: string): Promise<void>;
  /** Overwrites the body of a page (by id) or an outbox row (by deliveryId) behind the store's back, as a hand edit or a damaged disk would. */
  damageOncall(table: 'pages' | 'page_notifications', key: string, body: string): Promise<void>;
  /** Deletes every row of every table but `keep`, behind the store's back, as someone with write access to the database could. */
  emptyTablesBut(keep: readonly string[]): Promise<void>;
  /** Several replicas share this store, so the leader lease is contested (false: one process, always leader). */
  replicas: boolean;
  /**
   * Connections to the database that stores hold now (PostgreSQL: the server's sessions of
   * application `svc`), where a store has any. After each case has closed its stores this must be
   * back to 0: a store left open holds its pools' connections, and a file's cases add up to the
   * server's `max_connections`.
   */
  openConnections?(): Promise<number>;
}

/** The store's own idempotency window when it is opened without one (contract §9.3). */
const WINDOW_MS = DEFAULT_IDEMPOTENCY_WINDOW_MS;
const T0 = Date.UTC(2026, 0, 1);
const LEASE_MS = 60_000;

export const ev = (over: Partial<NewEvent> = {}): NewEvent => ({
  agentId: 'agent-a', sourceId: 'alertmanager', kind: 'alert', fingerprint: null, payloadText: '{"n":1}', ...over,
});

export const q = (over: Partial<PageQuery> = {}): PageQuery =>
  ({ limit: 100, cursor: null, order: 'desc', sinceMs: null, untilMs: null, ...over });

export async function accept(store: Store, e: NewEvent = ev(), nowMs = T0): Promise<string> {
  const r = await store.ingestEvent(e, nowMs);
  assert.equal(r.outcome, 'accepted');
  return r.outcome === 'accepted' ? r.event.id : '';
}

/** Every page of a listing, following nextCursor; `between` runs after each page. */
export async function walk<T>(list: (cursor: string | null) => Promise<{ items: T[]; nextCursor: string | null }>,
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

const claim = (store: Store, owner: string, nowMs: number, limit = 10, agentId = 'agent-a'): Promise<ClaimedEvent[]> =>
  store.claimEvents({ owner, agentId, limit, maxBytes: 1 << 30, leaseMs: LEASE_MS, nowMs });

const processed = (c: ClaimedEvent): Completion => ({ claim: c.claim, outcome: 'processed', audit: [
  { kind: 'triage.decision', actor: 'agent:agent-a', agentId: 'agent-a', data: { eventId: c.event.id } },
  { kind: 'message.delivered', actor: 'agent:agent-a', agentId: 'agent-a', data: { eventId: c.event.id, attempt: c.claim.attempt } },
] });

export function storeContract(name: string, subject: ContractSubject): void {
  // The stores a case opened are closed when it ends, not when the file does: each holds its pools'
  // connections, and ninety cases' worth exceeded the test cluster's max_connections.
  const opened: Store[] = [];
  const open = async (opts?: OpenOptions): Promise<Store> => { const s = await subject.open(opts); opened.push(s); return s; };
  const again = async (): Promise<Store> => { const s = await subject.openAgain(); opened.push(s); return s; };
  // A hook at the file's top level: it follows every case of the file (node:test), the contract's and
  // the file's own; only a case that opened stores through the contract is checked.
  afterEach(async () => {
    const stores = opened.splice(0);
    const closed = await Promise.allSettled(stores.map((s) => s.close()));
    for (const c of closed) if (c.status === 'rejected') throw c.reason;
    const count = subject.openConnections?.bind(subject);
    if (stores.length > 0 && count !== undefined) {
      await waitFor('the closed stores\' connections to end', async () => (await count()) === 0, 5_000).catch(async () => {
        assert.fail(`${await count()} database connection(s) still open after the case closed its ${stores.length} store(s)`);
      });
    }
  });
  oncallStoreContract(name, open, again, subject.replicas, (table, key, body) => subject.damageOncall(table, key, body));
  reportStoreContract(name, open, (seq, dataText) => subject.tamperAudit(seq, dataText));
  pageAnswerStoreContract(name, open, again);
  receiptStoreContract(name, open, again);

  describe(`${name}: ingest and idempotency`, () => {
    it('a fingerprint repeated inside the window is a duplicate naming the first event; after it, accepted', async () => {
      const store = await open();
      const first = await accept(store, ev({ fingerprint: 'fp-1' }));
      const dup = await store.ingestEvent(ev({ fingerprint: 'fp-1' }), T0 + WINDOW_MS - 1);
      assert.deepEqual(dup, { outcome: 'duplicate', eventId: first });
      const later = await store.ingestEvent(ev({ fingerprint: 'fp-1' }), T0 + WINDOW_MS);
      assert.equal(later.outcome, 'accepted');
    });

    it('the window is the store\'s, given when it opens: every ingest of that store uses it', async () => {
      const store = await open({ idempotencyWindowMs: 1000 });
      const first = await accept(store, ev({ fingerprint: 'fp-short' }));
      assert.deepEqual(await store.ingestEvent(ev({ fingerprint: 'fp-short' }), T0 + 999), { outcome: 'duplicate', eventId: first });
      assert.equal((await store.ingestEvent(ev({ fingerprint: 'fp-short' }), T0 + 1999)).outcome, 'accepted');
    });

    it('events without a fingerprint are never duplicates; fingerprints are per agent and source', async () => {
      const store = await open();
      await accept(store);
      await accept(store);
      await accept(store, ev({ fingerprint: 'fp' }));
      await accept(store, ev({ fingerprint: 'fp', sourceId: 'other' }));
      await accept(store, ev({ fingerprint: 'fp', agentId: 'agent-b' }));
      assert.equal((await store.listEvents(q(), {})).items.length, 5);
    });

    it('concurrent ingests of one fingerprint: one accepted, the rest duplicates of it', async () => {
      const store = await open();
      const results = await Promise.all(Array.from({ length: 20 }, () => store.ingestEvent(ev({ fingerprint: 'same' }), T0)));
      const accepted = results.filter((r) => r.outcome === 'accepted');
      assert.equal(accepted.length, 1);
      const id = accepted[0]?.outcome === 'accepted' ? accepted[0].event.id : '';
      for (const r of results) if (r.outcome === 'duplicate') assert.equal(r.eventId, id);
    });

    it('ingests made together (one batch) end as they would one at a time, stored and audited in call order', async () => {
      const store = await open();
      // One turn: the stores write these in one transaction (SQLite: multi-row statements).
      const calls: Array<[NewEvent, number]> = [
        [ev({ fingerprint: 'fp-a', payloadText: '{"n":0}' }), T0 + 10],
        [ev({ payloadText: '{"n":1}' }), T0 + 11],
        [ev({ fingerprint: 'fp-a', payloadText: '{"n":2}' }), T0 + 12],
        [ev({ fingerprint: 'fp-b', payloadText: '{"n":3}' }), T0 + 5], // a clock behind the others
        [ev({ fingerprint: 'fp-b', sourceId: 'other', payloadText: '{"n":4}' }), T0 + 13],
        [ev({ fingerprint: 'fp-b', payloadText: '{"n":5}' }), T0 + 14],
      ];
      const results = await Promise.all(calls.map(([e, nowMs]) => store.ingestEvent(e, nowMs)));
      const ids = results.map((r) => (r.outcome === 'accepted' ? r.event.id : null));
      assert.deepEqual(results.map((r) => r.outcome), ['accepted', 'accepted', 'duplicate', 'accepted', 'accepted', 'duplicate']);
      assert.deepEqual(results[2], { outcome: 'duplicate', eventId: ids[0] });
      assert.deepEqual(results[5], { outcome: 'duplicate', eventId: ids[3] });
      const events = (await store.listEvents(q({ order: 'asc' }), {})).items;
      assert.deepEqual(events.map((e) => e.payloadText), ['{"n":0}', '{"n":1}', '{"n":3}', '{"n":4}']);
      assert.deepEqual(events.map((e) => e.id), ids.filter((id) => id !== null));
      const stamps = events.map((e) => Date.parse(e.ts));
      assert.deepEqual(stamps, [T0 + 10, T0 + 11, T0 + 11, T0 + 13], 'never earlier than the event before');
      const audit = (await store.listAudit(q({ order: 'asc' }), { kind: 'event.accepted' })).items;
      assert.deepEqual(audit.map((r) => (JSON.parse(r.dataText ?? 'null') as { eventId: string }).eventId), events.map((e) => e.id));
      assert.equal((await store.verifyAudit()).ok, true);
    });

    it('event ids are time-ordered UUIDs: one accepted later sorts after one accepted earlier (the id index only grows at its end)', async () => {
      const store = await open();
      const ids = [await accept(store, ev(), T0), await accept(store, ev(), T0 + 1), await accept(store, ev(), T0 + 60_000)];
      for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.deepEqual([...ids].sort(), ids);
    });

    it('an event, its payload text and its event.accepted row are stored together, and survive reopening', async () => {
      const store = await open();
      const payloadText = '{"b":[1,2,{"c":"ü"}],"a":null}';
      const id = await accept(store, ev({ fingerprint: 'keep', payloadText }));
      const other = await again();
      const [event] = (await other.listEvents(q(), {})).items;
      assert.deepEqual(event, { id, ts: new Date(T0).toISOString(), agentId: 'agent-a', sourceId: 'alertmanager', kind: 'alert',
        fingerprint: 'keep', status: 'accepted', payloadText });
      const [row] = (await other.listAudit(q(), {})).items;
      assert.equal(row?.kind, 'event.accepted');
      assert.deepEqual(JSON.parse(row?.dataText ?? 'null'), { eventId: id, sourceId: 'alertmanager', fingerprint: 'keep' });
      const dup = await other.ingestEvent(ev({ fingerprint: 'keep' }), T0 + 1);
      assert.deepEqual(dup, { outcome: 'duplicate', eventId: id });
    });
  });

  describe(`${name}: claims and leases`, () => {
    it('claims oldest first, per agent, within the limit and the byte budget (at least one)', async () => {
      const store = await open();
      const a = [await accept(store), await accept(store), await accept(store)];
      await accept(store, ev({ agentId: 'agent-b' }));
      const first = await claim(store, 'w1', T0, 2);
      assert.deepEqual(first.map((c) => c.event.id), a.slice(0, 2));
      assert.deepEqual(first.map((c) => [c.event.status, c.claim.owner, c.claim.attempt, c.leaseUntilMs]),
        [['processing', 'w1', 1, T0 + LEASE_MS], ['processing', 'w1', 1, T0 + LEASE_MS]]);
      const tiny = await store.claimEvents({ owner: 'w2', agentId: 'agent-a', limit: 10, maxBytes: 1, leaseMs: LEASE_MS, nowMs: T0 });
      assert.deepEqual(tiny.map((c) => c.event.id), [a[2]]);
      assert.deepEqual(await claim(store, 'w3', T0), []);
      assert.equal((await claim(store, 'w3', T0, 10, 'agent-b')).length, 1);
    });

    it('never hands one event to two workers, however they race', async () => {
      const store = await open();
      const second = await again();
      const ids = new Set<string>();
      for (let i = 0; i < 120; i++) ids.add(await accept(store));
      const taken: string[] = [];
      const worker = async (s: Store, owner: string): Promise<void> => {
        for (;;) {
          const got = await claim(s, owner, T0, 7);
          if (got.length === 0) return;
          taken.push(...got.map((c) => c.event.id));
        }
      };
      await Promise.all([worker(store, 'a1'), worker(store, 'a2'), worker(second, 'b1'), worker(second, 'b2')]);
      assert.equal(taken.length, ids.size, 'each event claimed exactly once');
      assert.deepEqual(new Set(taken), ids);
    });

    it('a lease that runs out is claimed again; the old holder is fenced off, the new one completes', async () => {
      const store = await open();
      const id = await accept(store);
      const [held] = await claim(store, 'old', T0);
      assert.ok(held);
      assert.deepEqual(await claim(store, 'new', T0 + LEASE_MS - 1), [], 'still leased');
      const [taken] = await claim(store, 'new', T0 + LEASE_MS);
      assert.deepEqual([taken?.event.id, taken?.claim.attempt], [id, 2]);
      assert.deepEqual(await store.renewLeases([held.claim], LEASE_MS, T0 + LEASE_MS + 1), [held.claim]);
      assert.deepEqual(await store.completeEvents([processed(held)], T0 + LEASE_MS + 2), [{ ok: false, reason: 'claim-lost' }]);
      assert.deepEqual(await store.completeEvents([processed(taken as ClaimedEvent)], T0 + LEASE_MS + 3), [{ ok: true }]);
      const rows = (await store.listAudit(q({ order: 'asc' }), { kind: 'message.delivered' })).items;
      assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? '{}') as unknown), [{ eventId: id, attempt: 2 }]);
    });

    it('a stale completion and the current one for the same event in one call: claim-lost, then ok', async () => {
      const store = await open();
      const id = await accept(store);
      const [held] = await claim(store, 'old', T0);
      const [taken] = await claim(store, 'new', T0 + LEASE_MS);
      assert.ok(held && taken);
      assert.deepEqual(await store.completeEvents([processed(held), processed(taken)], T0 + LEASE_MS + 1), [{ ok: false, reason: 'claim-lost' }, { ok: true }]);
      assert.equal((await store.listEvents(q(), {})).items[0]?.status, 'processed');
      const rows = (await store.listAudit(q({ order: 'asc' }), { kind: 'message.delivered' })).items;
      assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? '{}') as unknown), [{ eventId: id, attempt: 2 }]);
    });

    it('a renewed lease holds past its first end', async () => {
      const store = await open();
      await accept(store);
      const [held] = await claim(store, 'w', T0);
      assert.deepEqual(await store.renewLeases([held!.claim], LEASE_MS, T0 + 50_000), []);
      assert.deepEqual(await claim(store, 'other', T0 + 70_000), []);
      assert.equal((await claim(store, 'other', T0 + 110_000)).length, 1);
    });

    it('completions: processed with their rows, dead-lettered with a letter, released back to the queue', async () => {
      const store = await open();
      const ids = [await accept(store, ev({ payloadText: '{"k":1}' })), await accept(store, ev({ payloadText: '{"k":2}' })), await accept(store)];
      const claims = await claim(store, 'w', T0);
      const [c1, c2, c3] = claims as [ClaimedEvent, ClaimedEvent, ClaimedEvent];
      const results = await store.completeEvents([
        processed(c1),
        { claim: c2.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'channel down', attempts: 3 }, audit: [] },
        { claim: c3.claim, outcome: 'released' },
      ], T0 + 5);
      assert.deepEqual(results[0], { ok: true });
      assert.ok(results[1]?.ok && typeof results[1].deadLetterId === 'string');
      const events = (await store.listEvents(q({ order: 'asc' }), {})).items;
      assert.deepEqual(events.map((e) => e.status), ['processed', 'dead-lettered', 'accepted']);
      const [letter] = (await store.listDeadLetters(q(), {})).items;
      assert.deepEqual({ ...letter, id: '', ts: '' }, { id: '', ts: '', agentId: 'agent-a', sourceId: 'alertmanager', eventId: ids[1],
        reason: 'delivery-failed', error: 'channel down', attempts: 3, payloadText: '{"k":2}', replayedAt: null });
      const kinds = (await store.listAudit(q({ order: 'asc' }), {})).items.map((r) => r.kind);
      assert.deepEqual(kinds.slice(3), ['triage.decision', 'message.delivered', 'event.dead-lettered']);
      const [again1] = await claim(store, 'w2', T0 + 6);
      assert.deepEqual([again1?.event.id, again1?.claim.attempt], [ids[2], 2]);
    });

    it('a retry waits in the store until its due time, unclaimed, and brings its delivery state to the next claim', async () => {
      const store = await open();
      const id = await accept(store);
      const [c1] = await claim(store, 'w', T0);
      assert.ok(c1);
      assert.equal(c1.delivery, null, 'no round has ended yet');
      const state = '{"rounds":1,"channels":{"dm":{"delivered":true}}}';
      const results = await store.completeEvents([{ claim: c1.claim, outcome: 'retry', dueMs: T0 + 30_000, delivery: state,
        audit: [{ kind: 'message.failed', actor: 'agent:agent-a', agentId: 'agent-a', data: { eventId: id, tries: 1 } }] }], T0 + 5);
      assert.deepEqual(results, [{ ok: true }]);
      assert.deepEqual((await store.listEvents(q(), {})).items.map((e) => e.status), ['accepted']);
      assert.deepEqual((await store.backlog()).map((b) => b.count), [1], 'a waiting retry is backlog');
      assert.deepEqual(await claim(store, 'w', T0 + 29_999), [], 'not due yet');
      const [c2] = await claim(store, 'w', T0 + 30_000);
      assert.deepEqual([c2?.event.id, c2?.claim.attempt, c2?.delivery], [id, 2, state]);
      assert.equal((await store.listAudit(q(), { kind: 'message.failed' })).items.length, 1, 'the round\'s rows are written with it');
      // A dead letter keeps the state it is given; a replay makes the event due at once.
      const kept = '{"rounds":0,"channels":{"dm":{"delivered":true}}}';
      await store.completeEvents([{ claim: c2!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'x', attempts: 4 },
        audit: [], delivery: kept }], T0 + 30_001);
      const [letter] = (await store.listDeadLetters(q(), {})).items;
      await store.replayDeadLetters({ ids: [letter!.id] }, 'op', T0 + 30_002);
      const [c3] = await claim(store, 'w', T0 + 30_003);
      assert.deepEqual([c3?.event.id, c3?.delivery], [id, kept]);
      // A completion without a state (released, or processed without one) keeps what was stored.
      await store.completeEvents([{ claim: c3!.claim, outcome: 'released' }], T0 + 30_004);
      const [c4] = await claim(store, 'w', T0 + 30_005);
      assert.equal(c4?.delivery, kept);
    });

    it('a dead letter whose error quotes a binary answer (NUL bytes) is stored, the same in every store', async () => {
      const store = await open();
      await accept(store);
      const [c] = await claim(store, 'w', T0);
      const results = await store.completeEvents([{ claim: c!.claim, outcome: 'dead-lettered',
        deadLetter: { reason: 'delivery-failed', error: 'HTTP 400: \u0000\u0001PNG\u0000end', attempts: 1 }, audit: [] }], T0 + 1);
      assert.ok(results[0]?.ok, JSON.stringify(results));
      const [letter] = (await store.listDeadLetters(q(), {})).items;
      assert.equal(letter?.error, 'HTTP 400: \uFFFD\u0001PNG\uFFFDend');
      assert.equal((await store.listEvents(q(), {})).items[0]?.status, 'dead-lettered');
    });

    it('releaseClaims gives back the claims of one owner prefix only; backlog counts accepted and processing', async () => {
      const store = await open();
      for (let i = 0; i < 3; i++) await accept(store);
      await accept(store, ev({ sourceId: 'other' }));
      await accept(store, ev({ agentId: 'agent-b' }));
      await claim(store, 'replica-1/run-1', T0, 2);
      await claim(store, 'replica-2/run-1', T0, 1);
      assert.equal(await store.releaseClaims('replica-1/'), 2);
      assert.equal((await claim(store, 'x', T0, 10)).length, 3, 'two released + one never claimed; replica-2 keeps its own');
      const backlog = (await store.backlog()).sort((a, b) => `${a.agentId}${a.sourceId}`.localeCompare(`${b.agentId}${b.sourceId}`));
      assert.deepEqual(backlog, [{ agentId: 'agent-a', sourceId: 'alertmanager', count: 3 }, { agentId: 'agent-a', sourceId: 'other', count: 1 },
        { agentId: 'agent-b', sourceId: 'alertmanager', count: 1 }]);
    });

    it('a group of completions is atomic under a crash: every processed event has all its rows, none has some', async () => {
      const store = await open();
      const ids = [];
      for (let i = 0; i < 400; i++) ids.push(await accept(store, ev({ payloadText: `{"i":${i},"pad":"${'x'.repeat(200)}"}` })));
      await store.close();
      const dir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
      const script = join(dir, 'crash.mts');
      writeFileSync(script, `import { openStore } from ${JSON.stringify(new URL('../../src/store/open-store.ts', import.meta.url).href)};
        const store = await openStore(JSON.parse(process.argv[2]));
        let t = ${T0};
        for (;;) {
          const got = await store.claimEvents({ owner: 'crasher', agentId: 'agent-a', limit: 16, maxBytes: 1 << 30, leaseMs: 60000, nowMs: ++t });
          if (got.length === 0) break;
          await store.completeEvents(got.map((c) => ({ claim: c.claim, outcome: 'processed', audit: [
            { kind: 'triage.decision', actor: 'a', agentId: 'agent-a', data: { eventId: c.event.id } },
            { kind: 'message.delivered', actor: 'a', agentId: 'agent-a', data: { eventId: c.event.id } }] })), ++t);
          process.stdout.write('.');
        }
        process.stdout.write('done');`);
      const cwd = fileURLToPath(new URL('../..', import.meta.url));
      const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(subject.settings())], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.length >= 6) { child.kill('SIGKILL'); resolve(); }
        });
        child.on('exit', () => resolve());
      });
      await new Promise((r) => child.on('close', r));
      rmSync(dir, { recursive: true, force: true });
      assert.ok(!out.includes('done'), 'the writer was killed before it finished');
      const after = await again();
      const events = await walk((cursor) => after.listEvents(q({ order: 'asc', cursor, limit: 1000 }), {}));
      const done = new Set(events.filter((e) => e.status === 'processed').map((e) => e.id));
      assert.ok(done.size > 0, 'some completions were committed before the kill');
      const rows = await walk((cursor) => after.listAudit(q({ order: 'asc', cursor, limit: 1000 }), {}));
      const count = new Map<string, number>();
      for (const r of rows) {
        if (r.kind !== 'triage.decision' && r.kind !== 'message.delivered') continue;
        const id = (JSON.parse(r.dataText ?? '{}') as { eventId: string }).eventId;
        count.set(id, (count.get(id) ?? 0) + 1);
      }
      for (const id of ids) assert.equal(count.get(id) ?? 0, done.has(id) ? 2 : 0, `event ${id}`);
      assert.equal((await after.verifyAudit()).ok, true);
    });
  });

  describe(`${name}: the audit chain`, () => {
    it('is gapless and verifies under concurrent appends from two handles', async () => {
      const store = await open();
      const second = await again();
      await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? store : second)
        .appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: { i } }, T0 + i)));
      const rows = await walk((cursor) => store.listAudit(q({ order: 'asc', cursor, limit: 64 }), {}));
      assert.deepEqual(rows.map((r) => r.seq), Array.from({ length: 300 }, (_, i) => i + 1));
      const v = await store.verifyAudit();
      assert.deepEqual({ ok: v.ok, checked: v.checked, headSeq: v.headSeq, problem: v.problem }, { ok: true, checked: 300, headSeq: 300, problem: null });
      assert.equal(v.headHash, rows[299]?.hash);
    });

    it('streams in seq order from any point; the head is the last row', async () => {
      const store = await open();
      assert.equal(await store.auditHead(), null);
      for (let i = 0; i < 25; i++) await store.appendAudit({ kind: 'w', actor: 'svc', agentId: 'a', data: { i } }, T0 + i);
      const rows = await store.readAudit(10, 8);
      assert.deepEqual(rows.map((r) => r.seq), [11, 12, 13, 14, 15, 16, 17, 18]);
      assert.deepEqual(JSON.parse(rows[0]?.dataText ?? ''), { i: 10 });
      const head = await store.auditHead();
      assert.equal(head?.seq, 25);
      assert.equal(head?.tsMs, T0 + 24);
    });

    it('verification finds a tampered row and names its seq', async () => {
      const store = await open();
      for (let i = 0; i < 40; i++) await store.appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: { i } }, T0 + i);
      await subject.tamperAudit(17);
      const v = await store.verifyAudit();
      assert.deepEqual({ ok: v.ok, firstBadSeq: v.firstBadSeq, problem: v.problem }, { ok: false, firstBadSeq: 17, problem: 'hash-mismatch' });
    });

    it('verification of the rows after a seq checks those only, and finds a tampered one among them', async () => {
      const store = await open();
      for (let i = 0; i < 40; i++) await store.appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: { i } }, T0 + i);
      await subject.tamperAudit(17);
      const after = await store.verifyAudit(20);
      assert.deepEqual({ ok: after.ok, checked: after.checked, headSeq: after.headSeq }, { ok: true, checked: 20, headSeq: 40 });
      const from = await store.verifyAudit(10);
      assert.deepEqual({ ok: from.ok, firstBadSeq: from.firstBadSeq, problem: from.problem }, { ok: false, firstBadSeq: 17, problem: 'hash-mismatch' });
      await subject.tamperAudit(33);
      const later = await store.verifyAudit(20);
      assert.deepEqual({ ok: later.ok, firstBadSeq: later.firstBadSeq, problem: later.problem }, { ok: false, firstBadSeq: 33, problem: 'hash-mismatch' });
    });

    it('timestamps never go backwards in seq order, even when the clock does', async () => {
      const store = await open();
      await store.appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: {} }, T0 + 5000);
      await store.appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: {} }, T0);
      await accept(store, ev(), T0 + 9000);
      await accept(store, ev(), T0 + 1000);
      const audit = (await store.listAudit(q({ order: 'asc' }), {})).items.map((r) => Date.parse(r.ts));
      assert.deepEqual(audit, [...audit].sort((a, b) => a - b));
      const events = (await store.listEvents(q({ order: 'asc' }), {})).items.map((e) => Date.parse(e.ts));
      assert.deepEqual(events, [T0 + 9000, T0 + 9000]);
    });
  });

  describe(`${name}: the story of an event`, () => {
    it('every row naming the event (its eventId), in seq order, each with its predecessor\'s hash; others left out', async () => {
      const store = await open();
      const a = await accept(store, ev({ fingerprint: 'story-a' }), T0);
      const b = await accept(store, ev({ fingerprint: 'story-b' }), T0);
      const [ca, cb] = await claim(store, 'w1', T0 + 1);
      await store.completeEvents([processed(ca!),
        { claim: cb!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'down', attempts: 3 }, audit: [] }], T0 + 2);
      const letters = await store.listDeadLetters(q(), {});
      await store.replayDeadLetters({ ids: [letters.items[0]!.id] }, 'admin', T0 + 3);
      await store.appendAudit({ kind: 'page.opened', actor: 'svc', agentId: null, data: { eventId: a } }, T0 + 4);
      await store.appendAudit({ kind: 'page.joined', actor: 'svc', agentId: null, data: { eventId: b } }, T0 + 4);
      await store.appendAudit({ kind: 'unrelated', actor: 'svc', agentId: null, data: { other: a, eventIds: [a, b], eventId: 7 } }, T0 + 5);

      const storyA = await store.eventStory(a);
      assert.deepEqual(storyA.map((r) => r.kind), ['event.accepted', 'triage.decision', 'message.delivered', 'page.opened']);
      const storyB = await store.eventStory(b);
      assert.deepEqual(storyB.map((r) => r.kind), ['event.accepted', 'event.dead-lettered', 'dlq.replayed', 'page.joined']);
      // Each row as the chain holds it, and the hash of the row before it.
      const chain = await store.readAudit(0, 1000);
      for (const row of [...storyA, ...storyB]) {
        const stored = chain.find((c) => c.seq === row.seq)!;
        assert.equal(row.hash, stored.hash);
        assert.equal(row.dataText, stored.dataText);
        assert.equal(row.predecessorHash, chain.find((c) => c.seq === row.seq - 1)?.hash ?? null);
        assert.equal(row.successorPrevHash, chain.find((c) => c.seq === row.seq + 1)?.prevHash ?? null);
      }
      assert.ok(storyA.every((r, i) => i === 0 || r.seq > storyA[i - 1]!.seq));
      assert.deepEqual(await store.eventStory('00000000-0000-4000-8000-000000000000'), []);
    });

    it('a row whose data quotes a NUL character (as an error text may) is indexed and appended like any other', async () => {
      const store = await open();
      const a = await accept(store, ev(), T0);
      await store.appendAudit({ kind: 'triage.fallback', actor: 'svc', agentId: null, data: { eventId: a, error: 'HTTP 400: \u0000PNG' } }, T0 + 1);
      assert.deepEqual((await store.eventStory(a)).map((r) => r.kind), ['event.accepted', 'triage.fallback']);
      assert.equal((await store.verifyAudit()).ok, true);
    });

    it('what a story holds is what the hashed rows say: a row edited to name the event no more leaves it, and the chain no longer verifies', async () => {
      const store = await open();
      const a = await accept(store, ev(), T0);
      await store.appendAudit({ kind: 'triage.decision', actor: 'svc', agentId: null, data: { eventId: a } }, T0 + 1);
      const [row] = await store.eventStory(a);
      await subject.tamperAudit(row!.seq);
      assert.deepEqual((await store.eventStory(a)).map((r) => r.kind), ['triage.decision']);
      const verdict = await store.verifyAudit();
      assert.equal(verdict.ok, false);
      assert.equal(verdict.firstBadSeq, row!.seq, 'the edit is found where it was made');
    });

    it('a story and a page\'s timeline are read from the hashed rows alone: every other table emptied, both are whole', async () => {
      const store = await open();
      const a = await accept(store, ev(), T0);
      await store.appendAudit({ kind: 'page.opened', actor: 'svc', agentId: null, data: { pageId: 'pstory0001', eventId: a } }, T0 + 1);
      await store.appendAudit({ kind: 'page.ack-refused', actor: 'slack:U1', agentId: null, data: { pageId: 'pstory0001', reason: 'unknown-user' } },
        T0 + 2);
      await store.appendAudit({ kind: 'page.acknowledged', actor: 'link:t1', agentId: null, data: { pageId: 'pstory0001', by: 'alice' } }, T0 + 3);
      const story = (await store.eventStory(a)).map((r) => [r.seq, r.kind]);
      const timeline = (await store.oncall.pageTimeline('pstory0001')).map((r) => [r.seq, r.kind]);
      assert.deepEqual(story.map(([, kind]) => kind), ['event.accepted', 'page.opened', 'page.ack-refused', 'page.acknowledged']);
      assert.deepEqual(timeline.map(([, kind]) => kind), ['page.opened', 'page.ack-refused', 'page.acknowledged']);
      // An index table beside the chain (unhashed) could be edited to drop or add rows: there is none to edit.
      await subject.emptyTablesBut(['audit']);
      assert.deepEqual((await store.eventStory(a)).map((r) => [r.seq, r.kind]), story);
      assert.deepEqual((await store.oncall.pageTimeline('pstory0001')).map((r) => [r.seq, r.kind]), timeline);
    });
  });

  describe(`${name}: keyset pages`, () => {
    it('walking every page while rows are written returns each earlier row exactly once, in order', async () => {
      const store = await open();
      const ids: string[] = [];
      for (let i = 0; i < 57; i++) ids.push(await accept(store, ev(), T0 + i));
      let n = 0;
      const seen = await walk((cursor) => store.listEvents(q({ order: 'asc', limit: 10, cursor }), {}),
        async () => { await accept(store, ev(), T0 + 100 + n++); });
      assert.deepEqual(seen.map((e) => e.id).slice(0, 57), ids);
      assert.equal(new Set(seen.map((e) => e.id)).size, seen.length);
      const desc = await walk((cursor) => store.listEvents(q({ order: 'desc', limit: 9, cursor }), {}));
      assert.deepEqual(desc.map((e) => e.id).slice(-57), [...ids].reverse());
    });

    it('nextCursor is null on the last page, also when the rows fill it exactly', async () => {
      const store = await open();
      for (let i = 0; i < 10; i++) await accept(store);
      const first = await store.listEvents(q({ limit: 5 }), {});
      assert.notEqual(first.nextCursor, null);
      const second = await store.listEvents(q({ limit: 5, cursor: first.nextCursor }), {});
      assert.equal(second.items.length, 5);
      assert.equal(second.nextCursor, null);
    });

    it('filters by agent, source and kind; dead letters by reason; audit by kind and agent', async () => {
      const store = await open();
      await accept(store, ev({ agentId: 'agent-b', sourceId: 's2', kind: 'other' }));
      await accept(store);
      const [c] = await claim(store, 'w', T0);
      await store.completeEvents([{ claim: c!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'triage-failed', error: 'x', attempts: 1 }, audit: [] }], T0);
      assert.deepEqual((await store.listEvents(q(), { agent: 'agent-b' })).items.map((e) => e.kind), ['other']);
      assert.equal((await store.listEvents(q(), { source: 's2', kind: 'other' })).items.length, 1);
      assert.equal((await store.listEvents(q(), { source: 's2', kind: 'alert' })).items.length, 0);
      assert.equal((await store.listDeadLetters(q(), { reason: 'triage-failed' })).items.length, 1);
      assert.equal((await store.listDeadLetters(q(), { reason: 'delivery-failed' })).items.length, 0);
      assert.equal((await store.listAudit(q(), { kind: 'event.dead-lettered', agent: 'agent-a' })).items.length, 1);
    });

    it('since and until are inclusive ms bounds on ts', async () => {
      const store = await open();
      for (let i = 0; i < 10; i++) await accept(store, ev({ payloadText: `{"i":${i}}` }), T0 + i * 1000);
      const page = await store.listEvents(q({ order: 'asc', sinceMs: T0 + 3000, untilMs: T0 + 6000 }), {});
      assert.deepEqual(page.items.map((e) => JSON.parse(e.payloadText ?? '') as unknown), [{ i: 3 }, { i: 4 }, { i: 5 }, { i: 6 }]);
      assert.equal((await store.listEvents(q({ sinceMs: T0 + 20_000 }), {})).items.length, 0);
    });

    it('a page stops early at the byte budget and says where to go on', async () => {
      const store = await open({ pageBudget: 3000 });
      const big = `{"pad":"${'y'.repeat(1000)}"}`;
      for (let i = 0; i < 7; i++) await accept(store, ev({ payloadText: big }));
      const first = await store.listEvents(q({ limit: 100 }), {});
      assert.equal(first.items.length, 2, 'two ~1 KB payloads fit in 3,000 bytes, the third does not');
      assert.notEqual(first.nextCursor, null);
      const all = await walk((cursor) => store.listEvents(q({ limit: 100, cursor }), {}));
      assert.equal(all.length, 7);
    });

    it('listJson encodes the same page as the records show it, payload and data embedded as stored', async () => {
      const store = await open();
      await accept(store, ev({ fingerprint: 'fp', payloadText: '{"b": 2, "a": [1, "ü"]}' }));
      await accept(store, ev({ agentId: 'agent-b' }));
      const q1 = q({ limit: 1 });
      const page = await store.listJson('events', q1, {});
      const records = await store.listEvents(q1, {});
      assert.equal(page.nextCursor, records.nextCursor);
      assert.equal(page.count, 1);
      const text = new TextDecoder().decode(page.items);
      assert.ok(text.includes('"payload":{"b": 2, "a": [1, "ü"]}') || text.includes('"payload":{"n":1}'), 'payload as stored');
      const [item] = JSON.parse(text) as Array<Record<string, unknown>>;
      const [record] = records.items;
      assert.deepEqual(item, { id: record?.id, ts: record?.ts, agentId: record?.agentId, sourceId: record?.sourceId, kind: 'alert',
        ...(record?.fingerprint ? { fingerprint: record.fingerprint } : {}), status: 'accepted', payload: JSON.parse(record?.payloadText ?? '') as unknown });
      const audit = JSON.parse(new TextDecoder().decode((await store.listJson('audit', q({ order: 'asc' }), { kind: 'event.accepted' })).items)) as
        Array<{ seq: number; data: unknown }>;
      assert.deepEqual(audit.map((r) => r.seq), [1, 2]);
      const filtered = await store.listJson('events', q(), { agent: 'agent-b' });
      assert.equal(filtered.count, 1);
    });

    it('a malformed cursor, or one issued for the other order, is an InvalidCursorError', async () => {
      const store = await open();
      for (let i = 0; i < 3; i++) await accept(store);
      const asc = (await store.listEvents(q({ order: 'asc', limit: 1 }), {})).nextCursor;
      await assert.rejects(store.listEvents(q({ cursor: 'not-a-cursor' }), {}), InvalidCursorError);
      await assert.rejects(store.listAudit(q({ order: 'desc', cursor: asc }), {}), InvalidCursorError);
    });
  });

  describe(`${name}: leadership and health`, () => {
    it('one leader at a time; the lease passes on when it ends or is given up', async () => {
      const store = await open();
      const other = await again();
      assert.equal(await store.acquireLeadership('a', LEASE_MS, T0), true);
      assert.equal(await store.acquireLeadership('a', LEASE_MS, T0 + 1000), true, 'the holder renews');
      if (!subject.replicas) {
        assert.equal(await other.acquireLeadership('b', LEASE_MS, T0 + 2000), true, 'one process: it always leads');
        return;
      }
      assert.equal(await other.acquireLeadership('b', LEASE_MS, T0 + 2000), false);
      assert.equal(await other.acquireLeadership('b', LEASE_MS, T0 + 1000 + LEASE_MS), true, 'a lease not renewed ends');
      assert.equal(await store.acquireLeadership('a', LEASE_MS, T0 + 1000 + LEASE_MS + 1), false);
      await other.releaseLeadership('b');
      assert.equal(await store.acquireLeadership('a', LEASE_MS, T0 + 1000 + LEASE_MS + 2), true, 'given up: taken at once');
    });

    it('a write probe succeeds on a writable store', async () => {
      const store = await open();
      await store.probeWrite(T0);
      await store.probeWrite(T0 + 1);
    });
  });

  describe(`${name}: export cursors, replay and retention`, () => {
    it('an export cursor starts at 0 and only moves forward', async () => {
      const store = await open();
      assert.equal(await store.exportCursor('siem'), 0);
      await store.advanceExportCursor('siem', 40, T0);
      await store.advanceExportCursor('siem', 12, T0);
      assert.equal(await store.exportCursor('siem'), 40);
      assert.equal(await store.exportCursor('other'), 0);
    });

    it('a replayed dead letter puts its event back in the queue, once, with an audit row', async () => {
      const store = await open();
      const id = await accept(store);
      const [c] = await claim(store, 'w', T0);
      const [r] = await store.completeEvents([{ claim: c!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'e', attempts: 5 }, audit: [] }], T0);
      const letterId = r?.ok ? r.deadLetterId as string : '';
      assert.deepEqual(await store.replayDeadLetters({ ids: [letterId, 'no-such-letter'] }, 'cli:root', T0 + 10),
        { replayed: [letterId], missing: ['no-such-letter'] });
      assert.deepEqual(await store.replayDeadLetters({ ids: [letterId] }, 'cli:root', T0 + 11), { replayed: [], missing: [letterId] });
      const [letter] = (await store.listDeadLetters(q(), {})).items;
      assert.equal(letter?.replayedAt, new Date(T0 + 10).toISOString());
      const [again1] = await claim(store, 'w', T0 + 20);
      assert.deepEqual([again1?.event.id, again1?.claim.attempt], [id, 2]);
      const row = (await store.listAudit(q(), { kind: 'dlq.replayed' })).items[0];
      assert.deepEqual(JSON.parse(row?.dataText ?? ''), { deadLetterId: letterId, eventId: id, sourceId: 'alertmanager', reason: 'delivery-failed' });
      assert.equal(row?.actor, 'cli:root');
    });

    it('a letter replayed once is not replayed again when its event failed again: the new letter is the one to replay', async () => {
      const store = await open();
      await accept(store);
      const deadLetter = { reason: 'delivery-failed' as const, error: 'e', attempts: 5 };
      const [c1] = await claim(store, 'w', T0);
      const [r1] = await store.completeEvents([{ claim: c1!.claim, outcome: 'dead-lettered', deadLetter, audit: [] }], T0);
      const first = r1?.ok ? r1.deadLetterId as string : '';
      assert.deepEqual(await store.replayDeadLetters({ ids: [first] }, 'cli:root', T0 + 10), { replayed: [first], missing: [] });
      const [c2] = await claim(store, 'w', T0 + 20);
      const [r2] = await store.completeEvents([{ claim: c2!.claim, outcome: 'dead-lettered', deadLetter, audit: [] }], T0 + 20);
      const second = r2?.ok ? r2.deadLetterId as string : '';
      assert.notEqual(second, first);
      assert.deepEqual(await store.replayDeadLetters({ ids: [first] }, 'cli:root', T0 + 30), { replayed: [], missing: [first] });
      assert.deepEqual(await store.replayDeadLetters({ ids: [second] }, 'cli:root', T0 + 40), { replayed: [second], missing: [] });
      const letters = new Map((await store.listDeadLetters(q(), {})).items.map((l) => [l.id, l.replayedAt]));
      assert.deepEqual([letters.get(first), letters.get(second)], [new Date(T0 + 10).toISOString(), new Date(T0 + 40).toISOString()]);
      assert.equal((await store.listAudit(q(), { kind: 'dlq.replayed' })).items.length, 2);
    });

    it('a replay asked through the console records via: console and the operator as the actor', async () => {
      const store = await open();
      const id = await accept(store);
      const [c] = await claim(store, 'w', T0);
      const [r] = await store.completeEvents([{ claim: c!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'e', attempts: 5 }, audit: [] }], T0);
      const letterId = r?.ok ? r.deadLetterId as string : '';
      await store.replayDeadLetters({ ids: [letterId] }, 'user:alice@example.com', T0 + 10, 'console');
      const row = (await store.listAudit(q(), { kind: 'dlq.replayed' })).items[0];
      assert.deepEqual(JSON.parse(row?.dataText ?? ''), { deadLetterId: letterId, eventId: id, sourceId: 'alertmanager', reason: 'delivery-failed', via: 'console' });
      assert.equal(row?.actor, 'user:alice@example.com');
    });

    it('an event is found by its id, as the views list it; an unknown id is null', async () => {
      const store = await open();
      const id = await accept(store, ev({ fingerprint: 'by-id' }));
      await accept(store);
      const listed = (await store.listEvents(q(), {})).items.find((e) => e.id === id);
      assert.deepEqual(await store.getEvent(id), listed);
      assert.equal(await store.getEvent('no-such-event'), null);
    });

    it('a replay by filter brings back every matching letter at once, in order; a letter replayed before is missing, its event\'s new one is not', async () => {
      const store = await open();
      for (let i = 0; i < 30; i++) await accept(store, ev({ sourceId: i % 3 === 0 ? 'other' : 'alertmanager' }));
      const claims = await claim(store, 'w', T0, 30);
      assert.equal(claims.length, 30);
      const results = await store.completeEvents(claims.map((c) => ({ claim: c.claim, outcome: 'dead-lettered' as const,
        deadLetter: { reason: 'delivery-failed', error: 'e', attempts: 1 }, audit: [] })), T0 + 1);
      const letterIds = results.map((r) => (r.ok ? String(r.deadLetterId) : ''));
      const wanted = letterIds.filter((_, i) => i % 3 !== 0);
      const replay = await store.replayDeadLetters({ sourceId: 'alertmanager' }, 'cli:root', T0 + 2);
      assert.deepEqual(replay, { replayed: wanted, missing: [] });
      assert.equal((await store.listAudit(q(), { kind: 'dlq.replayed' })).items.length, 20);
      // The first event again: claimed, dead-lettered a second time; its two letters asked for together:
      // the first was replayed already (done), the new one brings the event back.
      const [again] = await claim(store, 'w2', T0 + 3, 1);
      const [second] = await store.completeEvents([{ claim: again!.claim, outcome: 'dead-lettered',
        deadLetter: { reason: 'delivery-failed', error: 'e', attempts: 2 }, audit: [] }], T0 + 4);
      const secondId = second?.ok ? String(second.deadLetterId) : '';
      assert.deepEqual(await store.replayDeadLetters({ ids: [wanted[0] as string, secondId] }, 'cli:root', T0 + 5),
        { replayed: [secondId], missing: [wanted[0]] });
      assert.equal((await store.backlog()).reduce((n, b) => n + b.count, 0), 20);
    });

    it('a replay by filter in chunks: each call takes at most `limit` letters after `afterSeq`, its own transaction, and says where it stopped', async () => {
      const store = await open();
      for (let i = 0; i < 7; i++) await accept(store, ev());
      const claims = await claim(store, 'w', T0, 7);
      const results = await store.completeEvents(claims.map((c) => ({ claim: c.claim, outcome: 'dead-lettered' as const,
        deadLetter: { reason: 'delivery-failed', error: 'e', attempts: 1 }, audit: [] })), T0 + 1);
      const letterIds = results.map((r) => (r.ok ? String(r.deadLetterId) : ''));
      const chunks: string[][] = [];
      let afterSeq = 0;
      for (let n = 0; n < 10; n++) {
        const r = await store.replayDeadLetters({ afterSeq, limit: 3 }, 'cli:root', T0 + 2 + n);
        assert.deepEqual(r.missing, []);
        if (r.lastSeq === undefined) {
          assert.deepEqual(r.replayed, []);
          break;
        }
        chunks.push(r.replayed);
        assert.ok(r.lastSeq > afterSeq, 'lastSeq moves on');
        afterSeq = r.lastSeq;
      }
      assert.deepEqual(chunks, [letterIds.slice(0, 3), letterIds.slice(3, 6), letterIds.slice(6)]);
      const rows = (await store.listAudit(q({ order: 'asc' }), { kind: 'dlq.replayed' })).items;
      // One audit row per letter, stamped by the call (transaction) that replayed it.
      assert.deepEqual(rows.map((r) => r.ts), [2, 2, 2, 3, 3, 3, 4].map((d) => new Date(T0 + d).toISOString()));
      assert.equal((await store.backlog()).reduce((n, b) => n + b.count, 0), 7);
    });

    it('retention prunes old finished events, old dead letters and expired fingerprints, never pending work', async () => {
      const store = await open();
      const done = await accept(store, ev({ fingerprint: 'old' }), T0);
      const lettered = await accept(store, ev(), T0);
      const pending = await accept(store, ev(), T0);
      const claims = await claim(store, 'w', T0, 2);
      await store.completeEvents([processed(claims[0]!), { claim: claims[1]!.claim, outcome: 'dead-lettered',
        deadLetter: { reason: 'r', error: 'e', attempts: 1 }, audit: [] }], T0);
      const day = 86_400_000;
      const policy = { eventsBeforeMs: T0 + day, deadLettersBeforeMs: null, fingerprintsBeforeMs: T0 + 1, batch: 100 };
      assert.deepEqual(await store.prune(policy), { events: 1, deadLetters: 0, fingerprints: 1 });
      let ids = (await store.listEvents(q(), {})).items.map((e) => e.id).sort();
      assert.deepEqual(ids, [lettered, pending].sort(), 'the dead letter keeps its event; the pending one stays');
      assert.ok(!ids.includes(done));
      assert.deepEqual(await store.prune({ ...policy, deadLettersBeforeMs: T0 + day }), { events: 1, deadLetters: 1, fingerprints: 0 });
      ids = (await store.listEvents(q(), {})).items.map((e) => e.id);
      assert.deepEqual(ids, [pending]);
      assert.equal((await store.listAudit(q({ limit: 1000 }), {})).items.length, 6, 'the chain is never pruned');
      assert.equal((await store.ingestEvent(ev({ fingerprint: 'old' }), T0 + 2)).outcome, 'accepted', 'the fingerprint is gone');
    });
  });
}
