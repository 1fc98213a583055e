/**
 * PagerDuty users with their contact methods and notification rules
 * (`users?include[]=contact_methods&include[]=notification_rules`) as svc people (§17, §21).
 *
 * - Email, phone (voice) and SMS contact methods become contacts on the channel of their kind (phones as
 *   E.164 from `country_code` and `address`); push has no address svc can reach.
 * - Each high-urgency notification rule is a step: its contact method `start_delay_in_minutes` after the
 *   incident. svc has no urgencies, so low-urgency rules are listed as not mapped.
 */
import type { NotifyRule, Person } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import { e164 } from '../contact-channels.js';
import { ImportBuilder, oneLine } from '../import-builder.js';
import type { ContactKind } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { notifyRules } from '../personal-rules.js';
import type { PersonalStep } from '../personal-rules.js';

const TYPE_KIND: Readonly<Record<string, ContactKind>> = {
  email_contact_method: 'email', phone_contact_method: 'voice', sms_contact_method: 'sms', push_notification_contact_method: 'push',
};

type Draft = Person & { contacts: Record<string, string>; notify: NotifyRule[] };

/** The user's contact methods as contacts; returns contact method id → channel id for the rules. */
function mapContacts(b: ImportBuilder, u: JsonCursor, user: string, person: Draft): Map<string, string> | null {
  const channels = new Map<string, string>();
  const methods = u.field('contact_methods').itemsOrNone();
  if (methods.some((m) => m.field('type').str().endsWith('_reference'))) {
    b.line('contact-method', `contact methods of user ${user}`, null, 'approximated',
      'saved without include[]=contact_methods (only references): only the login email is used; save users as docs/import.md says');
    return null;
  }
  for (const m of methods) {
    const type = m.field('type').str();
    const source = `${type.replace('_contact_method', '')} contact "${m.optional('label')?.str() ?? m.field('id').str()}" of user ${user}`;
    const kind = TYPE_KIND[type];
    if (kind === undefined || kind === 'push') {
      b.line('contact-method', source, null, 'not-mapped', kind === 'push'
        ? 'PagerDuty app push has no address svc can reach: give the person an ntfy topic or Pushover key as a `push` contact (§21)'
        : `svc has no channel for ${type}`);
      continue;
    }
    const address = m.field('address').str();
    const value = kind === 'email' ? oneLine(address, 256) : e164(m.optional('country_code')?.int(1, 1999) ?? null, address);
    if (value === null || value === '') {
      b.line('contact-method', source, null, 'not-mapped', 'not a phone number');
      continue;
    }
    const channel = b.channel(kind);
    if (person.contacts[channel] !== undefined && person.contacts[channel] !== value) {
      b.line('contact-method', source, null, 'not-mapped', `svc keeps one address per channel and ${channel} already has one: add another channel for it`);
      continue;
    }
    person.contacts[channel] = value;
    channels.set(m.field('id').str(), channel);
    b.line('contact-method', source, `contacts.${channel}`, 'mapped');
  }
  return channels;
}

function mapRules(b: ImportBuilder, u: JsonCursor, user: string, person: Draft, channels: Map<string, string> | null): void {
  const rules = u.field('notification_rules').itemsOrNone();
  if (rules.some((r) => r.field('type').str().endsWith('_reference')) || (channels === null && rules.length > 0)) {
    b.line('notification-rule', `notification rules of user ${user}`, null, 'approximated',
      'saved without include[]=notification_rules and contact_methods: svc notifies every contact at once');
    return;
  }
  const steps: PersonalStep[] = [];
  const notes: string[] = [];
  for (const r of rules) {
    const urgency = r.field('urgency').str();
    const delay = r.field('start_delay_in_minutes').int(0);
    const method = r.field('contact_method');
    const source = `${urgency}-urgency rule of user ${user}: ${method.optional('type')?.str().replace(/_contact_method(_reference)?$/, '') ?? 'contact'} after ${delay} min`;
    if (urgency !== 'high') {
      b.line('notification-rule', source, null, 'not-mapped', 'svc has no urgencies: its personal rules are the high-urgency ones, for every page');
      continue;
    }
    const channel = channels?.get(method.field('id').str());
    if (channel === undefined) {
      b.line('notification-rule', source, null, 'not-mapped', 'its contact method was not mapped (see contact methods)');
      continue;
    }
    steps.push({ afterMs: delay * 60_000, channel });
    b.line('notification-rule', source, `person ${person.id} notify`, 'mapped');
  }
  person.notify = notifyRules(steps, notes);
  if (notes.length > 0) b.line('notification-rule', `notification rules of user ${user}`, `person ${person.id} notify`, 'approximated', notes.join('; '));
}

/** Maps `users`; fills `personOfUser`. */
export function mapPagerdutyPeople(b: ImportBuilder, answers: Answers): void {
  const users = answers.requiredList('users', 'users');
  if (users.length === 0) answers.required('users').field('users').fail('no users: there is nobody to import');
  for (const u of users) {
    const userId = u.field('id').str();
    const email = u.field('email').str();
    const user = `${email} (${userId})`;
    const id = b.personIds.next(email.split('@')[0] ?? email, 'person');
    const zoneName = u.optional('time_zone')?.str() ?? null;
    const name = oneLine(u.optional('name')?.str() ?? '', 128);
    const person: Draft = { id, name: name === '' ? null : name, contacts: {}, timeZone: ImportBuilder.zone(zoneName), notify: [], statusUpdates: null, login: oneLine(email, 256) };
    b.personOfUser.set(userId, id);
    const channels = mapContacts(b, u, user, person);
    mapRules(b, u, user, person, channels);
    b.addPerson(person, { label: `user ${user}`, email, zoneName });
  }
}
