/**
 * Grafana OnCall users (`api/v1/users`) and personal notification rules (`api/v1/personal_notification_rules`)
 * as svc people (§17, §21).
 *
 * - OnCall's public API gives a user's email and Slack identity, not phone numbers or Telegram chats:
 *   those rules are listed as not mapped with what to add.
 * - A person's default rules (`important: false`) run in `position` order, `wait` steps delaying the
 *   steps after them; they become svc's `notify` rules. svc has one set per person, so the `important`
 *   set is listed as not mapped.
 */
import type { NotifyRule, Person } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import { ImportBuilder, oneLine } from '../import-builder.js';
import type { ContactKind } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { notifyRules } from '../personal-rules.js';
import type { PersonalStep } from '../personal-rules.js';

type Draft = Person & { contacts: Record<string, string>; notify: NotifyRule[] };

const RULE_KIND: Readonly<Record<string, ContactKind | null>> = {
  notify_by_email: 'email',
  notify_by_slack: 'slack',
  notify_by_sms: null,
  notify_by_phone_call: null,
  notify_by_telegram: null,
  notify_by_mobile_app: null,
  notify_by_mobile_app_critical: null,
};

/** A user's Slack member id: OnCall answers one identity object (or, in older versions, a list of them). */
function slackId(u: JsonCursor): string | null {
  const slack = u.optional('slack');
  if (slack === null) return null;
  const first = Array.isArray(slack.value) ? slack.items()[0] : slack;
  return first?.optional('user_id')?.str() ?? null;
}

function mapRules(b: ImportBuilder, user: string, person: Draft, rules: readonly JsonCursor[]): void {
  if (rules.length === 0) {
    b.line('notification-rule', `notification rules of user ${user}`, `person ${person.id}`, 'mapped', 'none in OnCall: svc notifies every contact at once');
    return;
  }
  const ordered = rules.map((r) => ({ r, important: r.optional('important')?.bool() ?? false, position: r.optional('position')?.num() ?? 0 }))
    .sort((x, y) => Number(x.important) - Number(y.important) || x.position - y.position);
  const steps: PersonalStep[] = [];
  const notes: string[] = [];
  let atMs = 0;
  for (const { r, important } of ordered) {
    const type = r.field('type').str();
    const source = `${important ? 'important ' : ''}rule ${type}${type === 'wait' ? ` ${r.optional('duration')?.int(0) ?? 300}s` : ''} of user ${user}`;
    if (important) {
      b.line('notification-rule', source, null, 'not-mapped', 'svc has one set of rules per person (OnCall\'s default set); OnCall uses the important set for important escalation steps');
      continue;
    }
    if (type === 'wait') {
      atMs += (r.optional('duration')?.int(0) ?? 300) * 1000;
      b.line('notification-rule', source, `person ${person.id} notify`, 'mapped');
      continue;
    }
    const kind = RULE_KIND[type];
    const channel = kind === undefined || kind === null ? null : kind === 'slack' && person.contacts[b.options.channels.slack] === undefined ? null : b.channel(kind);
    if (channel === null) {
      b.line('notification-rule', source, null, 'not-mapped', kind === 'slack'
        ? 'the user has no Slack identity in OnCall'
        : `OnCall's API does not give the address ${type} uses: add the person's contact (e.g. sms: "+4915112345678") and a rule naming it`);
      continue;
    }
    steps.push({ afterMs: atMs, channel });
    b.line('notification-rule', source, `person ${person.id} notify`, 'mapped');
  }
  person.notify = notifyRules(steps, notes);
  if (notes.length > 0) b.line('notification-rule', `notification rules of user ${user}`, `person ${person.id} notify`, 'approximated', notes.join('; '));
}

export function mapOncallPeople(b: ImportBuilder, answers: Answers): void {
  const users = answers.requiredList('api/v1/users', 'results');
  if (users.length === 0) answers.required('api/v1/users').field('results').fail('no users: there is nobody to import');
  const rulesByUser = new Map<string, JsonCursor[]>();
  const rules = answers.list('api/v1/personal_notification_rules', 'results');
  for (const r of rules ?? []) {
    const owner = r.field('user_id').str();
    rulesByUser.set(owner, [...(rulesByUser.get(owner) ?? []), r]);
  }
  for (const u of users) {
    const userId = u.field('id').str();
    const email = u.field('email').str();
    const username = u.optional('username')?.str() ?? email.split('@')[0] ?? email;
    const user = `${username} (${userId})`;
    const id = b.personIds.next(username, 'person');
    const zoneName = u.optional('timezone')?.str() ?? null;
    const person: Draft = { id, name: null, contacts: {}, timeZone: ImportBuilder.zone(zoneName), notify: [], statusUpdates: null, login: oneLine(email, 256) };
    b.personOfUser.set(userId, id);
    person.contacts[b.channel('email')] = oneLine(email, 256);
    b.line('contact-method', `email of user ${user}`, `contacts.${b.options.channels.email}`, 'mapped');
    const slack = slackId(u);
    if (slack !== null) {
      person.contacts[b.channel('slack')] = oneLine(slack, 256);
      b.line('contact-method', `Slack identity of user ${user}`, `contacts.${b.options.channels.slack}`, 'mapped');
    }
    if (rules === null) {
      b.line('notification-rule', `notification rules of user ${user}`, null, 'approximated', 'api/v1/personal_notification_rules.json was not saved: svc notifies every contact at once');
    } else {
      mapRules(b, user, person, rulesByUser.get(userId) ?? []);
    }
    b.addPerson(person, { label: `user ${user}`, email, zoneName });
  }
}
