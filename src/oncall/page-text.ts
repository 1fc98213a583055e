/**
 * What a page's messages say: read at 3 a.m. on a phone, so the first line is the alert, the second
 * what happened to the page, the last what to type to answer it.
 */
import { formatDuration } from '../core/duration.js';
import type { PageRecord } from './page.js';
import { alertCount } from './page.js';

type P = Pick<PageRecord, 'id' | 'title' | 'severity' | 'step' | 'loop' | 'policy' | 'eventIds' | 'pendingJoins' | 'resolvedBy' | 'facts' | 'alertIds'>;

const head = (p: P): string => `[${p.severity}] ${p.title}`;
/** The event's runbook and source links (when it has any) above what to type: what the person needs to act. */
const toAct = (p: P): string => [...(p.facts ?? []), `Acknowledge: svc ack ${p.id}`].join('\n');

function where(p: P): string {
  const loops = p.policy.repeat > 0 ? `, pass ${p.loop + 1} of ${p.policy.repeat + 1}` : '';
  return `step ${p.step} of ${p.policy.steps.length}${loops}`;
}

export const pageText = {
  opened: (p: P): string => `${head(p)}\nPage ${p.id} opened (${where(p)}).\n${toAct(p)}`,
  /** A resolved page whose incident fired again inside the reopen window: the same id, said to be the same page. */
  reopened: (p: P): string => `${head(p)}\nPage ${p.id} reopened: it fired again after it was resolved (${where(p)}).\n${toAct(p)}`,
  joined: (p: P): string => `${head(p)}\n${alertCount(p)} alerts now on page ${p.id} (${where(p)}).\n${toAct(p)}`,
  escalated: (p: P, reason: 'timeout' | 'manual'): string => {
    const why = reason === 'manual' ? 'escalated by hand' : 'nobody acknowledged the previous step';
    return `${head(p)}\nPage ${p.id} escalated: ${why} (${where(p)}).\n${toAct(p)}`;
  },
  ackTimedOut: (p: P): string =>
    `${head(p)}\nPage ${p.id} was acknowledged ${formatDuration(p.policy.ackTimeoutMs)} ago and is not resolved: paging again (${where(p)}).\n${toAct(p)}`,
  exhausted: (p: P): string =>
    `${head(p)}\nNobody acknowledged page ${p.id}: every step of policy ${p.policy.id} was tried ${p.policy.repeat + 1} time(s). It stays open.\n${toAct(p)}`,
  acknowledged: (p: P & Pick<PageRecord, 'acknowledgedBy'>): string =>
    `${head(p)}\nPage ${p.id} was acknowledged by ${p.acknowledgedBy ?? 'someone'}.`,
  unacknowledged: (p: P): string => `${head(p)}\nPage ${p.id} is no longer acknowledged: escalation resumes (${where(p)}).\n${toAct(p)}`,
  resolved: (p: P): string => `RESOLVED ${head(p)}\nPage ${p.id} was resolved by ${p.resolvedBy ?? 'someone'}.`,
};
