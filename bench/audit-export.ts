/**
 * SIEM export rate against the durable audit append rate, measured in the same run on the same disk.
 * The ratio says how many times faster one exporter drains the chain than svc can grow it: above 1
 * it keeps up with any append load, and back-pressure only engages while a receiver is down or slow.
 *
 * Append side: `store.appendAudit` one row at a time on a real SQLite file (WAL, synchronous=FULL:
 * one fsync'd transaction per append), as bench/audit-append.ts does.
 * Export side: those same rows, read by the real export pump from cursor 0 and POSTed by the `http`
 * exporter (json format, 500-row batches) to a loopback `node:http` receiver that drains each body
 * and answers 200 at once; every acknowledged batch moves the persisted cursor (one fsync). The
 * receiver runs in this process: its share of the CPU counts against the exporter. Export runs
 * EXPORT_ROUNDS times (each a new exporter id, so from cursor 0 again); the median round counts.
 *
 * Run: node --import tsx bench/audit-export.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { createAuditExport } from '../src/export/audit-export.js';
import { auditSchema } from '../src/config/schema.js';
import { systemClock } from '../src/core/clock.js';
import { createMetrics } from '../src/metrics/registry.js';
import { createSourceStats } from '../src/metrics/source-stats.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { measureAppends } from './audit-appends.js';

const APPENDS = 30_000;
const BATCH_MAX_ROWS = 500;
/** One export of ~30k rows takes a fraction of a second: several rounds, each a new exporter id from cursor 0. */
const EXPORT_ROUNDS = 5;

async function measureExport(store: Store, rows: number, exporterId: string): Promise<{ perSec: number; batches: number }> {
  let batches = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      batches += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  const config = auditSchema.parse({
    export: [{ id: exporterId, type: 'http', url: `http://127.0.0.1:${port}/ingest`, format: 'json', batchMaxRows: BATCH_MAX_ROWS }],
  });
  const metrics = createMetrics({ stats: createSourceStats(), agents: [], exporters: [exporterId] });
  const pump = createAuditExport({ store, config, metrics: metrics.audit, clock: systemClock,
    log: () => undefined, hostname: 'bench', pid: process.pid });
  try {
    const start = performance.now();
    pump.start();
    // Polled every ms: at most 1 ms of the figure is the poll, against seconds of export.
    while ((pump.status()[0]?.lastSeq ?? 0) < rows) await delay(1);
    return { perSec: rows / ((performance.now() - start) / 1000), batches };
  } finally {
    await pump.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-export-'));
const store = await openSqliteStore({ path: join(dir, 'svc.db') });
try {
  const { appends, perSec: appendsPerSec } = await measureAppends(store, APPENDS);
  const rows = (await store.auditHead())?.seq ?? 0;
  const rounds: Array<{ perSec: number; batches: number }> = [];
  for (let i = 1; i <= EXPORT_ROUNDS; i++) rounds.push(await measureExport(store, rows, `bench-${i}`));
  // The median round: one slow fsync on a shared disk should not decide the figure either way.
  const { perSec: exportRowsPerSec, batches } = [...rounds].sort((a, b) => a.perSec - b.perSec)[EXPORT_ROUNDS >> 1] as typeof rounds[number];
  const ratio = exportRowsPerSec / appendsPerSec;
  console.log(JSON.stringify({
    bench: 'audit-export', rows, batches, batchMaxRows: BATCH_MAX_ROWS, format: 'json', rounds: EXPORT_ROUNDS,
    exportRowsPerSec: Math.round(exportRowsPerSec), appends, appendsPerSec: Math.round(appendsPerSec),
    ratio: Number(ratio.toFixed(2)), synchronous: 'FULL',
  }));
  console.log(`audit export: ${Math.round(exportRowsPerSec)} rows/s to a loopback HTTP receiver (json, ${BATCH_MAX_ROWS}-row batches) `
    + `vs ${Math.round(appendsPerSec)}/s durable audit appends on the same disk: ${ratio.toFixed(1)}x `
    + `(the exporter drains the chain ${ratio.toFixed(1)} times as fast as svc can append to it)`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
