/**
 * `--since` and `--until` of the read commands (contract §13): ISO-8601 with a zone, integer
 * milliseconds since the epoch, or a duration back from now (`30s`, `15m`, `2h`, `7d`; core/duration.ts).
 * A date and time without a zone is refused naming the form (§24.5: never read silently as UTC or as
 * this machine's zone). What goes on the wire is what the listener takes: ISO-8601 or integer ms. A
 * malformed value is a usage error (exit 2) before any request is made.
 */
import type { Clock } from '../core/clock.js';
import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';
import { instantError, parseZonedInstant } from '../core/instant.js';

export function timeArg(flag: string, raw: string, clock: Clock): string {
  const back = parseDuration(raw);
  if (back !== null) return String(Math.max(0, clock.now() - back));
  const parsed = parseZonedInstant(raw);
  if (parsed.ok) return /^\d+$/.test(raw) ? raw : new Date(parsed.ms).toISOString();
  if (parsed.reason === 'no-zone') throw new UsageError(instantError(flag, raw, 'no-zone'));
  throw new UsageError(`${flag}: expected an ISO-8601 timestamp with a zone, integer milliseconds, or a duration back from now such as 15m, 2h, 7d`);
}
