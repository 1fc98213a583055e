/** The only source of wall-clock time; inject a fake in tests. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO-8601 UTC with milliseconds, the timestamp format of every record svc writes. */
export function isoTs(ms: number): string {
  return new Date(ms).toISOString();
}

/** A clock tests can move by hand. */
export function manualClock(startMs: number): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    advance: (ms) => { t += ms; },
    set: (ms) => { t = ms; },
  };
}
