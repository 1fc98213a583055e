/**
 * Keeps svc_dispatch_backlog{agent} and the sources' `inflight` (source_inflight, /status) up to date
 * from the store: one grouped count every `intervalMs`, off the request path, so a scrape or a
 * /status costs nothing however long the backlog is, and replicas sharing a store all see it whole.
 * A count walks the waiting events' index (about 90 ms for a million on SQLite here), so the pause
 * after one is at least COST_FACTOR times what it took: counting never takes more than 1/COST_FACTOR
 * of a core from ingest, however deep the backlog (contract §10.1: a million waiting events must not
 * slow ingest down).
 */
import type { Clock } from '../core/clock.js';
import { every } from '../core/every.js';
import type { DispatchMetricHandles } from '../metrics/registry.js';
import type { SourceStats } from '../metrics/source-stats.js';
import type { Store } from '../store/store.js';

export interface BacklogGauge {
  /** Counts now (tests, and the first reading at startup). */
  refresh(): Promise<void>;
  /** Stops counting; resolves once a count in flight has ended. */
  close(): Promise<void>;
}

/** A count is followed by a pause of at least this many times its duration (≤ 2 % of a core). */
export const COST_FACTOR = 50;
/** However slow the counts, the gauge is refreshed at least this often. */
const MAX_INTERVAL_MS = 60_000;

export function startBacklogGauge(deps: {
  store: Store;
  clock: Clock;
  metrics: DispatchMetricHandles;
  stats: SourceStats;
  agents: readonly string[];
  intervalMs?: number;
  onError: (err: unknown) => void;
}): BacklogGauge {
  const intervalMs = deps.intervalMs ?? 2_000;
  let nextMs = intervalMs;
  const seen = new Set<string>();

  const refresh = async (): Promise<void> => {
    const started = deps.clock.monotonic();
    const counts = await deps.store.backlog();
    nextMs = Math.min(MAX_INTERVAL_MS, Math.max(intervalMs, (deps.clock.monotonic() - started) * COST_FACTOR));
    const byAgent = new Map<string, number>(deps.agents.map((a) => [a, 0]));
    const now = new Set<string>();
    for (const c of counts) {
      byAgent.set(c.agentId, (byAgent.get(c.agentId) ?? 0) + c.count);
      deps.stats.get(c.agentId, c.sourceId).inflight = c.count;
      now.add(`${c.agentId}\u0000${c.sourceId}`);
    }
    // Sources whose backlog emptied since the last count go back to 0.
    for (const key of seen) {
      if (now.has(key)) continue;
      const [agentId, sourceId] = key.split('\u0000') as [string, string];
      deps.stats.get(agentId, sourceId).inflight = 0;
    }
    seen.clear();
    for (const key of now) seen.add(key);
    for (const [agent, n] of byAgent) deps.metrics.backlog.set({ agent }, n);
  };

  const loop = every({ clock: deps.clock, intervalMs: () => nextMs, run: refresh, onError: deps.onError });

  return {
    refresh,
    close: () => loop.close(),
  };
}
