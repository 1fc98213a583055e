import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { fakeClock, systemClock } from '../core/clock.js';
import { createAuditExport } from './audit-export.js';
import { createBackpressure } from './backpressure.js';
import {
  appendRows, auditConfig, auditRows, checkDelivery, exportMetrics, registryValue, openStore, recordingLog, startHttpReceiver,
  tempDir } from '../../test/support/export-harness.js';
import { waitFor } from '../../test/support/wait.js';

const root = tempDir('svc-backpressure-test-');
after(() => root.remove());
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('back-pressure gate', () => {
  it('engages above maxBacklogRows, releases at resumeBelowRows (half by default), counts each engagement once', async () => {
    const metrics = exportMetrics();
    const { records, log } = recordingLog();
    const bp = createBackpressure({ config: { maxBacklogRows: 20 }, metrics: metrics.audit, log });
    const active = (): Promise<number> => registryValue(metrics, 'svc_audit_backpressure_active');
    const paused = (): Promise<number> => registryValue(metrics, 'svc_audit_backpressure_paused_total');

    bp.update(20);
    assert.equal(bp.gate.active(), false, 'at the bound is not over it');
    bp.update(21);
    assert.equal(bp.gate.active(), true);
    assert.deepEqual([await active(), await paused()], [1, 1]);
    bp.update(30);
    bp.update(11);
    assert.equal(bp.gate.active(), true, 'still above the resume mark (10)');
    assert.equal(await paused(), 1);
    bp.update(10);
    assert.equal(bp.gate.active(), false);
    assert.deepEqual([await active(), await paused()], [0, 1]);
    bp.update(20);
    assert.equal(bp.gate.active(), false, 'hysteresis: below the bound it stays open');
    bp.update(25);
    assert.equal(await paused(), 2);
    assert.deepEqual(records.map((r) => [r.event, r.fields.state, r.fields.backlogRows]),
      [['audit.backpressure', 'engaged', 21], ['audit.backpressure', 'released', 10], ['audit.backpressure', 'engaged', 25]]);
  });

  it('whenOpen pends while engaged, resolves on release, rejects on abort; close() releases waiters', async () => {
    const metrics = exportMetrics();
    const bp = createBackpressure({ config: { maxBacklogRows: 5, resumeBelowRows: 2 }, metrics: metrics.audit, log: () => undefined });
    await bp.gate.whenOpen(new AbortController().signal);
    bp.update(6);
    let released = false;
    const waiting = bp.gate.whenOpen(new AbortController().signal).then(() => { released = true; });
    const aborter = new AbortController();
    const aborted = bp.gate.whenOpen(aborter.signal);
    aborter.abort();
    await assert.rejects(aborted, { name: 'AbortError' });
    bp.update(3);
    await Promise.resolve();
    assert.equal(released, false);
    bp.update(2);
    await waiting;
    bp.update(6);
    const atClose = bp.gate.whenOpen(new AbortController().signal);
    bp.close();
    await atClose;
    assert.equal(bp.gate.active(), false);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_active'), 0);
  });
});

describe('back-pressure from the export pump', () => {
  it('engages when the backlog passes the bound while the receiver fails, and releases when it recovers', async () => {
    let failing = true;
    const receiver = await startHttpReceiver(() => ({ status: failing ? 503 : 200 }));
    cleanups.push(() => receiver.close());
    // Rows stamped a minute ago, so their backlog age is unmistakable.
    const store = await openStore(join(root.dir, 'bp.db'), fakeClock(Date.now() - 60_000));
    cleanups.push(() => store.close());
    const metrics = exportMetrics();
    const { records, log } = recordingLog();
    const config = auditConfig({
      export: [{ id: 'siem', type: 'http', url: receiver.url, batchMaxRows: 5, retry: { initialBackoffMs: 10, maxBackoffMs: 20 } }],
      backpressure: { maxBacklogRows: 20 },
      batch: { minIntervalMs: 5, maxIntervalMs: 50 },
    });
    const pump = createAuditExport({ store, config, metrics: metrics.audit, clock: systemClock, log,
      hostname: 'h', pid: 1 });
    cleanups.push(() => pump.close());
    const failures = (): Promise<number> => registryValue(metrics, 'svc_audit_export_failures_total', { exporter: 'siem' });
    assert.equal(pump.gate.active(), false, 'open before start');
    pump.start();
    // Back-pressure counts rows appended after the start: one row, one failed attempt, then the rest.
    await appendRows(store, 1);
    pump.notify();
    await waitFor('the first failed attempt', async () => await failures() >= 1);
    await appendRows(store, 29);
    pump.notify();

    await waitFor('the gate to close', () => pump.gate.active());
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_active'), 1);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_paused_total'), 1);
    // The gate may have closed on an evaluation made while the 29 rows were still being appended.
    await waitFor('the backlog to count all 30 rows', () => pump.backlog().rows === 30);
    assert.deepEqual(pump.backlog(), { rows: 30, oldestTsMs: Date.parse((await auditRows(store, 0, 1))[0]?.ts ?? '') });
    assert.ok(await registryValue(metrics, 'svc_audit_backpressure_backlog_ms') >= 60_000);
    let opened = false;
    const whenOpen = pump.gate.whenOpen(new AbortController().signal).then(() => { opened = true; });

    // More rows and more failed attempts: still one engagement, and the waiter still waits.
    await appendRows(store, 5);
    pump.notify();
    const failed = await failures();
    await waitFor('two more failed attempts', async () => await failures() >= failed + 2);
    await waitFor('the backlog to count the new rows', () => pump.backlog().rows === 35);
    assert.equal(opened, false);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_paused_total'), 1);

    failing = false;
    await whenOpen;
    assert.equal(pump.gate.active(), false);
    await waitFor('row 35 acknowledged', async () => await registryValue(metrics, 'svc_audit_export_last_seq', { exporter: 'siem' }) === 35);
    await waitFor('an empty backlog', () => pump.backlog().rows === 0);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_active'), 0);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_paused_total'), 1);
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_backlog_ms'), 0);
    assert.deepEqual(pump.backlog(), { rows: 0, oldestTsMs: null });
    assert.deepEqual(checkDelivery(receiver.ackedSeqs(), 35), []);
    const states = records.filter((r) => r.event === 'audit.backpressure').map((r) => r.fields.state);
    assert.deepEqual(states, ['engaged', 'released']);
  });

  it('a backlog inherited from before the start is shipped without pausing intake; new rows still count', async () => {
    let failing = true;
    const receiver = await startHttpReceiver(() => ({ status: failing ? 503 : 200 }));
    cleanups.push(() => receiver.close());
    const store = await openStore(join(root.dir, 'inherited.db'), systemClock);
    cleanups.push(() => store.close());
    await appendRows(store, 50); // e.g. a new exporter added to a daemon with history
    const metrics = exportMetrics();
    const pump = createAuditExport({ store, metrics: metrics.audit, clock: systemClock, log: () => undefined,
      hostname: 'h', pid: 1, config: auditConfig({
        export: [{ id: 'siem', type: 'http', url: receiver.url, batchMaxRows: 5, retry: { initialBackoffMs: 10, maxBackoffMs: 20 } }],
        backpressure: { maxBacklogRows: 20 }, batch: { minIntervalMs: 5, maxIntervalMs: 50 } }) });
    cleanups.push(() => pump.close());
    pump.start();
    await waitFor('three failed attempts', async () =>
      await registryValue(metrics, 'svc_audit_export_failures_total', { exporter: 'siem' }) >= 3);
    assert.equal(pump.backlog().rows, 50, 'the inherited rows are backlog all the same');
    assert.equal(pump.gate.active(), false, 'but they do not pause intake');
    await appendRows(store, 21);
    pump.notify();
    await waitFor('the gate to close on rows appended since the start', () => pump.gate.active());
    failing = false;
    await waitFor('everything acknowledged', async () =>
      await registryValue(metrics, 'svc_audit_export_last_seq', { exporter: 'siem' }) === 71);
    assert.equal(pump.gate.active(), false);
    assert.deepEqual(checkDelivery(receiver.ackedSeqs(), 71), []);
  });

  it('with no exporter configured nothing runs and the gate stays open', async () => {
    const store = await openStore(join(root.dir, 'none.db'), systemClock);
    cleanups.push(() => store.close());
    await appendRows(store, 3);
    const metrics = exportMetrics([]);
    const pump = createAuditExport({ store, config: auditConfig({ backpressure: { maxBacklogRows: 1 } }), metrics: metrics.audit,
      clock: systemClock, log: () => assert.fail('nothing to log'), hostname: 'h', pid: 1 });
    pump.start();
    pump.notify();
    assert.equal(pump.gate.active(), false);
    await pump.gate.whenOpen(new AbortController().signal);
    assert.deepEqual(pump.status(), []);
    assert.deepEqual(pump.backlog(), { rows: 0, oldestTsMs: null });
    assert.equal(await registryValue(metrics, 'svc_audit_backpressure_active'), 0);
    await pump.close();
    await pump.close();
  });
});
