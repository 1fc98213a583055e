/**
 * The zone `svc oncall`, `svc pages` and `svc page` print times in (contract §24.5): `--tz ZONE`, else
 * `$TZ`, else UTC. Every time printed carries its offset (`Z` for UTC), so a time is never read in the
 * wrong zone; the commands also name the zone once. An unknown zone is a usage error naming where it
 * came from.
 */
import { UsageError } from '../core/errors.js';
import { isKnownZone, zoneTime } from '../oncall/zone-time.js';

export function displayZone(command: string, flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag !== undefined) {
    if (!isKnownZone(flag)) throw new UsageError(`${command}: --tz ${JSON.stringify(flag.slice(0, 64))} is not a time zone the tz database knows (such as UTC or Europe/Berlin)`);
    return flag;
  }
  // POSIX allows a leading colon (`TZ=:Europe/Berlin`); an empty TZ means UTC.
  const fromEnv = (env.TZ ?? '').replace(/^:/, '');
  if (fromEnv === '') return 'UTC';
  if (!isKnownZone(fromEnv)) {
    throw new UsageError(`${command}: $TZ ${JSON.stringify(fromEnv.slice(0, 64))} is not a time zone the tz database knows; set TZ to one (such as Europe/Berlin) or give --tz`);
  }
  return fromEnv;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * `2026-11-25 18:00+01:00` (or `2026-11-25 17:00Z` in UTC): an instant in the zone, seconds shown only
 * when there are some; `-` for none.
 */
export function formatInZone(instant: string | number | null, zone: string): string {
  if (instant === null) return '-';
  const ms = typeof instant === 'number' ? instant : Date.parse(instant);
  if (!Number.isFinite(ms)) return String(instant);
  const utc = zone === 'UTC' || zone === 'Etc/UTC';
  const offset = utc ? 0 : zoneTime(zone).offsetMinutes(ms);
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString();
  const seconds = local.slice(17, 19);
  const text = `${local.slice(0, 10)} ${local.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`}`;
  if (utc) return `${text}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${text}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
