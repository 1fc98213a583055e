/**
 * Who a target reaches at an instant (contract §17.2), and which route a triage decision takes.
 *
 * - `person:<id>` → one recipient per entry of the person's `contacts` (channel → address);
 * - `schedule:<id>` → the contacts of whoever is on call then (override, rotation, fallback); nobody
 *   on call → no recipient, and the caller audits `page.nobody-on-call`;
 * - a person or schedule the file no longer has (an open page keeps the policy it opened under, §17.3;
 *   an override is stored, not in the file) reaches nobody, which is `page.nobody-on-call` too, never
 *   silence (issue 33.4); an override naming such a person never wins over the rotation;
 * - `channel:<id>` → the channel's own recipient: `personId` and `address` null (the channel knows it);
 *   a channel the agent no longer has (channels.yaml dropped it, the page's policy still names it)
 *   reaches nobody, `page.nobody-on-call` with `missing` like a person the file lacks.
 */
import type { OncallConfig, Override, Route, Severity, Target } from './oncall-config.js';
import { onCallAt, usableOverrides } from './schedule.js';
import type { Labels } from './label-name.js';
import { alertLabels } from './label-name.js';
import { labelsMatch } from './label-pattern.js';

/** A target that reached nobody; `known` false: the file (oncall.yaml, or channels.yaml for a channel) no longer has it. */
export interface NobodyOnCall {
  target: Target;
  known: boolean;
}

export interface Recipient {
  /** null for a `channel:` target (the deliveryId says `-`, §17.4). */
  personId: string | null;
  channelId: string;
  /** The person's address on the channel; null: the channel's own recipient. */
  address: string | null;
}

function personRecipients(config: OncallConfig, personId: string): Recipient[] {
  const person = config.people.find((p) => p.id === personId);
  if (!person) return [];
  return Object.entries(person.contacts).map(([channelId, address]) => ({ personId, channelId, address }));
}

/** The recipients of one target at `instantMs`. */
export function resolveTargets(config: OncallConfig, target: Target, instantMs: number, overrides: readonly Override[]): Recipient[] {
  switch (target.kind) {
    case 'person':
      return personRecipients(config, target.id);
    case 'channel':
      return [{ personId: null, channelId: target.id, address: null }];
    case 'schedule': {
      const schedule = config.schedules.find((s) => s.id === target.id);
      if (!schedule) return [];
      const { person } = onCallAt(schedule, usableOverrides(config, overrides), instantMs);
      return person === null ? [] : personRecipients(config, person);
    }
  }
}

/**
 * The recipients of a list of targets (a step, `onExhausted`), each person-and-channel once (the
 * deliveryId `<pageId>.<round>.<personId>.<channelId>` is unique in a round), plus the targets that
 * reached nobody (a schedule with nobody on call; a person or schedule the file no longer has; a
 * channel the agent no longer has — `hasChannel`, default: every channel is there).
 */
export function resolveAllTargets(config: OncallConfig, targets: readonly Target[], instantMs: number,
  overrides: readonly Override[], hasChannel: (channelId: string) => boolean = () => true): { recipients: Recipient[]; nobodyOnCall: NobodyOnCall[] } {
  const seen = new Set<string>();
  const recipients: Recipient[] = [];
  const nobodyOnCall: NobodyOnCall[] = [];
  for (const target of targets) {
    if (target.kind === 'channel' && !hasChannel(target.id)) {
      nobodyOnCall.push({ target, known: false });
      continue;
    }
    const found = resolveTargets(config, target, instantMs, overrides);
    if (target.kind !== 'channel' && found.length === 0) {
      const known = target.kind === 'person' ? config.people.some((p) => p.id === target.id) : config.schedules.some((s) => s.id === target.id);
      nobodyOnCall.push({ target, known });
    }
    for (const r of found) {
      const key = `${r.personId ?? '-'}\u0000${r.channelId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      recipients.push(r);
    }
  }
  return { recipients, nobodyOnCall };
}

/**
 * The first route that takes the delivery; null: no route (nothing paged by the file). A route takes
 * it when its severities include the triage decision's and, if it names labels (§24.3), some alert of
 * the delivery matches all of them (docs/oncall.md, "Routes"): a group with one storage alert among
 * others goes where storage alerts go. A delivery without alerts matches no route that names labels.
 */
export function routeFor(config: OncallConfig, severity: Severity, payload: unknown): Route | null {
  let alerts: Labels[] | null = null;
  return config.routes.find((r) => {
    if (!r.match.severity.includes(severity)) return false;
    if (r.match.labels.length === 0) return true;
    alerts ??= alertLabels(payload);
    return alerts.some((labels) => labelsMatch(r.match.labels, labels));
  }) ?? null;
}

/** `person:alice` again, for messages and audit rows. */
export function formatTarget(target: Target): string {
  return `${target.kind}:${target.id}`;
}
