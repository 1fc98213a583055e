/**
 * The proof of an import (contract §22.2): who svc says is on call — the imported schedules with the
 * imported overrides, asked through the same `scheduleShifts` the engine and `svc oncall` use — held
 * against the vendor's own rendering of the same schedule, at every instant of the rendering's window
 * (at most 28 days). Both sides are piecewise constant, so they are compared as a sweep over the union
 * of their edges, never by sampling: a one-minute difference is found as surely as a one-week one.
 */
import type { Override, Schedule } from '../oncall/oncall-config.js';
import { scheduleShifts } from '../oncall/schedule.js';
import { DAY_MS } from '../oncall/zone-time.js';

/** The longest window compared (contract §22.2). */
export const MAX_VERIFY_MS = 28 * DAY_MS;

/** One stretch of the vendor's rendering: who is on call in [startMs, endMs) (svc person ids, or `?label` for someone not imported). */
export interface RenderedSpan {
  startMs: number;
  endMs: number;
  people: readonly string[];
}

/** The vendor's rendering of one schedule, read from its saved answer. */
export interface VendorRendering {
  /** The svc schedule it renders. */
  scheduleId: string;
  /** The vendor's schedule, for people (`schedule "Primary" (PI7DH85)`). */
  source: string;
  /** The answer it was read from. */
  file: string;
  fromMs: number;
  toMs: number;
  spans: readonly RenderedSpan[];
}

/**
 * Renderings whose answer does not state its window (PagerDuty's final schedule, Grafana OnCall's final
 * shifts: both cut entries to the requested range) get the window from the earliest start to the latest
 * end over all of them, since an export asks every schedule for the same range.
 */
export function withSharedWindow(read: ReadonlyArray<Omit<VendorRendering, 'fromMs' | 'toMs'>>): VendorRendering[] {
  let fromMs = Infinity;
  let toMs = -Infinity;
  for (const r of read) {
    for (const s of r.spans) {
      fromMs = Math.min(fromMs, s.startMs);
      toMs = Math.max(toMs, s.endMs);
    }
  }
  return fromMs < toMs ? read.map((r) => ({ ...r, fromMs, toMs })) : [];
}

export interface Difference {
  scheduleId: string;
  fromMs: number;
  toMs: number;
  /** Who the vendor has on call (sorted; empty: nobody). */
  vendor: readonly string[];
  /** Who svc has on call (null: nobody). */
  svc: string | null;
}

export interface VerifyOutcome {
  scheduleId: string;
  source: string;
  fromMs: number;
  toMs: number;
  /** The rendering covered more than MAX_VERIFY_MS; only its first 28 days were compared. */
  cut: boolean;
  differences: Difference[];
}

/** Compares svc's answer for `schedule` (with its overrides) with the vendor's rendering over the rendering's window. */
export function compareRendering(schedule: Schedule, overrides: readonly Override[], rendering: VendorRendering): VerifyOutcome {
  const fromMs = rendering.fromMs;
  const toMs = Math.min(rendering.toMs, fromMs + MAX_VERIFY_MS);
  const outcome: VerifyOutcome = { scheduleId: schedule.id, source: rendering.source, fromMs, toMs, cut: rendering.toMs > toMs, differences: [] };
  if (toMs <= fromMs) return outcome;
  const ours = scheduleShifts(schedule, overrides.filter((o) => o.scheduleId === schedule.id), fromMs, toMs);

  // The vendor's spans as +person / −person events inside the window, in time order.
  const events: Array<{ at: number; person: string; delta: 1 | -1 }> = [];
  for (const span of rendering.spans) {
    const start = Math.max(span.startMs, fromMs);
    const end = Math.min(span.endMs, toMs);
    if (end <= start) continue;
    for (const person of span.people) events.push({ at: start, person, delta: 1 }, { at: end, person, delta: -1 });
  }
  events.sort((a, b) => a.at - b.at);
  const edges = [...new Set([fromMs, ...ours.map((s) => s.startMs), ...events.map((e) => e.at)])].filter((t) => t < toMs).sort((a, b) => a - b);

  const onCall = new Map<string, number>();
  let e = 0;
  let s = 0;
  for (let i = 0; i < edges.length; i++) {
    const at = edges[i] as number;
    const next = edges[i + 1] ?? toMs;
    while (e < events.length && (events[e] as { at: number }).at <= at) {
      const { person, delta } = events[e] as { person: string; delta: 1 | -1 };
      const count = (onCall.get(person) ?? 0) + delta;
      if (count > 0) onCall.set(person, count);
      else onCall.delete(person);
      e++;
    }
    while (s + 1 < ours.length && (ours[s + 1] as { startMs: number }).startMs <= at) s++;
    const svc = ours[s]?.person ?? null;
    const vendor = [...onCall.keys()].sort();
    if (vendor.length === (svc === null ? 0 : 1) && (svc === null || vendor[0] === svc)) continue;
    const last = outcome.differences.at(-1);
    if (last && last.toMs === at && last.svc === svc && last.vendor.join('\n') === vendor.join('\n')) last.toMs = next;
    else outcome.differences.push({ scheduleId: schedule.id, fromMs: at, toMs: next, vendor, svc });
  }
  return outcome;
}
