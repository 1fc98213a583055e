/**
 * An override added or removed that changes who is on call NOW is a handoff told at once (contract
 * §17.6, `schedule.handoff`): the 3 a.m. "I take over now" starts a moment in the past, so the
 * schedule's timer (handoff-plan.ts) never meets its start. The store writes this notice in the
 * override's own transaction; the timer then moves on to the next change by itself.
 */
import type { HandoffNotice } from './handoff-plan.js';
import { handoffNotice } from './handoff-plan.js';
import type { OncallConfig, Override } from './oncall-config.js';
import { usableOverrides, whoIsOnCall } from './schedule.js';

export interface OverrideChange {
  kind: 'add' | 'rm';
  override: Override;
}

/**
 * Whom the change tells at `nowMs`: the person on call after it, when that is not who was on call
 * before it; nobody otherwise (an override in the future or the past, one naming the person on call
 * already, a schedule no longer in the file). `overrides` are the agent's as stored before the change.
 */
export function planOverrideHandoff(config: OncallConfig, overrides: readonly Override[], change: OverrideChange, nowMs: number): HandoffNotice {
  const { override } = change;
  const schedule = config.schedules.find((s) => s.id === override.scheduleId);
  if (schedule === undefined) return { audit: [], notifications: [] };
  const others = usableOverrides(config, overrides).filter((o) => o.id !== override.id && o.agentId === override.agentId);
  const usable = usableOverrides(config, [override]);
  const before = change.kind === 'add' ? others : [...others, ...usable];
  const after = change.kind === 'add' ? [...others, ...usable] : others;
  const was = whoIsOnCall(schedule, before, nowMs);
  const is = whoIsOnCall(schedule, after, nowMs);
  if (was.person === is.person) return { audit: [], notifications: [] };
  return handoffNotice(config, override.agentId, schedule, is, nowMs, `${override.id}-${change.kind}`);
}
