/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from `nowMs`, at
 * most a day. Undefined when absent or unparseable. The one reading of the header for every client
 * that waits on it (the channels, `svc import`'s live fetch).
 */

/** The longest wait a Retry-After is taken for: one bad answer cannot park a client for longer. */
const MAX_RETRY_AFTER_MS = 86_400_000;

export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP-date always names a weekday and GMT; Date.parse alone would also take "5" or "2 days".
  if (!/GMT$/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}
