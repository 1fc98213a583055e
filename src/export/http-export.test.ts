import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { fakeClock, systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import type { Metrics } from '../metrics/registry.js';
import type { AuditConfig } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { AuditExport } from './audit-export.js';
import { createAuditExport } from './audit-export.js';
import type { HttpExchange, LogRecord } from '../../test/support/export-harness.js';
import { advanceUntil, waitFor, within } from '../../test/support/wait.js';
import {
  appendRows, auditConfig, auditRows, checkDelivery, exportMetrics, registryValue, openStore, recordingLog, startHttpReceiver,
  tempDir,
} from '../../test/support/export-harness.js';

const TOKEN = 'tok-SECRET-0123456789';
const root = tempDir('svc-http-export-test-');
after(() => root.remove());
let dbCount = 0;
const dbPath = (): string => join(root.dir, `db-${++dbCount}.db`);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function storeAt(path = dbPath(), clock: Clock = systemClock): Promise<Store> {
  const store = await openStore(path, clock);
  cleanups.push(() => store.close());
  return store;
}

function httpConfig(url: string, over: Record<string, unknown> = {}, top: Record<string, unknown> = {}): AuditConfig {
  return auditConfig({
    export: [{ id: 'siem', type: 'http', url, batchMaxRows: 25, timeoutMs: 2000,
      retry: { initialBackoffMs: 10, maxBackoffMs: 40 }, ...over }],
    batch: { minIntervalMs: 5, maxIntervalMs: 50 },
    ...top,
  });
}

function startPump(store: Store, config: AuditConfig, opts: { metrics?: Metrics; clock?: Clock } = {}):
  { pump: AuditExport; metrics: Metrics; logs: LogRecord[] } {
  const metrics = opts.metrics ?? exportMetrics(config.export.map((e) => e.id));
  const { records, log } = recordingLog();
  const pump = createAuditExport({ store, config, metrics: metrics.audit, clock: opts.clock ?? systemClock,
    log, hostname: 'svc-host-1', pid: 4242 });
  cleanups.push(() => pump.close());
  pump.start();
  return { pump, metrics, logs: records };
}

const lastSeq = (metrics: Metrics, exporter = 'siem'): Promise<number> =>
  registryValue(metrics, 'svc_audit_export_last_seq', { exporter });
const seqsOf = (e: HttpExchange): number[] => (JSON.parse(e.body) as { rows: Array<{ seq: number }> }).rows.map((r) => r.seq);

describe('audit export over http (json)', () => {
  it('a receiver answering 503, 400 and 429 then recovering gets every row once, in seq order', async () => {
    const statuses: Record<number, number> = { 2: 503, 3: 400, 4: 429 };
    const receiver = await startHttpReceiver((n) => ({ status: statuses[n] ?? 200, headers: { 'retry-after': '0' } }));
    cleanups.push(() => receiver.close());
    const store = await storeAt();
    await appendRows(store, 60);
    const { pump, metrics, logs } = startPump(store, httpConfig(receiver.url, { token: TOKEN }));
    await appendRows(store, 40); // while it runs: notify() brings them in
    pump.notify();

    await waitFor('row 100 acknowledged', async () => await lastSeq(metrics) === 100);
    assert.deepEqual(checkDelivery(receiver.ackedSeqs(), 100), [], 'rejected batches count as not received');
    assert.deepEqual(receiver.exchanges.slice(0, 5).map((e) => e.status), [200, 503, 400, 429, 200]);
    // A failed batch is sent again with the same rows, nothing skipped or added.
    receiver.exchanges.forEach((e, i) => {
      const next = receiver.exchanges[i + 1];
      if (e.status !== 200 && next !== undefined) assert.deepEqual(seqsOf(next), seqsOf(e));
    });

    const first = receiver.exchanges[0] as HttpExchange;
    assert.equal(first.headers['content-type'], 'application/json');
    assert.equal(first.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepEqual(JSON.parse(first.body), { rows: await auditRows(store, 0, 25) });

    assert.equal(await registryValue(metrics, 'svc_audit_export_failures_total', { exporter: 'siem' }), 3);
    assert.equal(await registryValue(metrics, 'svc_audit_export_acked_total', { exporter: 'siem' }), 100);
    assert.equal(await lastSeq(metrics), (await store.auditHead())?.seq);
    assert.equal(await registryValue(metrics, 'svc_audit_batch_rows', {}, 'svc_audit_batch_rows_count'),
      receiver.exchanges.filter((e) => e.status === 200).length);
    assert.equal(await store.exportCursor('siem'), 100);
    assert.deepEqual(pump.status(), [{ id: 'siem', type: 'http', lastSeq: 100, failures: 0, lastError: null, alarm: null }]);

    const failed = logs.filter((r) => r.event === 'audit.export.failed').map((r) => r.fields.error);
    assert.deepEqual(failed, ['HTTP 503 Service Unavailable', 'HTTP 400 Bad Request', 'HTTP 429 Too Many Requests']);
    assert.ok(logs.some((r) => r.event === 'audit.export.recovered'));
    const logged = JSON.stringify(logs);
    assert.ok(!logged.includes(TOKEN) && !logged.includes('secret'), 'neither the token nor a response body is logged');
  });

  it('honours Retry-After (seconds) on 503 and 429, and only there', async () => {
    const answers: Record<number, { status: number; headers: Record<string, string> }> = {
      1: { status: 503, headers: { 'retry-after': '3' } },
      2: { status: 429, headers: { 'retry-after': '1' } },
      3: { status: 500, headers: { 'retry-after': '7' } },
    };
    const receiver = await startHttpReceiver((n) => answers[n] ?? { status: 200 });
    cleanups.push(() => receiver.close());
    const store = await storeAt();
    await appendRows(store, 5);
    const waits: number[] = [];
    // Records what the pump asks for and waits at most 5 ms, so the test does not take 4 s.
    const clock: Clock = { ...systemClock, sleep: (ms, signal) => { waits.push(ms); return systemClock.sleep(Math.min(ms, 5), signal); } };
    const { metrics } = startPump(store, httpConfig(receiver.url, { retry: { initialBackoffMs: 10, maxBackoffMs: 60_000 } }), { clock });
    await waitFor('row 5 acknowledged', async () => await lastSeq(metrics) === 5);
    // Attempt 1: Retry-After 3 s beats 10 ms; attempt 2: 1 s beats 20 ms; attempt 3 (500): back-off 40 ms.
    assert.deepEqual(waits.slice(0, 3), [3000, 1000, 40]);
    checkDelivery(receiver.ackedSeqs(), 5);
  });

  it('a receiver that accepts and never answers times out, its socket is dropped, and the batch goes again', async () => {
    const receiver = await startHttpReceiver((n) => n === 1 ? 'stall' : { status: 200 });
    cleanups.push(() => receiver.close());
    const store = await storeAt();
    await appendRows(store, 20);
    const { pump, metrics, logs } = startPump(store, httpConfig(receiver.url, { timeoutMs: 200 }));
    await waitFor('row 20 acknowledged', async () => await lastSeq(metrics) === 20);
    await within((receiver.exchanges[0] as HttpExchange).socketClosed, 'the stalled request\'s socket to close');
    assert.deepEqual(checkDelivery(receiver.ackedSeqs(), 20), []);
    assert.deepEqual(seqsOf(receiver.exchanges[1] as HttpExchange), seqsOf(receiver.exchanges[0] as HttpExchange));
    assert.equal(await registryValue(metrics, 'svc_audit_export_failures_total', { exporter: 'siem' }), 1);
    assert.deepEqual(logs.filter((r) => r.event === 'audit.export.failed').map((r) => r.fields.error), ['timed out after 200 ms']);
    assert.equal(pump.status()[0]?.failures, 0);
  });

  it('close() aborts the send in flight, releases the connection and is idempotent; the cursor stays', async () => {
    const receiver = await startHttpReceiver(() => 'stall');
    cleanups.push(() => receiver.close());
    const store = await storeAt();
    await appendRows(store, 3);
    const clock = fakeClock(Date.UTC(2024, 0, 1));
    const { pump, logs } = startPump(store, httpConfig(receiver.url, { timeoutMs: 60_000 }), { clock });
    cleanups.push(() => { clock.advance(60_000); return Promise.resolve(); }); // runs before the pump's close: a failed test does not hang
    await waitFor('a request in flight', () => receiver.exchanges.length === 1);
    // The clock stands still: the 60 s timeout cannot end the send, only close() can.
    await within(pump.close(), 'close() with a send in flight');
    assert.equal(clock.monotonic(), 0);
    assert.deepEqual(logs.filter((r) => r.event === 'audit.export.failed'), [], 'an abort by close() is not a failed send');
    await within((receiver.exchanges[0] as HttpExchange).socketClosed, 'the aborted request\'s socket to close');
    await pump.close();
    assert.equal(await store.exportCursor('siem'), 0);
    assert.equal(pump.gate.active(), false);
  });

  it('a new pump on the same file resumes after the persisted cursor; a new exporter id starts from seq 1', async () => {
    const path = dbPath();
    const store = await storeAt(path);
    const first = await startHttpReceiver();
    cleanups.push(() => first.close());
    await appendRows(store, 10);
    const one = startPump(store, httpConfig(first.url));
    await waitFor('row 10 acknowledged', async () => await lastSeq(one.metrics) === 10);
    await one.pump.close();
    await appendRows(store, 5);

    const again = await startHttpReceiver();
    const fresh = await startHttpReceiver();
    cleanups.push(() => again.close(), () => fresh.close());
    const config = auditConfig({
      export: [{ id: 'siem', type: 'http', url: again.url }, { id: 'siem-new', type: 'http', url: fresh.url }],
      batch: { minIntervalMs: 5, maxIntervalMs: 50 },
    });
    const two = startPump(store, config);
    await waitFor('both exporters at row 15', async () =>
      await lastSeq(two.metrics) === 15 && await lastSeq(two.metrics, 'siem-new') === 15);
    assert.deepEqual(again.ackedSeqs(), [11, 12, 13, 14, 15], 'rows up to the cursor are not sent again');
    assert.deepEqual(checkDelivery(fresh.ackedSeqs(), 15), []);
    assert.equal(await store.exportCursor('siem-new'), 15);
  });

  it('notify() wakes an exporter idling at a long interval', async () => {
    const receiver = await startHttpReceiver();
    cleanups.push(() => receiver.close());
    const store = await storeAt();
    const clock = fakeClock(Date.UTC(2024, 0, 1));
    const { pump, metrics } = startPump(store, httpConfig(receiver.url, {}, { batch: { minIntervalMs: 5, maxIntervalMs: 60_000 } }), { clock });
    // Empty reads double the interval: 10, 20, … ms.
    await advanceUntil(clock, 'the interval to grow past 1 s', async () =>
      await registryValue(metrics, 'svc_audit_batch_interval_ms') >= 1280, 50);
    // Its one timer is now that idle wait; from here the clock moves only by the 5 ms minimum interval.
    await waitFor('the exporter idling', () => clock.pendingTimers() === 1);
    await appendRows(store, 1);
    pump.notify();
    await clock.advanceAsync(5);
    await waitFor('row 1 acknowledged without the idle wait ending', async () => await lastSeq(metrics) === 1);
    await waitFor('the interval back at the minimum', async () => await registryValue(metrics, 'svc_audit_batch_interval_ms') <= 10);
  });
});

describe('audit export over http (splunk-hec)', () => {
  it('posts one HEC event object per row, newline-separated, with the Splunk authorization', async () => {
    const receiver = await startHttpReceiver();
    cleanups.push(() => receiver.close());
    const t0 = Date.UTC(2024, 0, 1, 0, 0, 0, 123);
    const clock = fakeClock(t0);
    const store = await storeAt(dbPath(), clock);
    for (let i = 0; i < 3; i++) {
      await appendRows(store, 1);
      clock.advance(1001);
    }
    const { metrics } = startPump(store, httpConfig(receiver.url, { format: 'splunk-hec', token: 'hec-token' }));
    await waitFor('row 3 acknowledged', async () => await lastSeq(metrics) === 3);

    const exchange = receiver.exchanges[0] as HttpExchange;
    assert.equal(exchange.headers.authorization, 'Splunk hec-token');
    assert.equal(exchange.headers['content-type'], 'application/json');
    const lines = exchange.body.split('\n');
    const rows = await auditRows(store, 0, 10);
    assert.equal(lines.length, 3);
    assert.ok(lines[0]?.startsWith('{"time":1704067200.123,'), lines[0]);
    assert.deepEqual(lines.map((l) => JSON.parse(l)), rows.map((row, i) => ({
      time: 1704067200.123 + i * 1.001, host: 'svc-host-1', source: 'svc', sourcetype: 'svc:audit', event: row,
    })).map((e) => ({ ...e, time: Number(e.time.toFixed(3)) })));
  });
});
