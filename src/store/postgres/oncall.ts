/** On-call on PostgreSQL: not yet (SQLite has it); every call is refused with a clear error. */
import { RuntimeError } from '../../core/errors.js';
import type { OncallStore } from '../store.js';

export function postgresOncall(): OncallStore {
  const no = (): Promise<never> => Promise.reject(new RuntimeError('ESTORE_ONCALL', 'on-call pages are not stored on PostgreSQL yet'));
  return {
    applyPagePlan: no, writeNotifications: no, claimDuePages: no, claimNotifications: no, finishNotifications: no, addOverride: no,
    removeOverride: no, addSilence: no, expireSilence: no, touchHeartbeats: no, getPage: no, findPage: no, listPages: no, pageTimeline: no,
    openPageCounts: () => Promise.resolve([]), listOverrides: () => Promise.resolve([]), listSilences: () => Promise.resolve([]),
    listHeartbeats: () => Promise.resolve([]),
  };
}
