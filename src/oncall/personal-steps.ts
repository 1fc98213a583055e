/**
 * People's own notification rules in a page round (contract §21.1), decided here for the page planner.
 *
 * - A round that names a person sends them only the contacts of their first rule (`after: 0m`); a
 *   person without `notify` gets every contact at once, and a channel target is nobody's.
 * - A round that pages (opening, a step, an ack timeout, exhaustion) turns each later rule into a
 *   step of the page, due `after` from now; naming a person again restarts their rules (their pending
 *   steps are replaced, never doubled). A join notice and a `notify:` route use the first rule only
 *   and start nothing. Steps of people an escalation climbed past stay until an ack or a resolve.
 */
import type { NotifyRule } from './oncall-config.js';
import type { Happened } from './page-message-model.js';
import type { Notified, PageRecord, PersonalStep } from './page.js';
import { CHANNEL_TARGET } from './page.js';

/** Each person's rules, as the files said when the round was planned; absent or empty: every contact at once. */
export type RulesOf = (person: string) => readonly NotifyRule[] | undefined;

/** The recipients a round sends to now: their first rule's contacts only. */
export function firstRuleOnly<R extends Notified>(recipients: readonly R[], rulesOf: RulesOf): R[] {
  return recipients.filter((r) => {
    if (r.person === CHANNEL_TARGET) return true;
    const first = rulesOf(r.person)?.[0];
    return first === undefined || first.via.includes(r.channel);
  });
}

/** The later rules of everyone the round named, as steps due from `nowMs` (contacts the person no longer has are left out). */
export function laterSteps(recipients: readonly Notified[], rulesOf: RulesOf, nowMs: number, text: string, happened: Happened): PersonalStep[] {
  const steps: PersonalStep[] = [];
  for (const person of namedPeople(recipients)) {
    const rules = rulesOf(person) ?? [];
    for (let rule = 1; rule < rules.length; rule += 1) {
      const r = rules[rule];
      if (r === undefined) continue;
      const contacts = r.via.flatMap((channel) => {
        const found = recipients.find((x) => x.person === person && x.channel === channel);
        return found === undefined ? [] : [{ channel, to: found.to }];
      });
      if (contacts.length > 0) steps.push({ person, rule, atMs: nowMs + r.afterMs, contacts, text, happened });
    }
  }
  return steps;
}

/** The people (not channel targets) among a round's recipients, in order. */
export function namedPeople(recipients: readonly Notified[]): string[] {
  return [...new Set(recipients.map((r) => r.person).filter((p) => p !== CHANNEL_TARGET))];
}

/** Pending steps after a round that named `named` and planned `fresh`: those people's old steps give way to their new ones. */
export function restartSteps(pending: readonly PersonalStep[], named: readonly string[], fresh: readonly PersonalStep[]): PersonalStep[] {
  return [...pending.filter((s) => !named.includes(s.person)), ...fresh].sort((a, b) => a.atMs - b.atMs);
}

/** A personal step as `GET /pages/<id>` and `svc page` show it: sent (when) or to come (when due). */
export interface PersonalStepView {
  person: string;
  rule: number;
  channels: string[];
  /** When it was sent, or when it is due (ISO 8601). */
  at: string;
  state: 'sent' | 'pending';
}

/**
 * A page's personal steps, sent ones first (from its `page.notified` rows that name a rule, one per
 * round and person) then the ones to come (its stored steps), each in time order.
 */
export function personalStepsView(page: Pick<PageRecord, 'personalSteps'>, timeline: readonly { ts: string; kind: string; data: unknown }[],
  iso: (ms: number) => string): PersonalStepView[] {
  // One step is one round: its rows share the round of their deliveryIds (`<pageId>.<round>.<person>.<channel>`).
  const sent = new Map<string, PersonalStepView>();
  for (const row of timeline) {
    if (row.kind !== 'page.notified' || row.data === null || typeof row.data !== 'object') continue;
    const d = row.data as { rule?: unknown; person?: unknown; channel?: unknown; deliveryId?: unknown };
    if (typeof d.rule !== 'number' || typeof d.person !== 'string' || typeof d.channel !== 'string') continue;
    const key = `${typeof d.deliveryId === 'string' ? d.deliveryId.split('.')[1] : row.ts}\u0000${d.person}`;
    const step = sent.get(key);
    if (step === undefined) sent.set(key, { person: d.person, rule: d.rule, channels: [d.channel], at: row.ts, state: 'sent' });
    else step.channels.push(d.channel);
  }
  const pending = (page.personalSteps ?? []).map((s): PersonalStepView => ({ person: s.person, rule: s.rule,
    channels: s.contacts.map((c) => c.channel), at: iso(s.atMs), state: 'pending' }));
  return [...sent.values(), ...pending];
}
