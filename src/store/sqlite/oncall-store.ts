/**
 * The on-call store over the SQLite threads: writes go to the writer (group commit), reads to the
 * reader. The last look before a send is fenced against changes of its page in this process
 * (page-fence.ts): a plan onto a stored page commits only while no send of that page is between its
 * look and the wire.
 */
import { isStaleNotification } from '../../oncall/page.js';
import type { ReportFactsStore } from '../report-facts.js';
import { loadFacts } from '../report-facts.js';
import type { ReportReads } from '../report-rows.js';
import { readReportRows } from '../report-rows.js';
import type { SendHold } from '../oncall-store.js';
import type { OncallStore } from '../store.js';
import { createPageFence } from './page-fence.js';
import type { ReaderOps, WriterOps } from './store-worker.js';
import type { WorkerCall } from './worker-client.js';

export function sqliteOncall(write: WorkerCall<WriterOps>, read: WorkerCall<ReaderOps>): OncallStore {
  const fence = createPageFence();
  // Each chunk is a call of its own: other reads take their turn on the reader thread between them.
  const reportReads: ReportReads = {
    pageLines: (w) => read('reportPageLines', w),
    pageLinesOf: (ids) => read('reportPageLinesOf', ids),
    firstSeqSince: (sinceMs) => read('reportFirstSeq', sinceMs),
    auditLines: (afterSeq, limit) => read('reportAuditLines', afterSeq, limit),
    eventPayloads: (ids) => read('reportEventPayloads', ids),
  };
  const reportFacts: ReportFactsStore = {
    save: (save) => write('saveReportFacts', save),
    load: (onLines) => loadFacts({ mark: () => read('reportFactsMark'), chunk: (after, limit) => read('reportFactsChunk', after, limit) }, onLines),
  };
  return {
    // A new page has had no send yet: only a plan onto a stored page waits for the sends under their last look.
    applyPagePlan: (plan, nowMs, claim) => (plan.expectedVersion === null ? write('applyPagePlan', plan, nowMs, claim)
      : fence.exclusive(plan.page.id, () => write('applyPagePlan', plan, nowMs, claim))),
    noteResolve: (agentId, key, eventId, nowMs) => write('noteResolve', agentId, key, eventId, nowMs),
    writeNotifications: (notifications, audit, nowMs) => write('writeNotifications', notifications, audit, nowMs),
    claimDuePages: (owner, nowMs, leaseMs, limit) => write('claimDuePages', owner, nowMs, leaseMs, limit),
    quarantinePage: (id, nowMs) => write('quarantinePage', id, nowMs),
    claimNotifications: (owner, nowMs, leaseMs, limit, room) => write('claimNotifications', owner, nowMs, leaseMs, limit, room),
    // The common answer is a read: each of the reader's reads sees every commit made before it began,
    // an acknowledgement's too. Only a notice to cancel goes to the writer, which reads it again there.
    holdSend: async (ref, nowMs): Promise<SendHold> => {
      const release = ref.pageId === null ? () => undefined : await fence.shared(ref.pageId);
      try {
        const held = await read('heldNotification', ref);
        const check = held === null ? 'lost' : isStaleNotification(held.kind, held.state) ? await write('cancelStale', ref, nowMs) : 'send';
        if (check === 'send') return { check, release: () => { release(); return Promise.resolve(); } };
        release();
        return { check };
      } catch (err) {
        release();
        throw err;
      }
    },
    finishNotifications: (outcomes, nowMs) => write('finishNotifications', outcomes, nowMs),
    releaseClaims: (ownerPrefix) => write('releaseOncallClaims', ownerPrefix),
    addOverride: (override, nowMs, via, told) => write('addOverride', override, nowMs, via, told),
    removeOverride: (id, actor, nowMs, via, told) => write('removeOverride', id, actor, nowMs, via, told),
    addSilence: (silence, nowMs, via) => write('addSilence', silence, nowMs, via),
    expireSilence: (id, actor, nowMs, via) => write('expireSilence', id, actor, nowMs, via),
    touchHeartbeats: (agentId, ids, nowMs) => write('touchHeartbeats', agentId, ids, nowMs),
    claimOnce: (key, untilMs, nowMs) => write('claimOnce', key, untilMs, nowMs),
    applyHandoffPlan: (plan, nowMs) => write('applyHandoffPlan', plan, nowMs),
    listHandoffs: () => read('listHandoffs'),
    getPage: (id) => read('getPage', id),
    findPage: (agentId, key) => read('findPage', agentId, key),
    listPages: (q, f) => read('listPages', q, f),
    pageTimeline: (pageId) => read('pageTimeline', pageId),
    openPageCounts: () => read('openPageCounts'),
    listOverrides: (agentId, endsAfterMs) => read('listOverrides', agentId, endsAfterMs),
    listSilences: (endedAfterMs) => read('listSilences', endedAfterMs),
    listHeartbeats: () => read('listHeartbeats'),
    reportRows: (window) => readReportRows(reportReads, window),
    reportReads,
    reportFacts,
    pollOffset: (feed) => read('pollOffset', feed),
    savePollOffset: (feed, offset, nowMs) => write('savePollOffset', feed, offset, nowMs),
  };
}
