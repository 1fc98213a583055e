/**
 * The newest audit rows deleted while the exporter runs (issue 19): new rows then reuse the deleted
 * seqs, behind the exporter's cursor. The exporter must not skip them in silence: it raises the alarm
 * (error record, metric, /status) and sends again from the newest row it sent that is still intact.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { systemClock } from '../core/clock.js';
import { createAuditExport } from './audit-export.js';
import {
  appendRows, auditConfig, exportMetrics, openStore, recordingLog, registryValue, startHttpReceiver, tempDir,
} from '../../test/support/export-harness.js';
import { waitFor } from '../../test/support/wait.js';

const root = tempDir('svc-chain-behind-test-');
after(() => root.remove());
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('audit export when the chain falls behind its cursor', () => {
  it('rows that reuse deleted seqs are sent, with an error record, a metric and a /status alarm', async () => {
    const receiver = await startHttpReceiver();
    cleanups.push(() => receiver.close());
    const path = join(root.dir, 'svc.db');
    const store = await openStore(path, systemClock);
    cleanups.push(() => store.close());
    await appendRows(store, 10);
    const config = auditConfig({ export: [{ id: 'siem', type: 'http', url: receiver.url, batchMaxRows: 25, timeoutMs: 2000 }],
      batch: { minIntervalMs: 5, maxIntervalMs: 50 } });
    const metrics = exportMetrics();
    const { records, log } = recordingLog();
    const pump = createAuditExport({ store, config, metrics: metrics.audit, clock: systemClock, log, hostname: 'h', pid: 1 });
    cleanups.push(() => pump.close());
    pump.start();
    const sent = (): Array<{ seq: number; hash: string }> => receiver.exchanges.filter((e) => e.status === 200)
      .flatMap((e) => (JSON.parse(e.body) as { rows: Array<{ seq: number; hash: string }> }).rows);
    await waitFor('rows 1-10 sent', () => sent().some((r) => r.seq === 10));
    const before = new Map(sent().map((r) => [r.seq, r.hash]));

    // From outside: the newest three rows go; two new rows take seqs 8 and 9.
    const outside = new Database(path);
    try {
      outside.prepare('DELETE FROM audit WHERE seq > 7').run();
    } finally {
      outside.close();
    }
    await appendRows(store, 2);
    pump.notify();

    const reused = await waitFor('the rows that reuse seqs 8 and 9 sent', () => {
      const again = sent().filter((r) => r.seq >= 8 && r.seq <= 9 && r.hash !== before.get(r.seq));
      return again.length === 2 ? again : undefined;
    });
    assert.deepEqual(reused.map((r) => r.seq), [8, 9]);
    assert.equal(sent().filter((r) => r.seq <= 7).length, 7, 'rows 1-7, still intact, are not sent again');
    const alarm = records.find((r) => r.event === 'audit.export.chain-behind');
    assert.equal(alarm?.level, 'error');
    const { exporter, cursor, headSeq, resendFromSeq } = alarm?.fields ?? {};
    assert.deepEqual([exporter, cursor, resendFromSeq], ['siem', 10, 8]);
    // The pump polls every 5 ms: it may read the head before, between or after the two new rows.
    assert.ok(headSeq === 7 || headSeq === 8 || headSeq === 9, `head ${String(headSeq)}: read before, between or after the new rows`);
    assert.equal(await registryValue(metrics, 'svc_audit_export_chain_behind_total', { exporter: 'siem' }), 1);
    const status = pump.status()[0];
    assert.match(status?.alarm ?? '', /head is behind the rows this exporter sent \(cursor 10, head [7-9]\); sending again from seq 8$/);
  });
});
