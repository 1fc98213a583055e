/**
 * A person is told when their shift starts (contract §17.6, `schedule.handoff`): the pure decision
 * behind each schedule's handoff timer. The store keeps one due time per schedule (the next instant
 * its answer changes); when it has come, the person on call now is told on every contact until when,
 * and the timer moves to the next handoff. The store applies a plan only onto the due time it was
 * planned from, so a handoff is told once however many replicas (or restarts) look at it.
 */
import type { NewAuditEntry } from '../audit/audit-row.js';
import type { OnCallAnswer, OncallConfig, Override, Schedule } from './oncall-config.js';
import type { PageNotification } from './page.js';
import { nextHandoff, usableOverrides, whoIsOnCall } from './schedule.js';
import { formatNaive, zoneTime } from './zone-time.js';

/** A schedule's stored timer: `undefined` never seen (no row), null no handoff within the horizon. */
export type StoredHandoff = number | null | undefined;

/** Telling a schedule's person on call that they are: the `schedule.handoff` row and the line on each of their contacts. */
export interface HandoffNotice {
  audit: NewAuditEntry[];
  notifications: PageNotification[];
}

export interface HandoffPlan extends HandoffNotice {
  agentId: string;
  scheduleId: string;
  /** The stored due time this plan replaces (undefined: inserts the first). */
  expectedNextMs: StoredHandoff;
  nextMs: number | null;
}

/** `You are on call for primary until 2026-11-30 09:00 Europe/Berlin.` — the one line a person reads. */
export function handoffText(schedule: Schedule, untilMs: number | null): string {
  if (untilMs === null) return `You are on call for ${schedule.id} until further notice.`;
  return `You are on call for ${schedule.id} until ${formatNaive(zoneTime(schedule.timeZone).toNaive(untilMs))} ${schedule.timeZone}.`;
}

/**
 * What the schedule's timer does at `nowMs`: null when nothing changes. First sight starts the timer
 * without telling anyone (the shift under way was not just handed over); a due timer tells the person
 * on call now and moves on; an override added or removed since moves the next handoff (forward to
 * its start or end; back to the rotation's when one in force was removed, so its old end tells nobody twice).
 */
export function planHandoff(config: OncallConfig, agentId: string, schedule: Schedule, overrides: readonly Override[], stored: StoredHandoff,
  nowMs: number): HandoffPlan | null {
  const usable = usableOverrides(config, overrides);
  const next = nextHandoff(schedule, usable, nowMs)?.atMs ?? null;
  const base = { agentId, scheduleId: schedule.id, expectedNextMs: stored, nextMs: next, audit: [], notifications: [] };
  if (stored === undefined) return base;
  if (stored === null || stored > nowMs) return next !== stored ? base : null;
  return { ...base, ...handoffNotice(config, agentId, schedule, whoIsOnCall(schedule, usable, nowMs), stored, String(stored)) };
}

/**
 * Tells `onCall`, the schedule's answer at `atMs`, that they are on call: the audit row and one
 * notification per contact (none when nobody is on call: the row records that). `change` names this
 * handoff in the deliveryIds — a retry writes no second notice, another handoff tells again.
 */
export function handoffNotice(config: OncallConfig, agentId: string, schedule: Schedule, onCall: OnCallAnswer, atMs: number,
  change: string): HandoffNotice {
  const at = new Date(atMs).toISOString();
  const audit: NewAuditEntry[] = [{ kind: 'schedule.handoff', actor: `agent:${agentId}`, agentId, data: { schedule: schedule.id, at,
    person: onCall.person, source: onCall.source, until: onCall.untilMs === null ? null : new Date(onCall.untilMs).toISOString() } }];
  const person = config.people.find((p) => p.id === onCall.person);
  const text = handoffText(schedule, onCall.untilMs);
  const notifications: PageNotification[] = Object.entries(person?.contacts ?? {}).map(([channelId, to]) => ({
    deliveryId: `handoff.${schedule.id}.${change}.${person?.id ?? '-'}.${channelId}`, pageId: null, agentId, kind: 'handoff',
    eventId: `handoff:${schedule.id}@${at}`, channelId, person: person?.id ?? '-', to, severity: 'P3', status: 'firing',
    title: `On call: ${schedule.id}`, text }));
  return { audit, notifications };
}
