/**
 * Audit appends per second on a real SQLite file (WAL, synchronous=FULL: one fsync'd transaction
 * per append) against the bare chain step — SHA-256 of prevHash + "\n" + JCS(row) — measured in the
 * same run. The ratio says how much of an append is the durable write rather than the hashing.
 *
 * Run: node --import tsx bench/audit-append.ts
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { canonicalRow, GENESIS_HASH } from '../src/audit/chain.js';
import { isoTs, systemClock } from '../src/core/clock.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { auditEntry, measureAppends } from './audit-appends.js';

const APPENDS = 20_000;
const CHAIN_STEPS = 200_000;

/** Appends on a fresh store file, removed afterwards. */
async function appendRate(): Promise<{ appends: number; perSec: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-audit-'));
  const store = await openSqliteStore({ path: join(dir, 'svc.db') });
  try {
    return await measureAppends(store, APPENDS);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureChainSteps(): number {
  let prevHash = GENESIS_HASH;
  const step = (seq: number): void => {
    const e = auditEntry(seq);
    const row = { seq, ts: isoTs(systemClock.now()), ...e, prevHash };
    prevHash = createHash('sha256').update(`${prevHash}\n${canonicalRow(row)}`, 'utf8').digest('hex');
  };
  for (let i = 1; i <= 10_000; i++) step(i);
  const start = performance.now();
  for (let i = 1; i <= CHAIN_STEPS; i++) step(i);
  return CHAIN_STEPS / ((performance.now() - start) / 1000);
}

const chainStepsPerSec = measureChainSteps();
const { appends, perSec: appendsPerSec } = await appendRate();
const ratio = appendsPerSec / chainStepsPerSec;
console.log(JSON.stringify({
  bench: 'audit-append', appends, appendsPerSec: Math.round(appendsPerSec),
  chainSteps: CHAIN_STEPS, chainStepsPerSec: Math.round(chainStepsPerSec), ratio: Number(ratio.toFixed(4)),
  synchronous: 'FULL',
}));
console.log(`audit append: ${Math.round(appendsPerSec)}/s durable (SQLite WAL, synchronous=FULL) vs `
  + `${Math.round(chainStepsPerSec)}/s bare SHA-256 chain steps: ${(ratio * 100).toFixed(1)}% `
  + `(${(1 / ratio).toFixed(1)}x slower)`);
