/**
 * Which heartbeats a delivery refreshes (contract §17.7): one from the heartbeat's `source` in which
 * any alert carries every label of `match` with exactly that value.
 */
import type { Heartbeat } from './oncall-config.js';
import { alertLabels } from './label-name.js';

export function heartbeatMatches(heartbeat: Heartbeat, sourceId: string, payload: unknown): boolean {
  if (heartbeat.source !== sourceId) return false;
  const wanted = Object.entries(heartbeat.match);
  return alertLabels(payload).some((labels) => wanted.every(([k, v]) => labels[k] === v));
}

/** The heartbeats of the file a delivery from `sourceId` refreshes. */
export function heartbeatsMatching(heartbeats: readonly Heartbeat[], sourceId: string, payload: unknown): Heartbeat[] {
  return heartbeats.filter((h) => heartbeatMatches(h, sourceId, payload));
}
