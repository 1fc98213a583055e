/** The on-call store over the SQLite threads: writes go to the writer (group commit), reads to the reader. */
import type { OncallStore } from '../store.js';

type Call = <T>(op: string, ...args: unknown[]) => Promise<T>;

export function sqliteOncall(write: Call, read: Call): OncallStore {
  return {
    applyPagePlan: (plan, nowMs) => write('applyPagePlan', plan, nowMs),
    writeNotifications: (notifications, audit, nowMs) => write('writeNotifications', notifications, audit, nowMs),
    claimDuePages: (owner, nowMs, leaseMs, limit) => write('claimDuePages', owner, nowMs, leaseMs, limit),
    claimNotifications: (owner, nowMs, leaseMs, limit) => write('claimNotifications', owner, nowMs, leaseMs, limit),
    confirmSend: (ref, nowMs) => write('confirmSend', ref, nowMs),
    finishNotifications: (outcomes, nowMs) => write('finishNotifications', outcomes, nowMs),
    addOverride: (override, nowMs) => write('addOverride', override, nowMs),
    removeOverride: (id, actor, nowMs) => write('removeOverride', id, actor, nowMs),
    addSilence: (silence, nowMs) => write('addSilence', silence, nowMs),
    expireSilence: (id, actor, nowMs) => write('expireSilence', id, actor, nowMs),
    touchHeartbeats: (agentId, ids, nowMs) => write('touchHeartbeats', agentId, ids, nowMs),
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
  };
}
