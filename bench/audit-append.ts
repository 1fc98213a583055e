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
import { openSqliteStore } from '../src/store/sqlite-store.js';
import type { NewAuditEntry } from '../src/store/store.js';

const WARMUP = 1_000;
const APPENDS = 20_000;
/** fsync latency on a shared disk varies 10x between runs: stop early rather than run for minutes. */
const APPEND_BUDGET_MS = 15_000;
const CHAIN_STEPS = 200_000;

const entry = (i: number): NewAuditEntry => ({
  kind: 'event.accepted',
  actor: 'source:alertmanager',
  agentId: 'oncall-escalator',
  data: { eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, sourceId: 'alertmanager', fingerprint: `fp-${i}` },
});

async function measureAppends(): Promise<{ appends: number; perSec: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-audit-'));
  const store = openSqliteStore({ path: join(dir, 'svc.db'), clock: systemClock });
  try {
    for (let i = 0; i < WARMUP; i++) await store.appendAudit(entry(i));
    const start = performance.now();
    let n = 0;
    while (n < APPENDS && (n % 100 !== 0 || performance.now() - start < APPEND_BUDGET_MS)) {
      await store.appendAudit(entry(WARMUP + n));
      n += 1;
    }
    return { appends: n, perSec: n / ((performance.now() - start) / 1000) };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureChainSteps(): number {
  let prevHash = GENESIS_HASH;
  const step = (seq: number): void => {
    const e = entry(seq);
    const row = { seq, ts: isoTs(systemClock.now()), ...e, prevHash };
    prevHash = createHash('sha256').update(`${prevHash}\n${canonicalRow(row)}`, 'utf8').digest('hex');
  };
  for (let i = 1; i <= 10_000; i++) step(i);
  const start = performance.now();
  for (let i = 1; i <= CHAIN_STEPS; i++) step(i);
  return CHAIN_STEPS / ((performance.now() - start) / 1000);
}

const chainStepsPerSec = measureChainSteps();
const { appends, perSec: appendsPerSec } = await measureAppends();
const ratio = appendsPerSec / chainStepsPerSec;
console.log(JSON.stringify({
  bench: 'audit-append', appends, appendsPerSec: Math.round(appendsPerSec),
  chainSteps: CHAIN_STEPS, chainStepsPerSec: Math.round(chainStepsPerSec), ratio: Number(ratio.toFixed(4)),
  synchronous: 'FULL',
}));
console.log(`audit append: ${Math.round(appendsPerSec)}/s durable (SQLite WAL, synchronous=FULL) vs `
  + `${Math.round(chainStepsPerSec)}/s bare SHA-256 chain steps: ${(ratio * 100).toFixed(1)}% `
  + `(${(1 / ratio).toFixed(1)}x slower)`);
