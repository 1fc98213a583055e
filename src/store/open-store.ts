/**
 * Opens the store the configuration names (contract §10): the only code that knows which kinds of
 * store exist.
 */
import type { StoreSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { RuntimeError } from '../core/errors.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export async function openStore(settings: StoreSettings, deps: { clock?: Clock } = {}): Promise<Store> {
  switch (settings.kind) {
    case 'sqlite':
      return openSqliteStore({ path: settings.path, ...(deps.clock ? { clock: deps.clock } : {}) });
    case 'postgres':
      throw new RuntimeError('ESTORE_KIND', 'store.kind postgres is not available in this build');
  }
}
