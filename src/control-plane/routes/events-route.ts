/** GET /events (contract §5): the event store, newest first by default. */
import type { EventRecord, Store } from '../../store/store.js';
import { EVENTS_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report, ViewItem } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface EventsRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
}

/** An event as §5 shows it; `fingerprint` only when the source sent one, `corrupt` only when set (§11.5). */
export function eventItem(e: EventRecord): ViewItem {
  return {
    fields: {
      id: e.id, ts: e.ts, agentId: e.agentId, sourceId: e.sourceId, kind: e.kind,
      ...(e.fingerprint !== null ? { fingerprint: e.fingerprint } : {}),
      status: e.status, ...(e.corrupt ? { corrupt: true } : {}),
    },
    rawKey: 'payload',
    raw: e.payloadText,
  };
}

export function createEventsRoute(deps: EventsRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/events',
    spec: EVENTS_VIEW,
    list: (page, filter) => deps.store.listEvents(page, filter),
    item: eventItem,
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
