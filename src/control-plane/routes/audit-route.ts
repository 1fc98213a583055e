/**
 * GET /audit (contract §5): the audit chain, oldest first by default. `verify=1` adds
 * `"verify": {ok, checked, headSeq, headHash, firstBadSeq, problem}` for the WHOLE chain, not just
 * the page. The verifier does the work off the request path (worker threads for SQLite, time
 * slices otherwise) and shares one run between concurrent requests, so N clients asking at once
 * read the chain once and other routes keep answering meanwhile.
 */
import type { AuditChainVerifier } from '../../store/chain-verifier.js';
import type { Store } from '../../store/store.js';
import type { AuditRow } from '../../audit/audit-row.js';
import { AUDIT_VIEW } from '../page-query.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface AuditRouteDeps {
  store: Store;
  verifier: AuditChainVerifier;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
}

/** An audit row as §5 shows it. */
export function auditItem(a: AuditRow): Record<string, unknown> {
  return {
    seq: a.seq, ts: a.ts, kind: a.kind, actor: a.actor, agentId: a.agentId,
    data: a.data, prevHash: a.prevHash, hash: a.hash,
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
      const v = await deps.verifier.verify();
      return {
        verify: {
          ok: v.ok, checked: v.checked, headSeq: v.headSeq, headHash: v.headHash,
          firstBadSeq: v.firstBadSeq, problem: v.problem,
        },
      };
    },
    report: deps.report ?? stderrReport,
  });
}
