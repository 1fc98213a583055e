/**
 * The secret behind calendar keys (contract §24.7, oncall/calendar-key.ts): `$SVC_HOME/secrets/oncall/
 * calendar-key`, made (32 random bytes) when the first calendar URL is issued. It is read afresh for
 * every use, so rotating it — `svc secret set oncall/calendar-key` with a new value, or removing the
 * file before issuing again — revokes every URL issued before at once, without a restart.
 */
import { randomBytes } from 'node:crypto';
import { readSecret, writeSecret } from '../config/secrets.js';
import { CALENDAR_SECRET } from '../oncall/calendar-key.js';

export interface CalendarSecret {
  /** The secret, or null while none was ever made (no key can be valid then). */
  current(): string | null;
  /** The secret, made first when there is none. */
  ensure(): string;
}

export function calendarSecret(home: string): CalendarSecret {
  const current = (): string | null => {
    const read = readSecret(home, CALENDAR_SECRET);
    return read.ok && read.text.length > 0 ? read.text : null;
  };
  return {
    current,
    ensure() {
      const known = current();
      if (known !== null) return known;
      writeSecret(home, CALENDAR_SECRET, randomBytes(32).toString('hex'));
      return current() ?? '';
    },
  };
}
