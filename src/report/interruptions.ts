/**
 * Interruptions (contract §23.1): a page round to a person through a channel that wakes, bucketed by
 * the person's own local time. Which channel types wake, each channel type declares
 * (config/channel-wakes.ts), matched on the channel's `type` in channels.yaml.
 */
import { naiveDayAndMinute, zoneTime } from '../oncall/zone-time.js';
import type { Interruptions } from './report.js';

export const INTERRUPTION_BUCKETS = ['business', 'offHours', 'sleep'] as const;
export type InterruptionBucket = (typeof INTERRUPTION_BUCKETS)[number];

const MORNING = 8 * 60;
const EVENING = 18 * 60;
const NIGHT = 22 * 60;

/**
 * The bucket of an instant in a zone: business hours Mon–Fri 08:00–18:00; sleep 22:00–08:00 any day;
 * off hours the rest (18:00–22:00 any day, weekends 08:00–22:00). Local wall-clock time, so the
 * buckets move with DST like the person's day does.
 */
export function bucketAt(instantMs: number, zone: string): InterruptionBucket {
  const { weekday, minute } = naiveDayAndMinute(zoneTime(zone).toNaive(instantMs));
  if (minute < MORNING || minute >= NIGHT) return 'sleep';
  return weekday < 5 && minute < EVENING ? 'business' : 'offHours';
}

const QUARTER_MS = 15 * 60_000;

/**
 * `bucketAt` for many instants of one zone, each quarter hour of UTC worked out once: the tz database
 * changes offsets only on quarter hours (zone-time.ts), and with an offset of whole quarter hours a
 * bucket's edges (whole local hours) fall on them too. An offset that is not (local mean time before
 * 1900-something) is worked out per instant.
 */
export function zoneBuckets(zone: string): (instantMs: number) => InterruptionBucket {
  const time = zoneTime(zone);
  const quarters = new Map<number, InterruptionBucket>();
  return (instantMs) => {
    const quarter = Math.floor(instantMs / QUARTER_MS);
    let bucket = quarters.get(quarter);
    if (bucket === undefined) {
      bucket = bucketAt(instantMs, zone);
      if (time.offsetMinutes(instantMs) % 15 !== 0) return bucket;
      quarters.set(quarter, bucket);
    }
    return bucket;
  };
}

export const noInterruptions = (): Interruptions => ({ business: 0, offHours: 0, sleep: 0, total: 0 });

export function addInterruption(into: Interruptions, bucket: InterruptionBucket): void {
  into[bucket] += 1;
  into.total += 1;
}
