/**
 * Which alerts a delivery is about (contract §24.4): an alert is its `fingerprint` and `startsAt`
 * (Alertmanager's), so an alert that resolved and fired again is a new alert, and the repeat of a
 * still-firing group (`repeat_interval`) names only alerts the page already has. Resolved alerts of a
 * group are not news. Read defensively: a payload without alerts (a plain webhook) has none, and its
 * deliveries join their page as before.
 */

/** At most this many alert identities are remembered per page (the newest): past them an old alert that repeats counts as new again. */
export const MAX_PAGE_ALERTS = 1000;

/** How many distinct alerts the page has heard of: its remembered alerts, else (older pages, payloads without alerts) its events. */
export function alertCount(page: { alertIds?: readonly string[]; eventIds: readonly string[] }): number {
  return page.alertIds !== undefined && page.alertIds.length > 0 ? page.alertIds.length : page.eventIds.length;
}

/** Each alert's field is read at most this long: a fingerprint is 16 hex digits, an RFC 3339 time ~35 characters. */
const MAX_PART = 128;

/** `<fingerprint>@<startsAt>` of each firing alert of the payload, each once, in order. */
export function alertIdentities(payload: unknown): string[] {
  const alerts = (payload as { alerts?: unknown } | null)?.alerts;
  if (!Array.isArray(alerts)) return [];
  const out = new Set<string>();
  for (const a of alerts as unknown[]) {
    if (a === null || typeof a !== 'object') continue;
    const { fingerprint, startsAt, status } = a as { fingerprint?: unknown; startsAt?: unknown; status?: unknown };
    if (status === 'resolved' || typeof fingerprint !== 'string' || typeof startsAt !== 'string') continue;
    out.add(`${fingerprint.slice(0, MAX_PART)}@${startsAt.slice(0, MAX_PART)}`);
  }
  return [...out];
}

/** The alerts of `incoming` the page has not heard of. */
export function newAlerts(known: readonly string[] | undefined, incoming: readonly string[]): string[] {
  const seen = new Set(known ?? []);
  return incoming.filter((a) => !seen.has(a));
}

/** The page's alerts with `fresh` added, the newest MAX_PAGE_ALERTS kept. */
export function rememberAlerts(known: readonly string[] | undefined, fresh: readonly string[]): string[] {
  const all = [...(known ?? []), ...fresh];
  return all.length > MAX_PAGE_ALERTS ? all.slice(all.length - MAX_PAGE_ALERTS) : all;
}
