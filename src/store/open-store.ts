/**
 * Opens the store the configuration names (contract §10): the only code that knows which kinds of
 * store exist.
 */
import type { StoreSettings } from '../config/store.js';
import type { Clock } from '../core/clock.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * `onError`: connection trouble of a PostgreSQL store while it runs (the database went away, came
 * back), once per distinct message and never with the URL's password.
 */
export async function openStore(settings: StoreSettings, deps: { clock?: Clock; onError?: (message: string) => void } = {}): Promise<Store> {
  switch (settings.kind) {
    case 'sqlite':
      return openSqliteStore({ path: settings.path, ...(deps.clock ? { clock: deps.clock } : {}) });
    case 'postgres':
      return openPostgresStore({ url: settings.url, ...(deps.clock ? { clock: deps.clock } : {}), ...(deps.onError ? { onError: deps.onError } : {}) });
  }
}
