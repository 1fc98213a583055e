/**
 * Which store a daemon writes to, as /status shows it (`store.id`): replicas of one PostgreSQL
 * database show the same id, two homes' SQLite files different ones, so `svc fleet` can tell replicas
 * of one store apart from separate stores and list their rows once. It is the hash of the audit
 * chain's first row: written once when the store began, never changed (the chain is verified), and
 * unique to it (the row holds its time and the genesis link) — no row of its own, no migration.
 * A copy of a store (`svc store copy`, a restored backup) has the same history and so the same id.
 */
import type { Store } from '../store/store.js';

/** The first 32 hex digits of the first audit row's hash; null while the chain is empty. */
export async function storeIdentity(store: Pick<Store, 'listAudit'>): Promise<string | null> {
  const first = await store.listAudit({ limit: 1, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {});
  const hash = first.items[0]?.hash;
  return typeof hash === 'string' ? hash.slice(0, 32) : null;
}
