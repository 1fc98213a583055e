/**
 * What /status shows of an agent's on-call state (contract §17.9): open pages, schedule ids and each
 * heartbeat's last delivery and state. Pure: the page loop reads the store, this decides the view.
 */
import type { OncallConfig } from './oncall-config.js';

/** `waiting`: nothing seen since the watch began; `ok`: within `every + grace`; `missing`: overdue (a page opens). */
export type HeartbeatState = 'waiting' | 'ok' | 'missing';

export interface OncallStatus {
  pagesOpen: number;
  schedules: string[];
  heartbeats: Array<{ id: string; lastSeen: string | null; state: HeartbeatState }>;
}

export function oncallStatus(config: OncallConfig, pagesOpen: number, lastSeenMs: ReadonlyMap<string, number>, nowMs: number): OncallStatus {
  return {
    pagesOpen,
    schedules: config.schedules.map((s) => s.id),
    heartbeats: config.heartbeats.map((hb) => {
      const last = lastSeenMs.get(hb.id);
      if (last === undefined) return { id: hb.id, lastSeen: null, state: 'waiting' as const };
      return { id: hb.id, lastSeen: new Date(last).toISOString(), state: nowMs > last + hb.everyMs + hb.graceMs ? 'missing' as const : 'ok' as const };
    }),
  };
}
