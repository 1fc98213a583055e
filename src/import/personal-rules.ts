/**
 * A person's notification steps (a contact, so long after a round names them) as svc's personal rules
 * (§21.1): one rule per delay, in order, each naming the channels of that moment; `after` is 0m or
 * 1s..1h, so a later step comes at svc's longest wait and says so.
 */
import type { NotifyRule } from '../oncall/oncall-config.js';
import { DURATION_BOUNDS } from '../oncall/oncall-schema.js';
import { formatDuration } from '../core/duration.js';

export interface PersonalStep {
  afterMs: number;
  /** The channel id of the contact. */
  channel: string;
}

export function notifyRules(steps: readonly PersonalStep[], notes: string[]): NotifyRule[] {
  const max = DURATION_BOUNDS.ruleAfter.max;
  const min = DURATION_BOUNDS.ruleAfter.min;
  const byAfter = new Map<number, string[]>();
  for (const s of steps) {
    let afterMs = s.afterMs;
    if (afterMs > max) {
      notes.push(`a step after ${formatDuration(afterMs)} comes after ${formatDuration(max)} in svc (its longest)`);
      afterMs = max;
    } else if (afterMs > 0 && afterMs < min) {
      afterMs = min;
    }
    const via = byAfter.get(afterMs) ?? [];
    if (!via.includes(s.channel)) via.push(s.channel);
    byAfter.set(afterMs, via);
  }
  return [...byAfter.entries()].sort((a, b) => a[0] - b[0]).map(([afterMs, via]) => ({ afterMs, via }));
}
