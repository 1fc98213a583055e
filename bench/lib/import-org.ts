/**
 * A large organisation's export in each vendor's answer shape (the same shapes as the fixtures under
 * test/fixtures/import/), for bench/import.ts: PEOPLE users in two time zones with three contact
 * methods and a three-step notification rule each, SCHEDULES schedules of eight people (a weekly
 * business-hours rotation restricted to Mon–Fri 09:00–18:00 and a daily out-of-hours rotation
 * restricted to the rest of the week), one override each, and a policy with loops per three schedules.
 * Renderings for `--verify` are written afterwards from svc's own answer (`writeRenderings`): they
 * measure the proof's cost, not its independence (the fixtures' renderings are independent).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ImportResult, ImportVendor } from '../../src/import/import-result.js';
import type { Override } from '../../src/oncall/oncall-config.js';
import { scheduleShifts } from '../../src/oncall/schedule.js';

const DAY = 86_400_000;

export interface OrgSize {
  people: number;
  schedules: number;
  /** The instant the export is taken at: rotations start a fortnight before, overrides a day after. */
  nowMs: number;
}

const ZONES = ['Europe/Berlin', 'America/New_York'] as const;
const iso = (ms: number): string => new Date(ms).toISOString();
const localDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Who is in schedule `s` (eight people, overlapping teams), and its zone. */
function team(s: number, size: OrgSize): { members: number[]; zone: string } {
  return { members: Array.from({ length: 8 }, (_, i) => (s * 5 + i) % size.people), zone: ZONES[s % 2] as string };
}

function writer(dir: string): (path: string, body: unknown) => void {
  return (path, body) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), JSON.stringify(body));
  };
}

/** Writes a list answer in pages of `per` items as `<path>.json`, `<path>.2.json`, …, each page made by `page`. */
function pages<T>(write: (path: string, body: unknown) => void, path: string, items: T[], per: number,
  page: (items: T[], n: number, more: boolean) => unknown): void {
  for (let n = 1, i = 0; i < items.length || n === 1; n++, i += per) {
    write(n === 1 ? `${path}.json` : `${path}.${n}.json`, page(items.slice(i, i + per), n, i + per < items.length));
  }
}

function opsgenie(dir: string, size: OrgSize): void {
  const w = writer(dir);
  const uid = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const users = Array.from({ length: size.people }, (_, i) => ({ id: uid(i), username: `user${i}@example.com`, fullName: `User ${i}`, timeZone: ZONES[i % 2],
    role: { id: 'User', name: 'User' }, blocked: false, verified: true }));
  pages(w, 'v2/users', users, 500, (data, n, more) => ({ totalCount: size.people, data, paging: more ? { next: `https://api.opsgenie.com/v2/users?offset=${n * 500}` } : {} }));
  users.forEach((u, i) => {
    const phone = `49-1510${String(i).padStart(7, '0')}`;
    w(`v2/users/${u.id}/contacts.json`, { data: [{ id: `c${i}e`, method: 'email', to: u.username, status: { enabled: true } },
      { id: `c${i}s`, method: 'sms', to: phone, status: { enabled: true } }, { id: `c${i}v`, method: 'voice', to: phone, status: { enabled: true } }] });
    w(`v2/users/${u.id}/notification-rules.json`, { data: [{ id: `r${i}`, name: 'New Alert', actionType: 'create-alert', order: 0, enabled: true }] });
    w(`v2/users/${u.id}/notification-rules/r${i}.json`, { data: { id: `r${i}`, name: 'New Alert', actionType: 'create-alert', order: 0, enabled: true,
      criteria: { type: 'match-all' }, steps: [
        { contact: { method: 'email', to: u.username }, sendAfter: { timeAmount: 0, timeUnit: 'minutes' }, enabled: true },
        { contact: { method: 'sms', to: phone }, sendAfter: { timeAmount: 2, timeUnit: 'minutes' }, enabled: true },
        { contact: { method: 'voice', to: phone }, sendAfter: { timeAmount: 5, timeUnit: 'minutes' }, enabled: true }] } });
  });
  const part = (i: number) => ({ type: 'user', id: uid(i), username: `user${i}@example.com` });
  const wd = (sd: string, sh: number, ed: string, eh: number) => ({ startDay: sd, startHour: sh, startMin: 0, endDay: ed, endHour: eh, endMin: 0 });
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
  const schedules = Array.from({ length: size.schedules }, (_, s) => {
    const { members, zone } = team(s, size);
    const start = size.nowMs - 14 * DAY;
    return { id: `5c000000-0000-4000-8000-${String(s).padStart(12, '0')}`, name: `Service ${s}`, timezone: zone, enabled: true, rotations: [
      { id: `ro${s}a`, name: 'Business hours', type: 'weekly', length: 1, startDate: iso(start), participants: members.slice(0, 4).map(part),
        timeRestriction: { type: 'weekday-and-time-of-day', restrictions: days.map((d) => wd(d, 9, d, 18)) } },
      { id: `ro${s}b`, name: 'Out of hours', type: 'daily', length: 1, startDate: iso(start + 9 * 3_600_000), participants: members.slice(4).map(part),
        timeRestriction: { type: 'weekday-and-time-of-day', restrictions: [...days.slice(0, 4).map((d, i) => wd(d, 18, days[i + 1] as string, 9)), wd('friday', 18, 'monday', 9)] } },
    ] };
  });
  w('v2/schedules.json', { data: schedules, expandable: ['rotation'] });
  schedules.forEach((s, i) => w(`v2/schedules/${s.id}/overrides.json`, { data: [{ alias: `ov${i}`, user: part(team(i, size).members[0] as number),
    startDate: iso(size.nowMs + DAY), endDate: iso(size.nowMs + 2 * DAY), rotations: [] }] }));
  const rule = (amount: number, recipient: unknown) => ({ condition: 'if-not-acked', notifyType: 'default', delay: { timeAmount: amount, timeUnit: 'minutes' }, recipient });
  w('v2/escalations.json', { data: Array.from({ length: Math.ceil(size.schedules / 3) }, (_, p) => ({ id: `es${p}`, name: `Escalation ${p}`, rules: [
    rule(0, { type: 'schedule', id: schedules[p * 3]?.id, name: schedules[p * 3]?.name }),
    rule(10, { type: 'schedule', id: schedules[(p * 3 + 1) % size.schedules]?.id }), rule(20, { type: 'user', id: uid(p) })],
  repeat: { waitInterval: 10, count: 2, resetRecipientStates: false, closeAlertAfterAll: false } })) });
}

function pagerduty(dir: string, size: OrgSize): void {
  const w = writer(dir);
  const uid = (i: number): string => `PU${String(i).padStart(5, '0')}`;
  const ref = (type: string, id: string) => ({ id, type: `${type}_reference`, summary: id });
  const users = Array.from({ length: size.people }, (_, i) => {
    const cms = [{ id: `PC${i}E`, type: 'email_contact_method', label: 'Work', address: `user${i}@example.com` },
      { id: `PC${i}S`, type: 'sms_contact_method', label: 'Mobile', address: `1510${String(i).padStart(7, '0')}`, country_code: 49 },
      { id: `PC${i}P`, type: 'phone_contact_method', label: 'Mobile', address: `1510${String(i).padStart(7, '0')}`, country_code: 49 }];
    return { id: uid(i), type: 'user', name: `User ${i}`, email: `user${i}@example.com`, time_zone: ZONES[i % 2], contact_methods: cms,
      notification_rules: cms.map((cm, k) => ({ id: `PR${i}${k}`, type: 'assignment_notification_rule', start_delay_in_minutes: [0, 2, 5][k], urgency: 'high',
        contact_method: ref(cm.type, cm.id) })) };
  });
  pages(w, 'users', users, 100, (list, n, more) => ({ users: list, limit: 100, offset: (n - 1) * 100, more, total: null }));
  const sid = (s: number): string => `PS${String(s).padStart(5, '0')}`;
  const listed = Array.from({ length: size.schedules }, (_, s) => ({ id: sid(s), type: 'schedule', name: `Service ${s}`, time_zone: team(s, size).zone }));
  pages(w, 'schedules', listed, 100, (list, n, more) => ({ schedules: list, limit: 100, offset: (n - 1) * 100, more, total: null }));
  listed.forEach((s, i) => {
    const { members } = team(i, size);
    const start = iso(size.nowMs - 14 * DAY);
    w(`schedules/${s.id}.json`, { schedule: { ...s, schedule_layers: [
      { id: `PL${i}B`, name: 'Out of hours', start, end: null, rotation_virtual_start: iso(size.nowMs - 14 * DAY + 9 * 3_600_000), rotation_turn_length_seconds: 86_400,
        users: members.slice(4).map((m) => ({ user: ref('user', uid(m)) })), restrictions: [
          ...[1, 2, 3, 4].map((d) => ({ type: 'weekly_restriction', start_day_of_week: d, start_time_of_day: '18:00:00', duration_seconds: 54_000 })),
          { type: 'weekly_restriction', start_day_of_week: 5, start_time_of_day: '18:00:00', duration_seconds: 226_800 }] },
      { id: `PL${i}A`, name: 'Business hours', start, end: null, rotation_virtual_start: start, rotation_turn_length_seconds: 604_800,
        users: members.slice(0, 4).map((m) => ({ user: ref('user', uid(m)) })),
        restrictions: [{ type: 'weekly_restriction', start_day_of_week: 1, start_time_of_day: '09:00:00', duration_seconds: 378_000 }] },
    ], final_schedule: { name: 'Final Schedule', rendered_schedule_entries: [] } } });
    w(`schedules/${s.id}/overrides.json`, { overrides: [{ id: `PO${i}`, start: iso(size.nowMs + DAY), end: iso(size.nowMs + 2 * DAY), user: ref('user', uid(members[0] as number)) }] });
  });
  const policies = Array.from({ length: Math.ceil(size.schedules / 3) }, (_, p) => ({ id: `PE${p}`, type: 'escalation_policy', name: `Escalation ${p}`, num_loops: 2,
    escalation_rules: [{ id: `PX${p}a`, escalation_delay_in_minutes: 10, targets: [ref('schedule', sid(p * 3))] },
      { id: `PX${p}b`, escalation_delay_in_minutes: 10, targets: [ref('schedule', sid((p * 3 + 1) % size.schedules)), ref('user', uid(p))] }] }));
  pages(w, 'escalation_policies', policies, 100, (list, n, more) => ({ escalation_policies: list, limit: 100, offset: (n - 1) * 100, more, total: null }));
}

function grafanaOncall(dir: string, size: OrgSize): void {
  const w = writer(dir);
  const page = <T>(path: string, items: T[]) => pages(w, `api/v1/${path}`, items, 50, (results, n, more) => ({ count: items.length,
    next: more ? `https://oncall.example.com/api/v1/${path}/?page=${n + 1}` : null, previous: null, results }));
  const uid = (i: number): string => `U${String(i).padStart(10, '0')}`;
  page('users', Array.from({ length: size.people }, (_, i) => ({ id: uid(i), email: `user${i}@example.com`, username: `user${i}`, role: 'user',
    timezone: ZONES[i % 2], slack: { user_id: `U0SLACK${i}`, team_id: 'T0ACME' } })));
  page('personal_notification_rules', Array.from({ length: size.people }, (_, i) => [
    { id: `N${i}a`, user_id: uid(i), position: 0, important: false, type: 'notify_by_slack' },
    { id: `N${i}b`, user_id: uid(i), position: 1, important: false, type: 'wait', duration: 300 },
    { id: `N${i}c`, user_id: uid(i), position: 2, important: false, type: 'notify_by_email' }]).flat());
  const start = new Date(size.nowMs - 14 * DAY);
  start.setUTCHours(0, 0, 0, 0);
  while (start.getUTCDay() !== 1) start.setUTCDate(start.getUTCDate() - 1);
  const day = localDay(start.getTime());
  const shifts = Array.from({ length: size.schedules }, (_, s) => {
    const { members } = team(s, size);
    return [
      { id: `O${s}A`, name: `Service ${s} weekdays`, type: 'rolling_users', time_zone: null, level: 1, start: `${day}T09:00:00`, rotation_start: `${day}T09:00:00`, duration: 32_400,
        frequency: 'weekly', interval: 1, week_start: 'MO', by_day: ['MO', 'TU', 'WE', 'TH', 'FR'], rolling_users: members.slice(0, 4).map((m) => [uid(m)]), start_rotation_from_user_index: 0 },
      { id: `O${s}B`, name: `Service ${s} base`, type: 'rolling_users', time_zone: null, level: 0, start: `${day}T18:00:00`, rotation_start: `${day}T18:00:00`, duration: 86_400,
        frequency: 'daily', interval: 1, rolling_users: members.slice(4).map((m) => [uid(m)]), start_rotation_from_user_index: 0 },
      { id: `O${s}O`, name: `Service ${s} override`, type: 'override', time_zone: 'UTC', start: iso(size.nowMs + DAY).slice(0, 19), rotation_start: iso(size.nowMs + DAY).slice(0, 19),
        duration: 86_400, users: [uid(members[0] as number)] },
    ];
  });
  page('on_call_shifts', shifts.flat());
  page('schedules', shifts.map((own, s) => ({ id: `S${String(s).padStart(9, '0')}`, name: `Service ${s}`, type: 'web', time_zone: team(s, size).zone, shifts: own.map((x) => x.id) })));
  const chains = Array.from({ length: Math.ceil(size.schedules / 3) }, (_, p) => ({ id: `F${p}`, name: `Escalation ${p}` }));
  page('escalation_chains', chains);
  page('escalation_policies', chains.flatMap((c, p) => [
    { id: `E${p}a`, escalation_chain_id: c.id, position: 0, type: 'notify_on_call_from_schedule', notify_on_call_from_schedule: `S${String(p * 3).padStart(9, '0')}` },
    { id: `E${p}b`, escalation_chain_id: c.id, position: 1, type: 'wait', duration: 600 },
    { id: `E${p}c`, escalation_chain_id: c.id, position: 2, type: 'notify_persons', persons_to_notify: [uid(p)] },
    { id: `E${p}d`, escalation_chain_id: c.id, position: 3, type: 'wait', duration: 600 },
    { id: `E${p}e`, escalation_chain_id: c.id, position: 4, type: 'repeat_escalation' }]));
}

export function writeOrg(vendor: ImportVendor, dir: string, size: OrgSize): void {
  ({ 'opsgenie': opsgenie, 'pagerduty': pagerduty, 'grafana-oncall': grafanaOncall })[vendor](dir, size);
}

/**
 * The vendor's rendering of every imported schedule over 28 days, as its API answers it, from svc's own
 * answer, into `dir` (a directory of its own: PagerDuty's rendering is its schedule answer).
 */
export function writeRenderings(vendor: ImportVendor, dir: string, result: ImportResult, nowMs: number): void {
  const w = writer(dir);
  const overrides: Override[] = result.overrides.map((o, i) => ({ id: `o${i}`, agentId: 'bench', scheduleId: o.scheduleId, personId: o.personId, fromMs: o.fromMs, toMs: o.toMs }));
  const userOf = new Map([...result.personOfUser].map(([user, person]) => [person, user]));
  for (const [vendorId, scheduleId] of result.scheduleOfVendor) {
    const schedule = result.config.schedules.find((s) => s.id === scheduleId);
    if (schedule === undefined) continue;
    const shifts = scheduleShifts(schedule, overrides, nowMs, nowMs + 28 * DAY).filter((s) => s.person !== null);
    const user = (person: string | null): string => userOf.get(person ?? '') ?? '';
    if (vendor === 'opsgenie') {
      w(`v2/schedules/${vendorId}/timeline.json`, { data: { _parent: { id: vendorId, name: scheduleId, enabled: true }, startDate: iso(nowMs), endDate: iso(nowMs + 28 * DAY),
        finalTimeline: { rotations: [{ id: 'final', name: 'final', order: 0, periods: shifts.map((s) => ({ startDate: iso(s.startMs), endDate: iso(s.endMs), type: 'default',
          recipient: { type: 'user', id: user(s.person), name: s.person } })) }] } } });
    } else if (vendor === 'pagerduty') {
      w(`schedules/${vendorId}.json`, { schedule: { id: vendorId, name: scheduleId, time_zone: schedule.timeZone, schedule_layers: [],
        final_schedule: { name: 'Final Schedule', rendered_schedule_entries: shifts.map((s) => ({ start: iso(s.startMs), end: iso(s.endMs),
          user: { id: user(s.person), type: 'user_reference', summary: s.person } })) } } });
    } else {
      w(`api/v1/schedules/${vendorId}/final_shifts.json`, { count: shifts.length, next: null, previous: null, results: shifts.map((s) => ({
        user_pk: user(s.person), user_email: `${s.person}@example.com`, user_username: s.person, shift_start: iso(s.startMs), shift_end: iso(s.endMs) })) });
    }
  }
}
