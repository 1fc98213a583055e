/**
 * `--since` and `--until` of the read commands (contract §13): ISO-8601, integer milliseconds since
 * the epoch, or a duration back from now (`30s`, `15m`, `2h`, `7d`; core/duration.ts). What goes on the wire is what the
 * listener takes: ISO-8601 or integer ms. A malformed value is a usage error (exit 2) before any
 * request is made.
 */
import type { Clock } from '../core/clock.js';
import { parseDuration } from '../core/duration.js';
import { UsageError } from '../core/errors.js';

export function timeArg(flag: string, raw: string, clock: Clock): string {
  const back = parseDuration(raw);
  if (back !== null) return String(Math.max(0, clock.now() - back));
  if (/^\d{1,16}$/.test(raw)) return raw;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(raw) && Number.isFinite(Date.parse(raw))) return raw;
  throw new UsageError(`${flag}: expected an ISO-8601 timestamp, integer milliseconds, or a duration back from now such as 15m, 2h, 7d`);
}

