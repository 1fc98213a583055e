/**
 * Replicas of one store (contract §16) serve the same events, dead letters and audit rows: `svc fleet`
 * lists each once. A host's store is the `store.id` of its /status (daemon/store-identity.ts); hosts
 * without one (an older svc, a /status that failed) are their own store. A row is shown once per
 * store and key, under the names of every answering host of that store (`eu-1+eu-2`).
 */
import type { HostRow } from './merge.js';

export function onePerStore<T>(rows: ReadonlyArray<HostRow<T>>, storeOf: ReadonlyMap<string, string | null>,
  key: (item: T) => string | number): Array<HostRow<T>> {
  const hostsOf = new Map<string, string[]>();
  for (const [host, store] of [...storeOf].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (store !== null) hostsOf.set(store, [...(hostsOf.get(store) ?? []), host]);
  }
  const seen = new Set<string>();
  const out: Array<HostRow<T>> = [];
  for (const row of rows) {
    const store = storeOf.get(row.host) ?? null;
    if (store === null) { out.push(row); continue; }
    const id = `${store}\u0000${String(key(row.item))}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ host: (hostsOf.get(store) ?? [row.host]).join('+'), item: row.item });
  }
  return out;
}
