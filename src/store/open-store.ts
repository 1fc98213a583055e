/**
 * Opens the store the configuration names (contract §10): the only code that knows which kinds of
 * store exist.
 */
import type { StoreSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { checkStoreFile } from './sqlite/schema.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * `readOnly`: open an existing store without changing it — no migration, no writer; reads,
 * verification and backup only (offline `svc audit --verify --db`, `svc backup` with no daemon).
 */
export async function openStore(settings: StoreSettings, deps: { clock?: Clock; readOnly?: boolean } = {}): Promise<Store> {
  switch (settings.kind) {
    case 'sqlite':
      return openSqliteStore({ path: settings.path, ...(deps.clock ? { clock: deps.clock } : {}), ...(deps.readOnly ? { readOnly: true } : {}) });
    case 'postgres':
      throw new RuntimeError('ESTORE_KIND', 'store.kind postgres is not available in this build');
  }
}

/**
 * What `svc check` can say about the configured store without opening it: null when it looks usable
 * (an SQLite file that is a database, or none yet), else why not.
 */
export function checkStore(settings: StoreSettings): string | null {
  switch (settings.kind) {
    case 'sqlite':
      try {
        checkStoreFile(settings.path);
        return null;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    case 'postgres':
      return 'store.kind postgres is not available in this build';
  }
}
