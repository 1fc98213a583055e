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

/**
 * A delivery that is only proof of life: every alert in it carries the `match` labels of a heartbeat
 * of its source (Alertmanager's always-firing Watchdog, repeated every few minutes). It refreshes
 * the heartbeat and is no incident: it opens no page and notifies nobody (§17.7). A group that also
 * holds another alert is an incident like any other.
 */
export function isHeartbeatOnly(heartbeats: readonly Heartbeat[], sourceId: string, payload: unknown): boolean {
  const mine = heartbeats.filter((h) => h.source === sourceId);
  if (mine.length === 0) return false;
  const alerts = alertLabels(payload);
  return alerts.length > 0 && alerts.every((labels) => mine.some((h) => Object.entries(h.match).every(([k, v]) => labels[k] === v)));
}
