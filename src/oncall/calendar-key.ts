/**
 * Calendar subscription keys (contract §24.7): a calendar app polls `<publicUrl>/oncall/<S>.ics?key=K`
 * without signing in, so the key is the credential. It is an HMAC-SHA256 over the agent, the schedule
 * and the person (or none: the whole schedule) under one daemon secret; revoking every key is
 * rotating that secret. Nothing is stored per key.
 *
 * Form: `<mac>` for a schedule's calendar, `<person>.<mac>` for one person's shifts in it; the MAC is
 * base64url (43 characters, no `.`), so the person is everything before the last dot. Pure: the
 * caller holds the secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The secret's path in `$SVC_HOME/secrets` (config/secrets.ts), created by the daemon when a first URL is issued. */
export const CALENDAR_SECRET = 'oncall/calendar-key';
/** Longer than any key svc makes (a 64-character person, a dot, 43 characters of MAC); refused before any work. */
const MAX_KEY_CHARS = 128;

const mac = (secret: string, agentId: string, scheduleId: string, person: string | null): string =>
  createHmac('sha256', secret).update(`svc-calendar-v1\n${agentId}\n${scheduleId}\n${person ?? ''}`).digest('base64url');

export function calendarKey(secret: string, agentId: string, scheduleId: string, person: string | null): string {
  const m = mac(secret, agentId, scheduleId, person);
  return person === null ? m : `${person}.${m}`;
}

/**
 * The person a key names (null: the whole schedule) when it is this agent's and schedule's under the
 * secret; false otherwise. The MAC is compared as text in constant time.
 */
export function checkCalendarKey(secret: string, agentId: string, scheduleId: string, key: string): { person: string | null } | false {
  if (key.length === 0 || key.length > MAX_KEY_CHARS || !/^[A-Za-z0-9._-]+$/.test(key)) return false;
  const dot = key.lastIndexOf('.');
  const person = dot < 0 ? null : key.slice(0, dot);
  const given = Buffer.from(dot < 0 ? key : key.slice(dot + 1));
  const expected = Buffer.from(mac(secret, agentId, scheduleId, person));
  return given.length === expected.length && timingSafeEqual(given, expected) ? { person } : false;
}
