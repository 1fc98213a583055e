/**
 * GET /audit (contract §5): the audit chain, oldest first by default. `verify=1` adds
 * `"verify": {ok, checked, headSeq, headHash, firstBadSeq, problem}` for the WHOLE chain, not just
 * the page. The store verifies off the request path (Store.verifyAudit: worker threads for SQLite)
 * and shares one run between concurrent requests, so N clients asking at once read the chain once
 * and other routes keep answering meanwhile.
 */
import type { ListedAuditRow, Store } from '../../store/store.js';
import { AUDIT_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report, ViewItem } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface AuditRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
}

/** An audit row as §5 shows it; `data` is the stored canonical text, `corrupt` only when set (§11.5). */
export function auditItem(a: ListedAuditRow): ViewItem {
  return {
    fields: {
      seq: a.seq, ts: a.ts, kind: a.kind, actor: a.actor, agentId: a.agentId, prevHash: a.prevHash, hash: a.hash,
      ...(a.corrupt ? { corrupt: true } : {}),
    },
    rawKey: 'data',
    raw: a.dataText,
  };
}

export function createAuditRoute(deps: AuditRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/audit',
    spec: AUDIT_VIEW,
    list: (page, filter) => deps.store.listAudit(page, filter),
    item: auditItem,
    // After the page, so a malformed cursor is a 400 without starting a run.
    extend: async (query) => {
      if (!query.verify) return {};
      const v = await deps.store.verifyAudit();
      return {
        verify: {
          ok: v.ok, checked: v.checked, headSeq: v.headSeq, headHash: v.headHash,
          firstBadSeq: v.firstBadSeq, problem: v.problem,
        },
      };
    },
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
