import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { NewEvent, PageQuery, Store } from '../store.js';
import { openSqliteStore } from './sqlite-store.js';

const T0 = Date.UTC(2026, 0, 1);
const PAGE: PageQuery = { limit: 1000, cursor: null, order: 'asc', sinceMs: null, untilMs: null };
const ev = (n: number, over: Partial<NewEvent> = {}): NewEvent =>
  ({ agentId: 'a', sourceId: 'am', kind: 'alert', fingerprint: null, payloadText: JSON.stringify({ n }), ...over });

const dirs: string[] = [];
const stores: Store[] = [];
after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
afterEach(async () => { for (const s of stores.splice(0)) await s.close(); });

async function open(): Promise<{ store: Store; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ingest-batch-'));
  dirs.push(dir);
  const path = join(dir, 'svc.db');
  const store = await openSqliteStore({ path });
  stores.push(store);
  return { store, path };
}

/** Changes the schema of the open store from a connection of the test's own. */
function exec(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/**
 * A commit that fails, made with SQLite itself: an event whose payload has `doom` inserts a row whose
 * foreign key is checked only at COMMIT (deferred), and names no event — so the COMMIT of its whole
 * transaction fails, after every statement of it succeeded.
 */
const FAILING_COMMIT = `
  CREATE TABLE doomed (event_id TEXT REFERENCES events (id) DEFERRABLE INITIALLY DEFERRED);
  CREATE TRIGGER doom_commit AFTER INSERT ON events WHEN json_extract(NEW.payload, '$.doom') IS NOT NULL
  BEGIN INSERT INTO doomed (event_id) VALUES ('no such event'); END;`;

/** A statement that fails: the insert of an event whose payload has `refuse` is aborted. */
const FAILING_STATEMENT = `
  CREATE TRIGGER refuse_event BEFORE INSERT ON events WHEN json_extract(NEW.payload, '$.refuse') IS NOT NULL
  BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END;`;

/** Ingests made in one turn of the event loop: the store writes them in one batch (worker-client.ts). */
function together(store: Store, events: NewEvent[]): Promise<Array<PromiseSettledResult<Awaited<ReturnType<Store['ingestEvent']>>>>> {
  return Promise.allSettled(events.map((e, i) => store.ingestEvent(e, T0 + i)));
}

describe('SQLite ingest batches', () => {
  it('a batch whose commit fails fails every ingest of it, stores none of them, and the next batch commits', async () => {
    const { store, path } = await open();
    exec(path, FAILING_COMMIT);
    const events = [ev(0), ev(1, { fingerprint: 'fp-1' }), ev(2, { payloadText: '{"doom":true}' }), ev(3), ev(4)];
    const settled = await together(store, events);
    assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
    for (const s of settled) assert.match(String((s as PromiseRejectedResult).reason), /FOREIGN KEY constraint failed/);
    assert.equal((await store.listEvents(PAGE, {})).items.length, 0);
    assert.equal((await store.listAudit(PAGE, {})).items.length, 0);

    const retried = await together(store, [ev(0), ev(1, { fingerprint: 'fp-1' }), ev(3), ev(4)]);
    assert.deepEqual(retried.map((s) => s.status === 'fulfilled' && s.value.outcome), ['accepted', 'accepted', 'accepted', 'accepted']);
    assert.equal((await store.listEvents(PAGE, {})).items.length, 4);
    assert.equal((await store.verifyAudit()).ok, true);
  });

  it('an ingest whose statement fails fails alone: the rest of its batch is accepted, in order, with a whole chain', async () => {
    const { store, path } = await open();
    exec(path, FAILING_STATEMENT);
    const events = [ev(0, { fingerprint: 'fp' }), ev(1), ev(2, { payloadText: '{"refuse":true}' }), ev(3, { fingerprint: 'fp' }), ev(4)];
    const settled = await together(store, events);
    assert.deepEqual(settled.map((s) => (s.status === 'fulfilled' ? s.value.outcome : 'rejected')),
      ['accepted', 'accepted', 'rejected', 'duplicate', 'accepted']);
    assert.match(String((settled[2] as PromiseRejectedResult).reason), /refused by the test trigger/);
    const stored = (await store.listEvents(PAGE, {})).items;
    assert.deepEqual(stored.map((e) => e.payloadText), [ev(0).payloadText, ev(1).payloadText, ev(4).payloadText]);
    const first = settled[0] as PromiseFulfilledResult<{ outcome: 'accepted'; event: { id: string } }>;
    assert.deepEqual((settled[3] as PromiseFulfilledResult<unknown>).value, { outcome: 'duplicate', eventId: first.value.event.id });
    const audit = (await store.listAudit(PAGE, {})).items;
    assert.deepEqual(audit.map((r) => (JSON.parse(r.dataText ?? 'null') as { eventId: string }).eventId), stored.map((e) => e.id));
    assert.equal((await store.verifyAudit()).ok, true);
  });

  it('a batch larger than one statement holds (chunks of rows), every event with its audit row', async () => {
    const { store } = await open();
    const events = Array.from({ length: 150 }, (_, i) => ev(i, { fingerprint: i % 2 === 0 ? `fp-${i}` : null }));
    const settled = await together(store, events);
    assert.ok(settled.every((s) => s.status === 'fulfilled' && s.value.outcome === 'accepted'));
    const stored = (await store.listEvents(PAGE, {})).items;
    assert.deepEqual(stored.map((e) => e.payloadText), events.map((e) => e.payloadText));
    assert.equal((await store.listAudit(PAGE, { kind: 'event.accepted' })).items.length, 150);
    assert.equal((await store.verifyAudit()).ok, true);
    // Every fingerprint of the batch was written: a repeat of each is a duplicate.
    const again = await together(store, events.filter((e) => e.fingerprint !== null));
    assert.ok(again.every((s) => s.status === 'fulfilled' && s.value.outcome === 'duplicate'));
  });
});
