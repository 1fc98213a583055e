import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { PgCluster } from '../../test/support/postgres.js';
import { startPgCluster } from '../../test/support/postgres.js';
import { accept, ev, q } from '../../test/support/store-contract.js';
import { DEFAULT_IDEMPOTENCY_WINDOW_MS } from '../config/store.js';
import { copyStore } from './copy-store.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

const T0 = Date.UTC(2026, 0, 1);
const WINDOW = DEFAULT_IDEMPOTENCY_WINDOW_MS;
const cluster: PgCluster = await startPgCluster();
const root = mkdtempSync(join(tmpdir(), 'svc-copy-'));
after(() => {
  cluster.close();
  rmSync(root, { recursive: true, force: true });
});

describe('copyStore: SQLite into PostgreSQL', () => {
  it('copies events, dead letters, the chain, live fingerprints and cursors; the copy works as a store', async () => {
    const path = join(root, 'a.db');
    const source = await openSqliteStore({ path });
    const old = await accept(source, ev({ fingerprint: 'expired', payloadText: '{"old":true}' }), T0 - 2 * WINDOW);
    const live = await accept(source, ev({ fingerprint: 'live', payloadText: '{"b":2, "a":1}' }), T0);
    const lettered = await accept(source, ev({ payloadText: '{"letter":1}' }), T0 + 1);
    const held = await accept(source, ev(), T0 + 2);
    const claims = await source.claimEvents({ owner: 'x/1', agentId: 'agent-a', limit: 10, maxBytes: 1e9, leaseMs: 60_000, nowMs: T0 + 3 });
    const byId = new Map(claims.map((c) => [c.event.id, c]));
    await source.completeEvents([
      { claim: byId.get(old)!.claim, outcome: 'processed', audit: [{ kind: 'message.delivered', actor: 'a', agentId: 'agent-a', data: { eventId: old } }] },
      { claim: byId.get(lettered)!.claim, outcome: 'dead-lettered', deadLetter: { reason: 'delivery-failed', error: 'down', attempts: 5 }, audit: [] },
    ], T0 + 4);
    await source.advanceExportCursor('siem', 3, T0 + 5);
    const sourceEvents = (await source.listEvents(q({ order: 'asc' }), {})).items;
    const sourceLetters = (await source.listDeadLetters(q(), {})).items;

    const url = await cluster.createDatabase('copy_a');
    const target = await openPostgresStore({ url });
    const progress: string[] = [];
    const report = await copyStore(source, target, { nowMs: T0 + 10, windowMs: WINDOW, batchRows: 2, progress: (l) => progress.push(l) });
    assert.deepEqual([report.events, report.deadLetters, report.auditRows, report.fingerprints, report.cursors], [4, 1, 6, 1, 1]);
    assert.equal(report.before.headHash, report.after.headHash);
    assert.match(progress[0] ?? '', /^source chain verified: 6 row\(s\)/);

    const copied = (await target.listEvents(q({ order: 'asc' }), {})).items;
    assert.deepEqual(copied.map((e) => [e.id, e.ts, e.payloadText, e.status]),
      sourceEvents.map((e) => [e.id, e.ts, e.payloadText, e.status === 'processing' ? 'accepted' : e.status]), 'a claim is not copied');
    assert.deepEqual((await target.listDeadLetters(q(), {})).items, sourceLetters);
    assert.deepEqual((await target.listAudit(q({ order: 'asc' }), {})).items, (await source.listAudit(q({ order: 'asc' }), {})).items);
    assert.equal(await target.exportCursor('siem'), 3);
    assert.deepEqual(await target.ingestEvent(ev({ fingerprint: 'live' }), T0 + 20), { outcome: 'duplicate', eventId: live });
    assert.equal((await target.ingestEvent(ev({ fingerprint: 'expired' }), T0 + 20)).outcome, 'accepted');
    // The copy goes on from where the source was: its chain, its seqs.
    await target.appendAudit({ kind: 'after.copy', actor: 'svc', agentId: null, data: {} }, T0 + 30);
    const v = await target.verifyAudit();
    assert.deepEqual([v.ok, v.headSeq], [true, 8]);
    const again = await target.claimEvents({ owner: 'pg/1', agentId: 'agent-a', limit: 10, maxBytes: 1e9, leaseMs: 1000, nowMs: T0 + 40 });
    assert.deepEqual(again.slice(0, 2).map((c) => [c.event.id, c.claim.attempt]), [[live, 2], [held, 2]], 'claimed in the source: waiting again');
    assert.equal(again.length, 3, 'and the event accepted after the copy');

    await assert.rejects(copyStore(source, target, { nowMs: T0, windowMs: WINDOW }), /target store is not empty/);
    await target.close();
    await source.close();
  });

  it('refuses a source whose chain does not verify, and a row that does not continue the target chain', async () => {
    const path = join(root, 'b.db');
    const source = await openSqliteStore({ path });
    for (let i = 0; i < 5; i++) await source.appendAudit({ kind: 'w', actor: 'svc', agentId: null, data: { i } }, T0 + i);
    const target = await openPostgresStore({ url: await cluster.createDatabase('copy_b') });
    const rows = await source.readAudit(0, 10);
    await assert.rejects(target.transfer.importRows({ audit: rows.slice(1) }), /does not follow the head/);
    await assert.rejects(target.transfer.importRows({ audit: [{ ...rows[0]!, dataText: '{"i":9}' }] }), /does not hash to its stored hash/);
    assert.equal(await target.transfer.isEmpty(), true, 'a refused batch writes nothing');
    const db = new Database(path);
    db.prepare(`UPDATE audit SET data = '{"i":99}' WHERE seq = 3`).run();
    db.close();
    await assert.rejects(copyStore(source, target, { nowMs: T0, windowMs: WINDOW }), /first bad seq 3: hash-mismatch/);
    assert.equal(await target.transfer.isEmpty(), true);
    await target.close();
    await source.close();
  });
});
