/**
 * Pieces every vendor's rotations are built from: a handoff as svc writes it (a local date-time in the
 * rotation's zone, to the minute, §17), a shift length within svc's bounds (1 h .. 4 w), and the check
 * that tells when several rotations cover the same instant — which svc answers with the first of them
 * and Opsgenie (every on-call participant is notified) or Grafana OnCall (shifts of one level) with all.
 */
import type { Rotation, Schedule } from '../oncall/oncall-config.js';
import { DURATION_BOUNDS } from '../oncall/oncall-schema.js';
import { scheduleShifts } from '../oncall/schedule.js';
import { MINUTE_MS, formatNaive, zoneTime } from '../oncall/zone-time.js';
import { formatDuration } from '../core/duration.js';

/** The instant as a handoff in `zone` (`2026-11-23T09:00`); `cut` when seconds were dropped to fit svc's minutes. */
export function localHandoff(instantMs: number, zone: string): { handoff: string; cut: boolean } {
  const naive = zoneTime(zone).toNaive(instantMs);
  return { handoff: formatNaive(naive).replace(' ', 'T'), cut: naive % MINUTE_MS !== 0 };
}

/** A naive local date-time (`2026-11-23T09:00:00`, as Grafana OnCall writes them) as a handoff; null when it is not one. */
export function naiveHandoff(text: string): { handoff: string; cut: boolean } | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(text);
  if (m === null) return null;
  return { handoff: m[1] as string, cut: m[2] !== undefined && m[2] !== '00' };
}

/**
 * A shift length svc takes. With one person the length changes nothing (every shift is theirs), so any
 * length maps exactly to a week; with more, a length outside 1 h .. 4 w is clamped and says so.
 */
export function shiftLength(ms: number, people: number): { everyMs: number; note: string | null } {
  const { min, max } = DURATION_BOUNDS.every;
  if (ms >= min && ms <= max) return { everyMs: ms, note: null };
  if (people <= 1) return { everyMs: 7 * 86_400_000, note: null };
  const everyMs = Math.min(max, Math.max(min, ms));
  return { everyMs, note: `shifts of ${formatDuration(ms)} are outside svc's 1h..4w: every ${formatDuration(everyMs)} instead` };
}

/** Where one rotation covers in [fromMs, toMs), as sorted [start, end) spans. */
export function coveredSpans(rotation: Rotation, fromMs: number, toMs: number): Array<[number, number]> {
  const alone: Schedule = { id: 'x', timeZone: rotation.timeZone, rotations: [rotation], fallback: null, allowGaps: true };
  return scheduleShifts(alone, [], fromMs, toMs).filter((s) => s.person !== null).map((s) => [s.startMs, s.endMs]);
}

/**
 * The first instant two rotations of the same `group` both cover, given each rotation's covered spans
 * (coveredSpans), with their indexes; null when none does. Rotations of different groups never count (a
 * higher level hides a lower one).
 */
export function firstOverlap(spans: ReadonlyArray<ReadonlyArray<[number, number]>>, groups: readonly number[]): { a: number; b: number; atMs: number } | null {
  let best: { a: number; b: number; atMs: number } | null = null;
  for (let a = 0; a < spans.length; a++) {
    for (let b = a + 1; b < spans.length; b++) {
      if (groups[a] !== groups[b]) continue;
      const x = spans[a] as ReadonlyArray<[number, number]>;
      const y = spans[b] as ReadonlyArray<[number, number]>;
      for (let i = 0, j = 0; i < x.length && j < y.length;) {
        const [xs, xe] = x[i] as [number, number];
        const [ys, ye] = y[j] as [number, number];
        const start = Math.max(xs, ys);
        if (start < Math.min(xe, ye)) {
          if (best === null || start < best.atMs) best = { a, b, atMs: start };
          break;
        }
        if (xe <= ye) i++;
        else j++;
      }
    }
  }
  return best;
}

/** The first instant in [fromMs, toMs) no rotation covers, given each rotation's covered spans; null when there is none. */
export function firstGap(spans: ReadonlyArray<ReadonlyArray<[number, number]>>, fromMs: number, toMs: number): number | null {
  const all = spans.flat().sort((p, q) => p[0] - q[0]);
  let covered = fromMs;
  for (const [start, end] of all) {
    if (start > covered) break;
    covered = Math.max(covered, end);
    if (covered >= toMs) return null;
  }
  return covered < toMs ? covered : null;
}

/** The list turned by `by` places: [a, b, c] by 1 → [b, c, a] (who is on call one turn later). */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const n = items.length;
  if (n === 0) return [];
  const k = ((by % n) + n) % n;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * A rotation's turns as svc people: a turn svc cannot give to a person (a vendor's "nobody" turn, a
 * team, a user not imported) goes to the person before it (the first person found, for leading ones).
 * Null when no turn has a person.
 */
export function fillTurns(turns: ReadonlyArray<string | undefined>): string[] | null {
  const first = turns.find((t) => t !== undefined);
  if (first === undefined) return null;
  let before = first;
  return turns.map((t) => {
    before = t ?? before;
    return before;
  });
}
