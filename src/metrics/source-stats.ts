/**
 * Live per-source counters, read by /status and the metrics exporter.
 * received: authenticated, well-formed deliveries (accepted + duplicate);
 * processed: events whose message went out; dlq: events dead-lettered;
 * inflight: accepted events not yet processed or dead-lettered.
 */
export interface SourceCounters {
  received: number;
  processed: number;
  dlq: number;
  inflight: number;
}

export interface SourceStats {
  get(agentId: string, sourceId: string): SourceCounters;
  all(): Array<{ agentId: string; sourceId: string; counters: SourceCounters }>;
  /** Pairs known so far; entries are only ever added, so an unchanged size means an unchanged list. */
  size(): number;
}

export function createSourceStats(): SourceStats {
  const table = new Map<string, { agentId: string; sourceId: string; counters: SourceCounters }>();
  return {
    get(agentId, sourceId) {
      const key = `${agentId}\u0000${sourceId}`;
      let entry = table.get(key);
      if (!entry) {
        entry = { agentId, sourceId, counters: { received: 0, processed: 0, dlq: 0, inflight: 0 } };
        table.set(key, entry);
      }
      return entry.counters;
    },
    all: () => [...table.values()],
    size: () => table.size,
  };
}
