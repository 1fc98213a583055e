/**
 * GET /audit (contract §5): the audit chain, oldest first by default. `verify=1` adds
 * `"verify": {ok, checked, headSeq, headHash, firstBadSeq, problem, checkpoints}` for the WHOLE chain,
 * not just the page; `checkpoints` holds the chain to the newest checkpoints signed (contract §20.2:
 * `{ok, checked, contradiction}`), so a deleted or re-hashed tail, which verifies on its own, is still
 * reported — `ok` stays the chain's own verdict. The store verifies off the request path (Store.verifyAudit: worker threads for SQLite)
 * and shares one run between concurrent requests, so N clients asking at once read the chain once
 * and other routes keep answering meanwhile.
 */
import type { NewestCheckpointsVerdict } from '../../audit/check-checkpoints.js';
import type { Store } from '../../store/store.js';
import { AUDIT_VIEW } from '../page-query.js';
import { createReadGate, DEFAULT_READS_AT_ONCE } from '../read-gate.js';
import type { ReadGate } from '../read-gate.js';
import type { RouteHandler } from '../route.js';
import type { Report } from './view-route.js';
import { createViewRoute, stderrReport } from './view-route.js';

export interface AuditRouteDeps {
  store: Store;
  /** Detail of a 500 (default: stderr, which `up -d` sends to up.log). */
  report?: Report;
  /** Page reads served at once, shared by the views (default: one gate of its own). */
  gate?: ReadGate;
  /** The chain held to the newest checkpoints (export/newest-checkpoints.ts); absent: not reported. */
  checkpoints?: () => Promise<NewestCheckpointsVerdict>;
}

export function createAuditRoute(deps: AuditRouteDeps): RouteHandler {
  return createViewRoute({
    path: '/audit',
    spec: AUDIT_VIEW,
    view: 'audit',
    store: deps.store,
    // After the page, so a malformed cursor is a 400 without starting a run.
    extend: async (query) => {
      if (!query.verify) return {};
      const v = await deps.store.verifyAudit();
      const checkpoints = deps.checkpoints ? await deps.checkpoints() : undefined;
      return {
        verify: {
          ok: v.ok, checked: v.checked, headSeq: v.headSeq, headHash: v.headHash,
          firstBadSeq: v.firstBadSeq, problem: v.problem, ...(checkpoints ? { checkpoints } : {}),
        },
      };
    },
    report: deps.report ?? stderrReport,
    gate: deps.gate ?? createReadGate(DEFAULT_READS_AT_ONCE),
  });
}
