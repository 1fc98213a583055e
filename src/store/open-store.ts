/**
 * Opens the store the configuration names (contract §10): the only code that knows which kinds of
 * store exist.
 */
import type { StoreSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
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
