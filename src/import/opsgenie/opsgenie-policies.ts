/**
 * Opsgenie escalations (`v2/escalations`) and teams (`v2/teams`, `v2/teams/<id>`) as svc policies.
 *
 * - Each rule's `delay` counts from the alert (not from the rule before), so the rules lie on one
 *   timeline (policy-steps.ts); `condition: if-not-closed` keeps escalating after an ack in Opsgenie,
 *   svc stops at the ack.
 * - `notifyType` of a schedule: `default` is who is on call; `next` and `previous` are who is on call
 *   one turn later or earlier, which svc reaches through a derived schedule `<schedule>-next` /
 *   `-previous` (the same rotations, each turned by one). For a team: `all`/`default` its members,
 *   `admins` or `users` those of that role.
 * - `repeat` (`waitInterval` minutes after the last rule, `count` times) is svc's `repeat` with the
 *   last step waiting `waitInterval`.
 */
import type { Schedule, Target } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import type { ImportBuilder } from '../import-builder.js';
import type { ImportOutcome } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { stepsFrom } from '../policy-steps.js';
import type { TimedTargets } from '../policy-steps.js';
import { rotate } from '../rotation-parts.js';

const UNIT_MS: Readonly<Record<string, number>> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };
/** How long the last step of a policy without loops waits before the page counts as exhausted (nothing else happens then). */
const LAST_WAIT_MS = 5 * 60_000;
const MAX_REPEAT = 9;

interface TeamMember { personId: string; role: string }

/** Teams with their members (from `v2/teams/<id>`); every team gets a report line. */
function mapTeams(b: ImportBuilder, answers: Answers, byUsername: ReadonlyMap<string, string>): Map<string, TeamMember[] | null> {
  const teams = new Map<string, TeamMember[] | null>();
  const list = answers.list('v2/teams', 'data');
  if (list === null) return teams;
  for (const t of list) {
    const id = t.field('id').str();
    const name = t.optional('name')?.str() ?? id;
    const detail = answers.optional(`v2/teams/${id}`)?.field('data') ?? null;
    const members = detail === null ? null : detail.field('members').itemsOrNone().flatMap((m): TeamMember[] => {
      const user = m.field('user');
      const personId = b.personOfUser.get(user.optional('id')?.str() ?? '') ?? byUsername.get(user.optional('username')?.str() ?? '');
      return personId === undefined ? [] : [{ personId, role: m.optional('role')?.str() ?? 'user' }];
    });
    teams.set(id, members);
    teams.set(`name:${name}`, members);
    b.line('team', `team "${name}" (${id})`, null, 'not-mapped',
      `svc has no teams: where an escalation names the team, its members are named instead${detail === null ? ` (v2/teams/${id}.json with the members was not saved)` : ''}; `
      + 'the team\'s routing rules are not imported');
  }
  return teams;
}

/** The schedule one turn later (`next`) or earlier (`previous`) than `base`, made once and reused. */
function derivedSchedule(b: ImportBuilder, base: Schedule, which: 'next' | 'previous'): string {
  const id = `${base.id}-${which}`;
  if (b.schedules.some((s) => s.id === id)) return id;
  const made = b.scheduleIds.reserve(id);
  const schedule: Schedule = {
    id: made, timeZone: base.timeZone, fallback: base.fallback, allowGaps: base.allowGaps,
    rotations: base.rotations.map((r) => ({ ...r, people: rotate(r.people, which === 'next' ? 1 : -1) })),
  };
  b.addDerivedSchedule(schedule, `schedule ${made}: who is on call ${which} in ${base.id} (Opsgenie's notifyType ${which}), `
    + `the rotations of ${base.id} turned by one; Opsgenie's ${which} also follows overrides, svc's ${made} does not`);
  return made;
}

function ruleTargets(b: ImportBuilder, rule: JsonCursor, teams: Map<string, TeamMember[] | null>, byUsername: ReadonlyMap<string, string>,
  notes: string[]): Target[] {
  const recipient = rule.field('recipient');
  const type = recipient.field('type').str();
  const id = recipient.optional('id')?.str() ?? '';
  const notifyType = rule.optional('notifyType')?.str() ?? 'default';
  if (type === 'user') {
    const person = b.personOfUser.get(id) ?? byUsername.get(recipient.optional('username')?.str() ?? '');
    if (person === undefined) notes.push('its user was not imported');
    return person === undefined ? [] : [{ kind: 'person', id: person }];
  }
  if (type === 'schedule') {
    const scheduleId = b.scheduleOfVendor.get(id);
    const schedule = b.schedules.find((s) => s.id === scheduleId);
    if (schedule === undefined) {
      notes.push(`schedule ${recipient.optional('name')?.str() ?? id} was not imported`);
      return [];
    }
    if (notifyType === 'next' || notifyType === 'previous') {
      notes.push(`notifyType ${notifyType}: svc notifies schedule ${schedule.id}-${notifyType} (the rotations turned by one)`);
      return [{ kind: 'schedule', id: derivedSchedule(b, schedule, notifyType) }];
    }
    if (notifyType !== 'default') notes.push(`notifyType ${notifyType} of a schedule: svc notifies who is on call`);
    return [{ kind: 'schedule', id: schedule.id }];
  }
  if (type === 'team') {
    const members = teams.get(id) ?? teams.get(`name:${recipient.optional('name')?.str() ?? ''}`);
    if (members === undefined || members === null) {
      notes.push(`team ${recipient.optional('name')?.str() ?? id}: its members were not saved (v2/teams/${id}.json)`);
      return [];
    }
    const picked = notifyType === 'admins' ? members.filter((m) => m.role === 'admin') : notifyType === 'users' ? members.filter((m) => m.role !== 'admin') : members;
    if (notifyType === 'default') notes.push('the team\'s own escalation (notifyType default) is read as all its members');
    if (notifyType === 'random') notes.push('Opsgenie picks one member at random; svc notifies all of them');
    return picked.map((m) => ({ kind: 'person', id: m.personId }));
  }
  notes.push(`a recipient of type ${type} has no svc form (svc steps notify people, schedules and channels)`);
  return [];
}

/** Maps `v2/escalations`; teams are read first for the members of team recipients. */
export function mapOpsgeniePolicies(b: ImportBuilder, answers: Answers, byUsername: ReadonlyMap<string, string>): void {
  const teams = mapTeams(b, answers, byUsername);
  for (const e of answers.requiredList('v2/escalations', 'data')) {
    const vendorId = e.field('id').str();
    const name = e.field('name').str();
    const id = b.policyIds.next(name, 'policy');
    const timeline: TimedTargets[] = [];
    e.field('rules').itemsOrNone().forEach((rule, i) => {
      const notes: string[] = [];
      const delay = rule.optional('delay');
      const atMs = (delay?.optional('timeAmount')?.int(0) ?? 0) * (UNIT_MS[delay?.optional('timeUnit')?.str() ?? 'minutes'] ?? 60_000);
      const targets = ruleTargets(b, rule, teams, byUsername, notes);
      if (rule.optional('condition')?.str() === 'if-not-closed') notes.push('if-not-closed: Opsgenie escalates until the alert is closed, svc until it is acknowledged');
      const source = `rule ${i + 1} of escalation "${name}"`;
      if (targets.length === 0) {
        b.line('escalation-rule', source, null, 'not-mapped', notes.join('; '));
        return;
      }
      timeline.push({ atMs, targets });
      b.line('escalation-rule', source, `policy ${id}`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
    });
    const repeat = e.optional('repeat');
    const count = repeat?.optional('count')?.int(0) ?? 0;
    const waitMs = (repeat?.optional('waitInterval')?.int(0) ?? 0) * 60_000;
    const loops = count > 0 ? Math.min(count, MAX_REPEAT) : 0;
    const { steps, notes } = stepsFrom(timeline, loops > 0 ? waitMs : LAST_WAIT_MS);
    if (repeat !== null) {
      const rnotes: string[] = [];
      let outcome: ImportOutcome = 'mapped';
      if (count > MAX_REPEAT) { outcome = 'approximated'; rnotes.push(`${count} repeats; svc loops at most ${MAX_REPEAT} times`); }
      if (repeat.optional('closeAlertAfterAll')?.bool() === true) { outcome = 'approximated'; rnotes.push('svc never closes a page by itself: it is marked exhausted after the last loop'); }
      if (count > 0 && repeat.optional('resetRecipientStates')?.bool() === true) rnotes.push('svc loops only while the page is unacknowledged');
      b.line('repeat', `repeat of escalation "${name}"`, count > 0 ? `policy ${id} repeat: ${loops}` : null, outcome, rnotes.join('; '));
    }
    b.addPolicy(`escalation "${name}" (${vendorId})`, { id, steps, repeat: loops, ackTimeoutMs: 0, onExhausted: [] }, notes);
  }
}
