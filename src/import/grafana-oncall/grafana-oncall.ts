/**
 * Grafana OnCall as a source of `svc import` (contract §22.1): its public API v1 answers, what they map
 * to, and OnCall's own rendering of each schedule (`api/v1/schedules/<id>/final_shifts`) for `--verify`.
 * Authentication is `Authorization: <api token>`; lists page with `next` links (`?page=N`).
 *
 * An escalation chain's policies run in `position` order: notify steps fire at once, `wait` delays
 * what follows, `repeat_escalation` starts the chain again (at most 5 times) — svc's steps, their `after`
 * and `repeat: 5`.
 */
import type { Target } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportResult, MapOptions } from '../import-result.js';
import type { JsonCursor } from '../json-cursor.js';
import { stepsFrom } from '../policy-steps.js';
import type { TimedTargets } from '../policy-steps.js';
import type { ApiRequest, VendorSpec } from '../vendor-spec.js';
import type { VendorRendering } from '../verify-rendering.js';
import { MAX_VERIFY_MS, withSharedWindow } from '../verify-rendering.js';
import { mapOncallPeople } from './oncall-people.js';
import { mapOncallSchedules } from './oncall-shifts.js';

/** OnCall repeats an escalation at most this many times (`repeat_escalation`). */
const ONCALL_REPEATS = 5;
/** How long the last step of a chain without a repeat waits before the page counts as exhausted. */
const LAST_WAIT_MS = 5 * 60_000;

const LIST_PATHS = ['api/v1/users', 'api/v1/schedules', 'api/v1/on_call_shifts', 'api/v1/escalation_chains', 'api/v1/escalation_policies',
  'api/v1/personal_notification_rules'];

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function requests(answers: Answers, nowMs: number): ApiRequest[] {
  const out: ApiRequest[] = LIST_PATHS.map((path) => ({ path, paged: true }));
  for (const s of answers.list('api/v1/schedules', 'results') ?? []) {
    out.push({ path: `api/v1/schedules/${s.field('id').str()}/final_shifts`, query: { start_date: day(nowMs), end_date: day(nowMs + MAX_VERIFY_MS) }, paged: true });
  }
  return out;
}

function policyTargets(b: ImportBuilder, p: JsonCursor, type: string, notes: string[]): Target[] | null {
  const persons = (field: string): Target[] => p.field(field).itemsOrNone().flatMap((u): Target[] => {
    const person = b.personOfUser.get(u.str());
    if (person === undefined) notes.push(`user ${u.str()} was not imported`);
    return person === undefined ? [] : [{ kind: 'person', id: person }];
  });
  if (p.optional('important')?.bool() === true) notes.push('important: OnCall uses the person\'s important rules; svc has one set per person');
  switch (type) {
    case 'notify_persons':
      return persons('persons_to_notify');
    case 'notify_person_next_each_time': {
      notes.push('OnCall notifies the next of the listed people each time; svc notifies the first');
      return persons('persons_to_notify_next_each_time').slice(0, 1);
    }
    case 'notify_on_call_from_schedule': {
      const ref = p.field('notify_on_call_from_schedule').str();
      const schedule = b.scheduleOfVendor.get(ref);
      if (schedule === undefined) notes.push(`schedule ${ref} was not imported`);
      return schedule === undefined ? [] : [{ kind: 'schedule', id: schedule }];
    }
    default:
      return null;
  }
}

const NO_SVC_FORM: Readonly<Record<string, string>> = {
  notify_user_group: 'a Slack user group: name its people in the step instead',
  notify_team_members: 'svc has no teams: name the team\'s people in the step instead',
  notify_whole_channel: 'svc notifies people, schedules and channels of the agent: add a channel:<id> target for the Slack channel',
  resolve: 'svc never resolves a page by itself',
  trigger_webhook: 'svc steps do not call webhooks: a webhook channel as a channel:<id> target comes closest',
  trigger_action: 'svc steps do not call webhooks: a webhook channel as a channel:<id> target comes closest',
  notify_if_time_from_to: 'svc escalates at every hour of the day',
  notify_if_num_alerts_in_window: 'svc escalates whatever the number of alerts',
  notify_one_person: 'a legacy step: name the person in notify_persons',
};

function mapChains(b: ImportBuilder, answers: Answers): void {
  const byChain = new Map<string, JsonCursor[]>();
  for (const p of answers.requiredList('api/v1/escalation_policies', 'results')) {
    const chain = p.field('escalation_chain_id').str();
    byChain.set(chain, [...(byChain.get(chain) ?? []), p]);
  }
  for (const chain of answers.requiredList('api/v1/escalation_chains', 'results')) {
    const vendorId = chain.field('id').str();
    const name = chain.field('name').str();
    const id = b.policyIds.next(name, 'policy');
    const ordered = (byChain.get(vendorId) ?? []).map((p) => ({ p, position: p.optional('position')?.num() ?? 0 })).sort((x, y) => x.position - y.position);
    const timeline: TimedTargets[] = [];
    let atMs = 0;
    let repeat = 0;
    let afterRepeat = false;
    for (const { p, position } of ordered) {
      const type = p.field('type').str();
      const source = `step ${position + 1} (${type}) of escalation chain "${name}"`;
      const notes: string[] = [];
      if (type === 'wait') {
        atMs += (p.optional('duration')?.int(0) ?? 0) * 1000;
        b.line('escalation-rule', source, `policy ${id}`, 'mapped');
        continue;
      }
      if (type === 'repeat_escalation') {
        repeat = ONCALL_REPEATS;
        afterRepeat = true;
        b.line('repeat', source, `policy ${id} repeat: ${ONCALL_REPEATS}`, 'mapped', 'OnCall repeats the chain at most 5 times');
        continue;
      }
      const targets = policyTargets(b, p, type, notes);
      if (targets === null || targets.length === 0) {
        b.line('escalation-rule', source, null, 'not-mapped', targets === null ? (NO_SVC_FORM[type] ?? `unknown step type ${type}`) : notes.join('; '));
        continue;
      }
      if (afterRepeat) notes.push('comes after repeat_escalation: OnCall reaches it once the repeats are over, svc in every loop');
      timeline.push({ atMs, targets });
      b.line('escalation-rule', source, `policy ${id}`, notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
    }
    const lastAt = timeline.reduce((max, t) => Math.max(max, t.atMs), 0);
    const { steps, notes } = stepsFrom(timeline, repeat > 0 ? Math.max(atMs - lastAt, 0) : LAST_WAIT_MS);
    b.addPolicy(`escalation chain "${name}" (${vendorId})`, { id, steps, repeat, ackTimeoutMs: 0, onExhausted: [] }, notes);
  }
}

function map(answers: Answers, options: MapOptions): ImportResult {
  const b = new ImportBuilder('grafana-oncall', options);
  mapOncallPeople(b, answers);
  mapOncallSchedules(b, answers);
  mapChains(b, answers);
  return b.finish('Grafana OnCall routes alert groups with integrations and their routes, which are not imported');
}

function renderings(answers: Answers, result: ImportResult): VendorRendering[] {
  const read: Array<Omit<VendorRendering, 'fromMs' | 'toMs'>> = [];
  for (const [vendorId, scheduleId] of result.scheduleOfVendor) {
    const path = `api/v1/schedules/${vendorId}/final_shifts`;
    const entries = answers.list(path, 'results');
    if (entries === null) continue;
    read.push({
      scheduleId, source: `schedule ${vendorId}`, file: `${path}.json`,
      spans: entries.map((e) => {
        const ref = e.field('user_pk').str();
        return { startMs: e.field('shift_start').instant(), endMs: e.field('shift_end').instant(),
          people: [result.personOfUser.get(ref) ?? `?${e.optional('user_username')?.str() ?? ref}`] };
      }),
    });
  }
  return withSharedWindow(read);
}

export const grafanaOncall: VendorSpec = {
  vendor: 'grafana-oncall',
  label: 'Grafana OnCall',
  requests,
  map,
  renderings,
  authHeaders: (token) => ({ Authorization: token }),
  paging: 'grafana-oncall',
  pageSize: 50,
};
