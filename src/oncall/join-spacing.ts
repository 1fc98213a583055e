/**
 * When a page's next join notice may go out (contract §17.3: at most one a minute per page, joins
 * inside the minute counted into the next; §21.7: nobody gets more than one a minute). The minute is
 * kept between the notices' plans and on the wire: a first notice that took long to send would
 * otherwise come closer to the next.
 */
import type { PageRecord } from './page.js';

/** A join notice goes out at most once a minute per page; later joins are counted into the next (§17.3). */
export const JOIN_NOTICE_GAP_MS = 60_000;

/**
 * The page's earlier join notices as the wire saw them (runtime/oncall/joins-out.ts reads them from the
 * page's audit trail): when the last one was out, and whether one is still on its way.
 */
export interface JoinsOut {
  lastOutAtMs: number | null;
  onItsWay: boolean;
}

/** Nothing known of the wire: only the minute from the last notice's plan holds. */
export const NO_JOINS_OUT: JoinsOut = { lastOutAtMs: null, onItsWay: false };

/** Whether a join notice may be due now after an earlier one: only then does the planner need `JoinsOut`. */
export function joinsOutNeeded(page: Pick<PageRecord, 'state' | 'lastJoinNoticeAtMs'>, nowMs: number): boolean {
  return page.state !== 'resolved' && page.lastJoinNoticeAtMs !== null && nowMs >= page.lastJoinNoticeAtMs + JOIN_NOTICE_GAP_MS;
}

/**
 * When the page's next join notice may go out: a minute after the last one was planned and a minute
 * after it was out; while one is still on its way, a minute from now (the timer looks again then).
 */
export function joinNoticeDueAtMs(page: Pick<PageRecord, 'lastJoinNoticeAtMs'>, out: JoinsOut, nowMs: number): number {
  const planned = page.lastJoinNoticeAtMs === null ? nowMs : page.lastJoinNoticeAtMs + JOIN_NOTICE_GAP_MS;
  const wire = out.onItsWay ? nowMs + JOIN_NOTICE_GAP_MS : out.lastOutAtMs === null ? nowMs : out.lastOutAtMs + JOIN_NOTICE_GAP_MS;
  return Math.max(planned, wire);
}
