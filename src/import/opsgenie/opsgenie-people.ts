/**
 * Opsgenie users, their contact methods and notification rules (`v2/users`, `v2/users/<id>/contacts`,
 * `v2/users/<id>/notification-rules` and each rule with its steps) as svc people (§17, §21).
 *
 * - A contact method (`email`, `sms`, `voice`, `mobile`) becomes a contact on the channel of its kind;
 *   svc keeps one address per channel, the Opsgenie app's push has no address svc can reach.
 * - Opsgenie applies the first matching `create-alert` rule (in `order`); svc has one set of rules per
 *   person, so the first rule that matches every alert at every time is the one imported, its steps
 *   becoming `notify` rules (`sendAfter` → `after`). Rules about acks and closes become `statusUpdates`.
 */
import type { NotifyRule, Person } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import { e164 } from '../contact-channels.js';
import { ImportBuilder, oneLine } from '../import-builder.js';
import type { ContactKind } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { notifyRules } from '../personal-rules.js';
import type { PersonalStep } from '../personal-rules.js';

const METHOD_KIND: Readonly<Record<string, ContactKind>> = { email: 'email', sms: 'sms', voice: 'voice', mobile: 'push' };
const UNIT_MS: Readonly<Record<string, number>> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** A contact of a step or a user: the channel it goes to and the address, or why it cannot be had. */
function contactOf(b: ImportBuilder, method: string, to: string): { channel: string; address: string } | { why: string } {
  const kind = METHOD_KIND[method];
  if (kind === undefined) return { why: `unknown contact method ${JSON.stringify(method)}` };
  if (kind === 'push') return { why: 'the Opsgenie app\'s push has no address svc can reach: give the person an ntfy topic or Pushover key as a `push` contact (§21)' };
  const address = kind === 'email' ? oneLine(to, 256) : e164(null, to);
  if (address === null || address === '') return { why: `${JSON.stringify(to.slice(0, 32))} is not a phone number` };
  return { channel: b.channel(kind), address };
}

function mapContacts(b: ImportBuilder, answers: Answers, user: string, userId: string, contacts: Record<string, string>): void {
  const list = answers.list(`v2/users/${userId}/contacts`, 'data');
  if (list === null) {
    b.line('contact-method', `contact methods of user ${user}`, null, 'approximated', `v2/users/${userId}/contacts.json was not saved: only the login email and the addresses in notification steps are used`);
    return;
  }
  for (const c of list) {
    const method = c.field('method').str();
    const to = c.field('to').str();
    const source = `${method} contact of user ${user}`;
    if (c.optional('status')?.optional('enabled')?.bool() === false) {
      b.line('contact-method', source, null, 'not-mapped', 'disabled in Opsgenie');
      continue;
    }
    const contact = contactOf(b, method, to);
    if ('why' in contact) {
      b.line('contact-method', source, null, 'not-mapped', contact.why);
    } else if (contacts[contact.channel] !== undefined && contacts[contact.channel] !== contact.address) {
      b.line('contact-method', source, null, 'not-mapped', `svc keeps one address per channel and ${contact.channel} already has one: add another channel for it`);
    } else {
      contacts[contact.channel] = contact.address;
      b.line('contact-method', source, `contacts.${contact.channel}`, 'mapped');
    }
  }
}

/** A rule's detail (`v2/users/<id>/notification-rules/<rule>`), or null when it was not saved. */
function ruleDetail(answers: Answers, userId: string, ruleId: string): JsonCursor | null {
  return answers.optional(`v2/users/${userId}/notification-rules/${ruleId}`)?.field('data') ?? null;
}

/** Whether a rule applies to every alert at every time (criteria match-all, no time restriction). */
function matchesAll(detail: JsonCursor): boolean {
  const criteria = detail.optional('criteria')?.optional('type')?.str() ?? 'match-all';
  return criteria === 'match-all' && detail.optional('timeRestriction') === null;
}

/** The enabled steps of a rule as contacts at their delays; steps svc cannot reach are noted. */
function ruleSteps(b: ImportBuilder, detail: JsonCursor, contacts: Record<string, string>, notes: string[]): PersonalStep[] {
  const steps: PersonalStep[] = [];
  detail.field('steps').itemsOrNone().forEach((step, i) => {
    if (step.optional('enabled')?.bool() === false) return;
    const contact = step.field('contact');
    const found = contactOf(b, contact.field('method').str(), contact.field('to').str());
    if ('why' in found) {
      notes.push(`step ${i + 1} not mapped: ${found.why}`);
      return;
    }
    if (contacts[found.channel] === undefined) contacts[found.channel] = found.address;
    else if (contacts[found.channel] !== found.address) notes.push(`step ${i + 1} goes to ${found.channel} at the person's address there, not ${found.address}`);
    const after = step.optional('sendAfter');
    const amount = after?.optional('timeAmount')?.int(0) ?? 0;
    const unit = UNIT_MS[after?.optional('timeUnit')?.str() ?? 'minutes'] ?? 60_000;
    steps.push({ afterMs: amount * unit, channel: found.channel });
  });
  return steps;
}

function mapRules(b: ImportBuilder, answers: Answers, user: string, userId: string, person: Person & { contacts: Record<string, string> }): void {
  const rules = answers.list(`v2/users/${userId}/notification-rules`, 'data');
  if (rules === null) {
    b.line('notification-rule', `notification rules of user ${user}`, null, 'approximated',
      `v2/users/${userId}/notification-rules.json was not saved: svc notifies every contact at once`);
    return;
  }
  const ordered = rules.map((r) => ({ r, order: r.optional('order')?.num() ?? 0 })).sort((x, y) => x.order - y.order).map((x) => x.r);
  let chosen: string | null = null;
  const statusChannels: string[] = [];
  for (const rule of ordered) {
    const id = rule.field('id').str();
    const name = rule.optional('name')?.str() ?? id;
    const action = rule.field('actionType').str();
    const source = `${action} rule "${name}" of user ${user}`;
    const detail = ruleDetail(answers, userId, id);
    if (rule.optional('enabled')?.bool() === false) {
      b.line('notification-rule', source, null, 'not-mapped', 'disabled in Opsgenie');
      continue;
    }
    if (detail === null) {
      b.line('notification-rule', source, null, 'not-mapped', `v2/users/${userId}/notification-rules/${id}.json (the rule with its steps) was not saved`);
      continue;
    }
    const notes: string[] = [];
    if (action === 'create-alert') {
      if (chosen !== null) {
        b.line('notification-rule', source, null, 'mapped', `never used: rule "${chosen}" before it takes every alert`);
        continue;
      }
      if (!matchesAll(detail)) {
        b.line('notification-rule', source, null, 'not-mapped',
          'applies only to some alerts or at some times; svc has one set of rules per person (the first Opsgenie rule that takes every alert)');
        continue;
      }
      chosen = name;
      const repeat = detail.optional('repeat');
      if (repeat?.optional('enabled')?.bool() === true) notes.push('Opsgenie repeats the rule until acknowledged; svc sends each rule once (the policy\'s loops page again)');
      person.notify = notifyRules(ruleSteps(b, detail, person.contacts, notes), notes);
      b.line('notification-rule', source, `person ${person.id} notify`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
    } else if (action === 'acknowledged-alert' || action === 'closed-alert') {
      for (const s of ruleSteps(b, detail, person.contacts, notes)) if (!statusChannels.includes(s.channel)) statusChannels.push(s.channel);
      b.line('notification-rule', source, `person ${person.id} statusUpdates`, 'approximated',
        ['svc sends acks, escalations past the person and resolves to statusUpdates, at once', ...notes].join('; '));
    } else if (action === 'schedule-start' || action === 'schedule-end') {
      b.line('notification-rule', source, null, 'approximated', 'svc tells a person on every contact when their shift starts (schedule.handoff), and never when it ends');
    } else {
      b.line('notification-rule', source, null, 'not-mapped', `svc has no notifications for ${action}`);
    }
  }
  if (chosen === null && ordered.length > 0) {
    b.line('notification-rule', `notification rules of user ${user}`, `person ${person.id}`, 'approximated',
      'no enabled create-alert rule takes every alert: svc notifies every contact at once');
  }
  if (statusChannels.length > 0) person.statusUpdates = statusChannels;
}

/** Maps `v2/users` and what hangs off each user; fills `personOfUser` (by id) and `byUsername`. */
export function mapOpsgeniePeople(b: ImportBuilder, answers: Answers, byUsername: Map<string, string>): void {
  const users = answers.requiredList('v2/users', 'data');
  if (users.length === 0) answers.required('v2/users').field('data').fail('no users: there is nobody to import');
  for (const u of users) {
    const userId = u.field('id').str();
    const username = u.field('username').str();
    const user = `${username} (${userId})`;
    const id = b.personIds.next(username.split('@')[0] ?? username, 'person');
    const zoneName = u.optional('timeZone')?.str() ?? null;
    const timeZone = ImportBuilder.zone(zoneName);
    const fullName = u.optional('fullName')?.str();
    const person: Person & { contacts: Record<string, string>; notify: NotifyRule[]; statusUpdates: string[] | null } = {
      id, name: fullName !== undefined && oneLine(fullName, 128) !== '' ? oneLine(fullName, 128) : null, contacts: {}, timeZone,
      notify: [], statusUpdates: null, login: oneLine(username, 256),
    };
    b.personOfUser.set(userId, id);
    byUsername.set(username, id);
    mapContacts(b, answers, user, userId, person.contacts);
    mapRules(b, answers, user, userId, person);
    const blocked = u.optional('blocked')?.bool() === true;
    b.addPerson(person, { label: `user ${user}`, email: username, zoneName }, blocked
      ? { outcome: 'approximated', notes: ['blocked in Opsgenie: svc has no blocked people (leave them out of rotations and policies)'] } : {});
  }
}
