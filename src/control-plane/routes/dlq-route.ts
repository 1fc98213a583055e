/** GET /dlq (contract §5): the dispatch dead letters, newest first by default. */
import type { DeadLetterRecord, Store } from '../../store/store.js';
import { DEAD_LETTERS_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report, ViewItem } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface DlqRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
}

/** A dead letter as §5 shows it, with `replayedAt` (§13) and `corrupt` only when set (§11.5). */
export function deadLetterItem(d: DeadLetterRecord): ViewItem {
  return {
    fields: {
      id: d.id, ts: d.ts, agentId: d.agentId, sourceId: d.sourceId, eventId: d.eventId,
      reason: d.reason, error: d.error, attempts: d.attempts, replayedAt: d.replayedAt, ...(d.corrupt ? { corrupt: true } : {}),
    },
    rawKey: 'payload',
    raw: d.payloadText,
  };
}

export function createDlqRoute(deps: DlqRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/dlq',
    spec: DEAD_LETTERS_VIEW,
    list: (page, filter) => deps.store.listDeadLetters(page, filter),
    item: deadLetterItem,
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
