/**
 * The daemon's first phase: the open-file budget is checked against every listener's cap (§11.2), the
 * store opens, and the claims a previous run of this replica left (a crash, a kill) are given back.
 */
import type { DaemonSettings } from '../config/settings.js';
import type { Clock } from '../core/clock.js';
import { checkDescriptorBudget } from '../core/fd-limit.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { loadReplicaId } from './replica-id.js';

export interface DaemonStore {
  store: Store;
  replicaId: string;
  /** Claims of the previous run given back at start. */
  released: number;
  close(): Promise<void>;
}

export async function openDaemonStore(deps: { settings: DaemonSettings; clock: Clock; replicaIdPath: string;
  report: (line: string) => void }): Promise<DaemonStore> {
  const { controlPlane, listeners } = deps.settings;
  // Every listener's cap, plus what the daemon keeps for itself, under the open-file limit (§11.2).
  checkDescriptorBudget([...listeners.map((l) => ({ name: `ingest ${l.key}`, maxConnections: l.maxConnections })),
    ...(controlPlane.enabled ? [{ name: 'control plane', maxConnections: controlPlane.maxConnections }] : [])]);
  // A PostgreSQL store reports connection trouble here (never the URL's password); calls made while
  // the database is away reject, and ingest answers 503 until it is back (contract §16.6).
  const store = await openStore(deps.settings.store, { clock: deps.clock, onError: (message) => deps.report(`store: ${message}`) });
  try {
    const replicaId = loadReplicaId(deps.replicaIdPath);
    // Events, page notices and page timers held by a previous run of this replica: no longer waited out.
    const released = await store.releaseClaims(`${replicaId}/`) + await store.oncall.releaseClaims(`${replicaId}/`);
    return { store, replicaId, released, close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}
