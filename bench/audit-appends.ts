/**
 * The durable audit append rate, shared by the benches that compare against it (audit-append,
 * audit-export): one fsync'd SQLite transaction per append, stopped early on a slow shared disk.
 * A helper, not a bench: run-all.ts skips it.
 */
import { performance } from 'node:perf_hooks';
import type { Store } from '../src/store/store.js';
import type { NewAuditEntry } from '../src/audit/audit-row.js';

const WARMUP = 1_000;
/** fsync latency on a shared disk varies 10x between runs: stop early rather than run for minutes. */
const APPEND_BUDGET_MS = 15_000;

/** A realistic audit entry (an accepted webhook event), distinct per `i`. */
export const auditEntry = (i: number): NewAuditEntry => ({
  kind: 'event.accepted',
  actor: 'source:alertmanager',
  agentId: 'oncall-escalator',
  data: { eventId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, sourceId: 'alertmanager', fingerprint: `fp-${i}` },
});

/** Appends `WARMUP` rows, then up to `count` timed ones; returns how many were timed and their rate. */
export async function measureAppends(store: Store, count: number): Promise<{ appends: number; perSec: number }> {
  for (let i = 0; i < WARMUP; i++) await store.appendAudit(auditEntry(i), Date.now());
  const start = performance.now();
  let n = 0;
  while (n < count && (n % 100 !== 0 || performance.now() - start < APPEND_BUDGET_MS)) {
    await store.appendAudit(auditEntry(WARMUP + n), Date.now());
    n += 1;
  }
  return { appends: n, perSec: n / ((performance.now() - start) / 1000) };
}
