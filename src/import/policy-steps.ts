/**
 * Escalation policies as svc steps (§17): each step notifies its targets, then waits `after` for an ack
 * before the next. The vendors say the same in other words — Opsgenie gives every rule a delay from the
 * start, Grafana OnCall interleaves `wait` steps, PagerDuty gives each rule its own delay — so each
 * mapping first lays its rules out on one timeline (what is notified how long after the alert), and
 * this turns the timeline into steps: notifications at the same moment become one step, the gap to
 * the next moment becomes `after`.
 */
import type { PolicyStep, Target } from '../oncall/oncall-config.js';
import { DURATION_BOUNDS } from '../oncall/oncall-schema.js';
import { formatDuration } from '../core/duration.js';

export interface TimedTargets {
  /** Milliseconds after the alert. */
  atMs: number;
  targets: readonly Target[];
}

const key = (t: Target): string => `${t.kind}:${t.id}`;

function within(ms: number, notes: string[], what: string): number {
  const { min, max } = DURATION_BOUNDS.after;
  if (ms >= min && ms <= max) return ms;
  const clamped = Math.min(max, Math.max(min, ms));
  notes.push(`${what} (${ms === 0 ? 'none' : formatDuration(ms)}) is outside svc's 1s..24h: ${formatDuration(clamped)} instead`);
  return clamped;
}

/**
 * The steps of the timeline; `lastAfterMs` is how long the last step waits (before the next loop, or
 * before the page counts as exhausted). Notes say where svc's steps differ from the timeline.
 */
export function stepsFrom(timeline: readonly TimedTargets[], lastAfterMs: number): { steps: PolicyStep[]; notes: string[] } {
  const notes: string[] = [];
  const moments = new Map<number, Map<string, Target>>();
  for (const t of [...timeline].sort((a, b) => a.atMs - b.atMs)) {
    const at = moments.get(t.atMs) ?? new Map<string, Target>();
    for (const target of t.targets) at.set(key(target), target);
    moments.set(t.atMs, at);
  }
  const times = [...moments.keys()].filter((at) => (moments.get(at)?.size ?? 0) > 0);
  const first = times[0];
  if (first !== undefined && first > 0) notes.push(`svc notifies the first step as the page opens; the source waited ${formatDuration(first)} first`);
  const steps = times.map((at, i): PolicyStep => {
    const next = times[i + 1];
    const afterMs = next === undefined ? within(lastAfterMs, notes, 'the wait after the last step') : within(next - at, notes, `the wait after step ${i + 1}`);
    return { notify: [...(moments.get(at)?.values() ?? [])], afterMs };
  });
  return { steps, notes };
}
