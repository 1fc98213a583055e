/**
 * `svc backup` of a store holding 1,000,000 events (contract §13) while alerts flow: how long the
 * backup takes, and how long ingest stalls during it. The daemon runs on its own (the built CLI,
 * foreground), signed ingest load comes from wrk in another process, and the backup is asked for over
 * the admin socket by the built `svc backup`. Same run: ingest under the same load without a backup is
 * the baseline; a sequential probe client (one request at a time) measures the longest single answer
 * inside the backup window and in the baseline window. The copy is then verified offline.
 *
 *   npm run build && node --import tsx bench/backup-million.ts [events]
 */
import { execFileSync, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDaemon, fillEvents, r3, signedAlert } from './lib/daemon.js';
import type { WrkResult } from './lib/wrk.js';
import { runWrk } from './lib/wrk.js';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const SVC = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const CONNECTIONS = 16;

/** One signed request at a time until `stop()`: the longest answer seen, and how many. */
function probe(url: string, body: string, headers: Record<string, string>): { stop(): Promise<{ maxMs: number; count: number }> } {
  let running = true;
  let maxMs = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(url, { method: 'POST', body, headers });
      await res.arrayBuffer();
      maxMs = Math.max(maxMs, performance.now() - t);
      count += 1;
    }
  })();
  return { stop: async () => { running = false; await loop; return { maxMs, count }; } };
}

const d = await benchDaemon();
try {
  const t0 = performance.now();
  await fillEvents(d, EVENTS, 'processed');
  const fillS = (performance.now() - t0) / 1000;
  const storeBytes = statSync(join(d.home, 'svc.db')).size;
  await d.start();
  const { body, headers } = signedAlert(d.dir, d.secret);
  const load = (seconds: number): Promise<WrkResult> => runWrk({ url: d.ingestUrl, method: 'POST', body, headers, seconds, connections: CONNECTIONS });

  // Baseline: the same load, no backup.
  const baseProbe = probe(d.ingestUrl, body, headers);
  const baseline = await load(10);
  const baseStall = await baseProbe.stop();

  // The backup, started once the load runs; wrk runs long enough to cover it.
  const target = join(d.home, '..', 'backup.db');
  const during = load(60);
  await new Promise((r) => setTimeout(r, 2000));
  const backupProbe = probe(d.ingestUrl, body, headers);
  const b0 = performance.now();
  const backup = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [SVC, 'backup', target, '--json'], { env: d.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.on('close', (code) => resolve({ code, out }));
  });
  const backupS = (performance.now() - b0) / 1000;
  const backupStall = await backupProbe.stop();
  const withBackup = await during;
  if (backup.code !== 0) throw new Error(`svc backup failed: ${backup.out}`);
  await d.stop();
  const v0 = performance.now();
  const verify = JSON.parse(execFileSync(process.execPath, [SVC, 'audit', '--verify', '--db', target, '--json'], { env: d.env }).toString()) as { verify: { ok: boolean } };
  const verifyS = (performance.now() - v0) / 1000;

  const result = {
    bench: 'backup-million', events: EVENTS, storeMiB: Math.round(storeBytes / 1048576), fillS: r3(fillS),
    backupS: r3(backupS), backupMiB: Math.round(statSync(target).size / 1048576), backupMiBps: r3(statSync(target).size / 1048576 / backupS),
    ingestRpsBaseline: Math.round(baseline.rps), ingestRpsDuringBackup: Math.round(withBackup.rps), rpsRatio: r3(withBackup.rps / baseline.rps),
    p99MsBaseline: r3(baseline.p99Ms), p99MsDuringBackup: r3(withBackup.p99Ms),
    maxMsBaseline: r3(baseline.maxMs), maxMsDuringBackup: r3(withBackup.maxMs),
    probeMaxMsBaseline: r3(baseStall.maxMs), probeMaxMsDuringBackup: r3(backupStall.maxMs), probeRequestsDuringBackup: backupStall.count,
    errors: baseline.errors + withBackup.errors, verifyOk: verify.verify.ok, verifyS: r3(verifyS),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stdout.write(`backup-million: ${EVENTS} events (${result.storeMiB} MiB) backed up in ${result.backupS} s (${result.backupMiBps} MiB/s) under `
    + `${CONNECTIONS}-connection signed ingest; ingest during the backup ${result.ingestRpsDuringBackup} req/s = ${result.rpsRatio}× the same run without it; `
    + `longest single answer ${result.probeMaxMsDuringBackup} ms during vs ${result.probeMaxMsBaseline} ms without (wrk max ${result.maxMsDuringBackup} vs `
    + `${result.maxMsBaseline} ms, p99 ${result.p99MsDuringBackup} vs ${result.p99MsBaseline} ms); offline verify ok=${result.verifyOk}\n`);
} finally {
  await d.stop();
  d.cleanup();
}
