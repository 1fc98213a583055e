/**
 * The heartbeat watch (contract §17.7): about once a second the page loop asks here whether each
 * heartbeat of each oncall.yaml was seen within `every + grace`. A heartbeat never seen starts its
 * watch now; one missing opens (or reopens) the page of its key `heartbeat:<id>` under its policy; one
 * seen again after its page (last) opened resolves that page. What was read goes to /status and the
 * metrics.
 *
 * A page resolved while the heartbeat was still missing (`svc resolve`, a button, a link) ends that
 * miss, not the watch: the next `every + grace` counts from the resolution, and if nothing came by
 * then the heartbeat pages again. A miss is named by the instant it counts from
 * (`heartbeat:<id>@<ms>`), so replicas watching together open, or reopen, its page once.
 */
import { isoTs } from '../../core/clock.js';
import { formatDuration } from '../../core/duration.js';
import type { Heartbeat, OncallConfig } from '../../oncall/oncall-config.js';
import { heartbeatKey } from '../../oncall/incident-key.js';
import type { PageRecord } from '../../oncall/page.js';
import { formatNaive } from '../../oncall/zone-time.js';
import { incarnationOpenedAtMs } from '../../oncall/page.js';
import type { HeartbeatSeen } from '../../store/oncall-store.js';
import { isDamagedPage } from '../../store/oncall-store.js';
import type { Store } from '../../store/store.js';
import type { PageEngine } from './page-engine.js';

export interface HeartbeatWatchDeps {
  store: Store;
  engine: Pick<PageEngine, 'openFor' | 'resolveKey'>;
  configs: ReadonlyMap<string, OncallConfig>;
  /** Seconds since each heartbeat was last seen (svc_heartbeat_age_seconds). */
  heartbeatAge?: (agentId: string, heartbeatId: string, seconds: number) => void;
  /** What the watch read of the heartbeats, for /status. */
  heartbeatsSeen?: (seen: HeartbeatSeen[]) => void;
}

/** One look at every heartbeat at `nowMs`. */
export async function watchHeartbeats(deps: HeartbeatWatchDeps, nowMs: number): Promise<void> {
  const { store, engine } = deps;
  const rows = await store.oncall.listHeartbeats();
  deps.heartbeatsSeen?.(rows);
  const seen = new Map(rows.map((h) => [`${h.agentId}\u0000${h.heartbeatId}`, h.lastSeenMs]));
  for (const [agentId, config] of deps.configs) {
    for (const hb of config.heartbeats) {
      const last = seen.get(`${agentId}\u0000${hb.id}`);
      if (last === undefined) {
        // Never seen: the watch starts now, so a fresh daemon gives the sender a full period.
        await store.oncall.touchHeartbeats(agentId, [hb.id], nowMs);
        continue;
      }
      deps.heartbeatAge?.(agentId, hb.id, Math.max(0, nowMs - last) / 1000);
      const key = heartbeatKey(hb.id);
      const stored = await store.oncall.findPage(agentId, key);
      // A page stored damaged is as none here: the engine sets it aside when it opens the next one.
      const page = stored === null || isDamagedPage(stored) ? null : stored;
      const open = page !== null && page.state !== 'resolved';
      if (open && last > incarnationOpenedAtMs(page)) {
        await engine.resolveKey(agentId, key, { actor: `source:${hb.source}`, by: 'source', via: 'source' }, null);
        continue;
      }
      const since = missingSince(last, page);
      if (!open && nowMs > since + hb.everyMs + hb.graceMs) {
        // Its incident key names it in reports (§23: pages per alert name), not "(no alert name)".
        await engine.openFor(agentId, key, hb.policy, { id: `${key}@${since}`, title: missingTitle(hb, last), severity: 'P1', alertname: key },
          [{ kind: 'heartbeat.missed', actor: `agent:${agentId}`, agentId, data: { heartbeat: hb.id, source: hb.source, lastSeen: isoTs(last) } }]);
      }
    }
  }
}

/**
 * What a miss counts from: the last delivery, or — when the page was resolved with nothing seen since
 * it opened (by hand, while the heartbeat was still missing) — that resolution.
 */
function missingSince(lastSeenMs: number, page: PageRecord | null): number {
  if (page === null || page.resolvedAtMs === null || lastSeenMs > incarnationOpenedAtMs(page)) return lastSeenMs;
  return Math.max(lastSeenMs, page.resolvedAtMs);
}

/**
 * The page's title, the same for every reader, so its time is UTC with its `Z` — to the minute, as the
 * CLI's tables print times (`2026-11-29 11:01Z`); the exact instant is the audit row's `lastSeen`.
 */
function missingTitle(hb: Heartbeat, lastSeenMs: number): string {
  const since = `${formatNaive(lastSeenMs)}Z`;
  return `Heartbeat ${hb.id} missing: nothing from ${hb.source} since ${since} (every ${formatDuration(hb.everyMs)}, grace ${formatDuration(hb.graceMs)})`;
}
