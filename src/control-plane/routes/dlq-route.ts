/** GET /dlq (contract §5): the dispatch dead letters, newest first by default. */
import type { Store } from '../../store/store.js';
import { DEAD_LETTERS_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface DlqRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
}

export function createDlqRoute(deps: DlqRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/dlq',
    spec: DEAD_LETTERS_VIEW,
    view: 'dlq',
    store: deps.store,
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
