/**
 * The time zone a person lives in (§21, §24.5): their own `timeZone`, else the first schedule's, else
 * UTC. Reports split interruptions by it and messages print times in it; this is the one place that
 * says which zone that is.
 */
import type { OncallConfig } from './oncall-config.js';

export function personZone(config: Pick<OncallConfig, 'people' | 'schedules'>, personId: string): string {
  const person = config.people.find((p) => p.id === personId);
  return person?.timeZone ?? config.schedules[0]?.timeZone ?? 'UTC';
}
