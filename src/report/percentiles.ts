/** Distributions of durations (contract §23.1: p50, p90 and max, never only a mean). */
import type { Distribution } from './report.js';

/**
 * p50, p90 and max of durations in milliseconds, as seconds (to the millisecond). Percentiles are by
 * nearest rank: the smallest value at least p% of the values are at or below — always one of the
 * values, never an interpolation between two.
 */
export function distribution(valuesMs: readonly number[]): Distribution {
  const n = valuesMs.length;
  if (n === 0) return { count: 0, p50: null, p90: null, max: null };
  const sorted = Float64Array.from(valuesMs).sort();
  const rank = (p: number): number => (sorted[Math.max(0, Math.ceil((p / 100) * n) - 1)] as number) / 1000;
  return { count: n, p50: rank(50), p90: rank(90), max: (sorted[n - 1] as number) / 1000 };
}
