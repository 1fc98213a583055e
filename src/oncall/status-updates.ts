/**
 * Who hears of a page's later state — its ack, its unack, its resolve (contract §21.1 `statusUpdates`,
 * §24.1: everyone already notified hears of the ack and the resolve). Decided here for the planner.
 *
 * - A person the page notified hears it on their `statusUpdates` contacts when they list them; else on
 *   the contacts the page used for them, minus channels that ring (ntfy, Pushover, a Twilio call — the
 *   channels declare it): a phone is not rung to say that someone else answered.
 * - A channel target (nobody's) hears it unless its channel rings.
 * - A channel that follows the page's state (PagerDuty's incident, Slack's message edited in place)
 *   always hears it, whatever the person listed: the vendor's copy of the page must not stay open.
 *
 * A join to an acknowledged page is told to its holder, the same way (holderRecipients), and to the
 * rooms that carried the page (roomRecipients): nobody else is woken for it.
 */
import type { Notified } from './page.js';
import { CHANNEL_TARGET } from './page.js';

/** What the planner needs to know of an agent's channels and people to route a status update. */
export interface StatusRoute {
  /** The channel keeps a vendor's incident or message in step with the page (§18.1, §18.4). */
  follows(channel: string): boolean;
  /** The channel rings a phone or pops over (ntfy, Pushover, Twilio voice): no status updates unless listed. */
  rings(channel: string): boolean;
  /** The person's `statusUpdates` contacts with their addresses; null: not listed (the default). */
  listed(person: string): readonly { channel: string; to: string | null }[] | null;
}

/** Everyone notified hears it on every channel that was used (no channel rings, none listed). */
export const PLAIN_STATUS_ROUTE: StatusRoute = { follows: () => false, rings: () => false, listed: () => null };

/** The recipients of a status update of a page that notified `notified`, each person-and-channel once. */
export function statusRecipients(notified: readonly Notified[], route: StatusRoute): Notified[] {
  const out: Notified[] = [];
  const add = (n: Notified): void => {
    if (!out.some((o) => o.person === n.person && o.channel === n.channel)) out.push(n);
  };
  for (const n of notified) {
    if (route.follows(n.channel)) add(n);
    else if (n.person === CHANNEL_TARGET || route.listed(n.person) === null) {
      if (!route.rings(n.channel)) add(n);
    }
  }
  const people = [...new Set(notified.map((n) => n.person).filter((p) => p !== CHANNEL_TARGET))];
  for (const person of people) for (const c of route.listed(person) ?? []) add({ person, channel: c.channel, to: c.to });
  return out;
}

/**
 * The contacts a status update meant for the page's holder alone (the person who acknowledged it)
 * reaches: theirs among `statusRecipients`; a holder the page never notified (who acked from the CLI
 * or the console) is reached on their `statusUpdates` contacts when listed, else not at all.
 */
export function holderRecipients(notified: readonly Notified[], holder: string, route: StatusRoute): Notified[] {
  const theirs = notified.filter((n) => n.person === holder);
  if (theirs.length === 0) return (route.listed(holder) ?? []).map((c) => ({ person: holder, channel: c.channel, to: c.to }));
  return statusRecipients(theirs, route);
}

/**
 * The rooms that carried the page — its channel targets (a Slack conversation, §24.2), nobody's —
 * that hear a status update: a join after the ack reaches them as it reaches the holder, quietly
 * (a Slack room sees it as a thread reply under the page's message).
 */
export function roomRecipients(notified: readonly Notified[], route: StatusRoute): Notified[] {
  return statusRecipients(notified.filter((n) => n.person === CHANNEL_TARGET), route);
}
