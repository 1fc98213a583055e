/**
 * PagerDuty as a source of `svc import` (contract §22.1): REST API v2 answers, what they map to, and
 * PagerDuty's own rendering of each schedule (`final_schedule.rendered_schedule_entries` of
 * `schedules/<id>?since=…&until=…`) for `--verify`. Authentication is `Authorization: Token token=<key>`
 * with `Accept: application/vnd.pagerduty+json;version=2`; lists page with `offset`/`limit` while `more`.
 *
 * Escalation policies map one to one: each rule notifies its targets and waits
 * `escalation_delay_in_minutes` (svc's `after`), `num_loops` is svc's `repeat`.
 */
import type { Target } from '../../oncall/oncall-config.js';
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportResult, MapOptions } from '../import-result.js';
import { stepsFrom } from '../policy-steps.js';
import type { TimedTargets } from '../policy-steps.js';
import type { ApiRequest, VendorSpec } from '../vendor-spec.js';
import type { RenderedSpan, VendorRendering } from '../verify-rendering.js';
import { MAX_VERIFY_MS, withSharedWindow } from '../verify-rendering.js';
import { mapPagerdutyPeople } from './pagerduty-people.js';
import { mapPagerdutySchedules } from './pagerduty-schedules.js';

/** How far ahead overrides are listed (PagerDuty's overrides request needs a range). */
const OVERRIDES_AHEAD_MS = 365 * 86_400_000;

function requests(answers: Answers, nowMs: number): ApiRequest[] {
  const since = new Date(nowMs).toISOString();
  const out: ApiRequest[] = [
    { path: 'users', query: { 'include[]': ['contact_methods', 'notification_rules'] }, paged: true },
    { path: 'schedules', paged: true },
    { path: 'escalation_policies', paged: true },
  ];
  for (const s of answers.list('schedules', 'schedules') ?? []) {
    const id = s.field('id').str();
    out.push({ path: `schedules/${id}`, query: { since, until: new Date(nowMs + MAX_VERIFY_MS).toISOString() } });
    out.push({ path: `schedules/${id}/overrides`, query: { since, until: new Date(nowMs + OVERRIDES_AHEAD_MS).toISOString() } });
  }
  return out;
}

function mapPolicies(b: ImportBuilder, answers: Answers): void {
  for (const p of answers.requiredList('escalation_policies', 'escalation_policies')) {
    const vendorId = p.field('id').str();
    const name = p.field('name').str();
    const id = b.policyIds.next(name, 'policy');
    const timeline: TimedTargets[] = [];
    let atMs = 0;
    let lastDelayMs = 0;
    p.field('escalation_rules').itemsOrNone().forEach((rule, i) => {
      const notes: string[] = [];
      const targets = rule.field('targets').items().flatMap((t): Target[] => {
        const type = t.field('type').str().replace(/_reference$/, '');
        const ref = t.field('id').str();
        const found = type === 'user' ? b.personOfUser.get(ref) : type === 'schedule' ? b.scheduleOfVendor.get(ref) : undefined;
        if (found === undefined) {
          notes.push(`${type} ${t.optional('summary')?.str() ?? ref} was not imported`);
          return [];
        }
        return [{ kind: type === 'user' ? 'person' : 'schedule', id: found }];
      });
      if (rule.optional('escalation_rule_assignment_strategy')?.str() === 'round_robin') notes.push('round robin: PagerDuty assigns one target in turn, svc notifies all of them');
      const delayMs = rule.field('escalation_delay_in_minutes').int(0) * 60_000;
      const source = `rule ${i + 1} of escalation policy "${name}"`;
      if (targets.length > 0) timeline.push({ atMs, targets });
      b.line('escalation-rule', source, targets.length > 0 ? `policy ${id}` : null, targets.length === 0 ? 'not-mapped' : notes.length > 0 ? 'approximated' : 'mapped', notes.join('; '));
      atMs += delayMs;
      lastDelayMs = delayMs;
    });
    const loops = p.optional('num_loops')?.int(0) ?? 0;
    const { steps, notes } = stepsFrom(timeline, lastDelayMs);
    if (loops > 0) b.line('repeat', `num_loops of escalation policy "${name}"`, `policy ${id} repeat: ${Math.min(loops, 9)}`, loops > 9 ? 'approximated' : 'mapped',
      loops > 9 ? 'svc loops at most 9 times' : '');
    b.addPolicy(`escalation policy "${name}" (${vendorId})`, { id, steps, repeat: Math.min(loops, 9), ackTimeoutMs: 0, onExhausted: [] }, notes);
  }
}

function map(answers: Answers, options: MapOptions): ImportResult {
  const b = new ImportBuilder('pagerduty', options);
  mapPagerdutyPeople(b, answers);
  mapPagerdutySchedules(b, answers);
  mapPolicies(b, answers);
  return b.finish('PagerDuty routes incidents through services and event rules, which are not imported');
}

/**
 * The final schedule of every imported schedule. PagerDuty's answer does not state its window (the
 * request's since/until), and cuts entries to it: the window is taken as the earliest start to the
 * latest end over all schedules of the export, which were fetched over the same range.
 */
function renderings(answers: Answers, result: ImportResult): VendorRendering[] {
  const read: Array<Omit<VendorRendering, 'fromMs' | 'toMs'>> = [];
  for (const [vendorId, scheduleId] of result.scheduleOfVendor) {
    const page = answers.optional(`schedules/${vendorId}`);
    const finalSchedule = page?.field('schedule').optional('final_schedule') ?? null;
    if (page === null || finalSchedule === null) continue;
    const spans: RenderedSpan[] = finalSchedule.field('rendered_schedule_entries').itemsOrNone().map((entry) => {
      const user = entry.optional('user');
      const ref = user?.optional('id')?.str() ?? '';
      const people = user === null ? [] : [result.personOfUser.get(ref) ?? `?${user.optional('summary')?.str() ?? ref}`];
      return { startMs: entry.field('start').instant(), endMs: entry.field('end').instant(), people };
    });
    read.push({ scheduleId, source: `schedule ${page.field('schedule').optional('name')?.str() ?? vendorId} (${vendorId})`, file: page.file, spans });
  }
  return withSharedWindow(read);
}

export const pagerduty: VendorSpec = {
  vendor: 'pagerduty',
  label: 'PagerDuty',
  requests,
  map,
  renderings,
  authHeaders: (token) => ({ Authorization: `Token token=${token}`, Accept: 'application/vnd.pagerduty+json;version=2' }),
  paging: 'pagerduty',
  pageSize: 100,
};
