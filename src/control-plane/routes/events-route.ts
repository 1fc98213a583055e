/** GET /events (contract §5): the event store, newest first by default. */
import type { Store } from '../../store/store.js';
import { EVENTS_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface EventsRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
}

export function createEventsRoute(deps: EventsRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/events',
    spec: EVENTS_VIEW,
    view: 'events',
    store: deps.store,
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
