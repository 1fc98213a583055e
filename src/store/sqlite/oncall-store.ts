/** The on-call store over the SQLite threads: writes go to the writer (group commit), reads to the reader. */
import { isStaleNotification } from '../../oncall/page.js';
import { readReportRows } from '../report-rows.js';
import type { OncallStore } from '../store.js';
import type { ReaderOps, WriterOps } from './store-worker.js';
import type { WorkerCall } from './worker-client.js';

export function sqliteOncall(write: WorkerCall<WriterOps>, read: WorkerCall<ReaderOps>): OncallStore {
  return {
    applyPagePlan: (plan, nowMs, claim) => write('applyPagePlan', plan, nowMs, claim),
    noteResolve: (agentId, key, eventId, nowMs) => write('noteResolve', agentId, key, eventId, nowMs),
    writeNotifications: (notifications, audit, nowMs) => write('writeNotifications', notifications, audit, nowMs),
    claimDuePages: (owner, nowMs, leaseMs, limit) => write('claimDuePages', owner, nowMs, leaseMs, limit),
    claimNotifications: (owner, nowMs, leaseMs, limit) => write('claimNotifications', owner, nowMs, leaseMs, limit),
    // The common answer is a read: each of the reader's reads sees every commit made before it began,
    // an acknowledgement's too. Only a notice to cancel goes to the writer, which reads it again there.
    confirmSend: async (ref, nowMs) => {
      const held = await read('heldNotification', ref);
      if (held === null) return 'lost';
      return isStaleNotification(held.kind, held.state) ? write('confirmSend', ref, nowMs) : 'send';
    },
    finishNotifications: (outcomes, nowMs) => write('finishNotifications', outcomes, nowMs),
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
    // Each chunk is a call of its own: other reads take their turn on the reader thread between them.
    reportRows: (window) => readReportRows({
      pageLines: (w) => read('reportPageLines', w),
      firstSeqSince: (sinceMs) => read('reportFirstSeq', sinceMs),
      auditLines: (afterSeq, limit) => read('reportAuditLines', afterSeq, limit),
      eventPayloads: (ids) => read('reportEventPayloads', ids),
    }, window),
    pollOffset: (feed) => read('pollOffset', feed),
    savePollOffset: (feed, offset, nowMs) => write('savePollOffset', feed, offset, nowMs),
  };
}
