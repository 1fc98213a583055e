/**
 * Opens the store the configuration names (contract §10): the only code that knows which kinds of
 * store exist. The PostgreSQL store (and the `pg` driver under it) is loaded only when one is
 * configured: a daemon on SQLite does not carry it in memory.
 */
import type { StoreSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { checkStoreFile } from './sqlite/schema.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * `readOnly`: open an existing SQLite store without changing it — no migration, no writer; reads,
 * verification and backup only (offline `svc audit --verify --db`, `svc backup` with no daemon).
 * `onError`: connection trouble of a PostgreSQL store while it runs (the database went away, came
 * back), once per distinct message and never with the URL's password.
 */
export async function openStore(settings: StoreSettings,
  deps: { clock?: Clock; readOnly?: boolean; onError?: (message: string) => void } = {}): Promise<Store> {
  // The idempotency window is the store's, given once here: ingest calls do not carry it.
  const window = settings.idempotencyWindowMs === undefined ? {} : { idempotencyWindowMs: settings.idempotencyWindowMs };
  switch (settings.kind) {
    case 'sqlite':
      return openSqliteStore({ path: settings.path, ...window, ...(deps.clock ? { clock: deps.clock } : {}), ...(deps.readOnly ? { readOnly: true } : {}) });
    case 'postgres': {
      const { openPostgresStore } = await import('./postgres/postgres-store.js');
      return openPostgresStore({ url: settings.url, ...window, ...(deps.clock ? { clock: deps.clock } : {}),
        ...(deps.onError ? { onError: deps.onError } : {}) });
    }
  }
}

/**
 * What `svc check` can say about the configured store without changing it: null when it looks usable
 * (an SQLite file that is a database, or none yet; a PostgreSQL database that answers with a schema
 * this svc understands, or none yet), else why not.
 */
export async function checkStore(settings: StoreSettings): Promise<string | null> {
  switch (settings.kind) {
    case 'sqlite':
      try {
        checkStoreFile(settings.path);
        return null;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    case 'postgres': {
      const { checkPostgres } = await import('./postgres/check.js');
      return checkPostgres(settings.url);
    }
  }
}
