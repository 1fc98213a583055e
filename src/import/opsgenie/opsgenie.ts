/**
 * Opsgenie as a source of `svc import` (contract §22.1): its REST API v2 answers, what they map to, and
 * its own rendering of each schedule (`v2/schedules/<id>/timeline`, `finalTimeline`) for `--verify`.
 * Authentication is `Authorization: GenieKey <key>`; lists page with `offset`/`limit` and a
 * `paging.next` link while more remain.
 */
import type { Answers } from '../answers.js';
import { ImportBuilder } from '../import-builder.js';
import type { ImportResult, MapOptions } from '../import-result.js';
import type { ApiRequest, VendorSpec } from '../vendor-spec.js';
import type { VendorRendering } from '../verify-rendering.js';
import { mapOpsgeniePeople } from './opsgenie-people.js';
import { mapOpsgeniePolicies } from './opsgenie-policies.js';
import { mapOpsgenieSchedules } from './opsgenie-schedules.js';

const ids = (answers: Answers, path: string): string[] => (answers.list(path, 'data') ?? []).map((item) => item.field('id').str());

function requests(answers: Answers, nowMs: number): ApiRequest[] {
  const out: ApiRequest[] = [
    { path: 'v2/users', paged: true },
    { path: 'v2/schedules', query: { expand: 'rotation' } },
    { path: 'v2/escalations' },
    { path: 'v2/teams' },
  ];
  for (const user of ids(answers, 'v2/users')) {
    out.push({ path: `v2/users/${user}/contacts` }, { path: `v2/users/${user}/notification-rules` });
    for (const rule of ids(answers, `v2/users/${user}/notification-rules`)) out.push({ path: `v2/users/${user}/notification-rules/${rule}` });
  }
  for (const schedule of ids(answers, 'v2/schedules')) {
    out.push({ path: `v2/schedules/${schedule}/overrides` });
    out.push({ path: `v2/schedules/${schedule}/timeline`, query: { interval: '4', intervalUnit: 'weeks', date: new Date(nowMs).toISOString() } });
  }
  for (const team of ids(answers, 'v2/teams')) out.push({ path: `v2/teams/${team}` });
  return out;
}

function map(answers: Answers, options: MapOptions): ImportResult {
  const b = new ImportBuilder('opsgenie', options);
  const byUsername = new Map<string, string>();
  mapOpsgeniePeople(b, answers, byUsername);
  mapOpsgenieSchedules(b, answers, byUsername);
  mapOpsgeniePolicies(b, answers, byUsername);
  return b.finish('Opsgenie routes alerts with each team\'s routing rules, which are not imported');
}

function renderings(answers: Answers, result: ImportResult): VendorRendering[] {
  const out: VendorRendering[] = [];
  for (const [vendorId, scheduleId] of result.scheduleOfVendor) {
    const page = answers.optional(`v2/schedules/${vendorId}/timeline`);
    if (page === null) continue;
    const data = page.field('data');
    const spans = data.field('finalTimeline').field('rotations').itemsOrNone().flatMap((rotation) => rotation.field('periods').itemsOrNone()
      .flatMap((period) => {
        const recipient = period.optional('recipient');
        const kind = recipient?.optional('type')?.str() ?? 'user';
        if (recipient === null || kind === 'none') return [];
        const person = kind === 'user' ? result.personOfUser.get(recipient.optional('id')?.str() ?? '') : undefined;
        const label = person ?? `?${recipient.optional('name')?.str() ?? recipient.optional('id')?.str() ?? kind}`;
        return [{ startMs: period.field('startDate').instant(), endMs: period.field('endDate').instant(), people: [label] }];
      }));
    out.push({ scheduleId, source: `schedule ${data.optional('_parent')?.optional('name')?.str() ?? vendorId} (${vendorId})`, file: page.file,
      fromMs: data.field('startDate').instant(), toMs: data.field('endDate').instant(), spans });
  }
  return out;
}

export const opsgenie: VendorSpec = {
  vendor: 'opsgenie',
  label: 'Opsgenie',
  requests,
  map,
  renderings,
  authHeaders: (token) => ({ Authorization: `GenieKey ${token}` }),
  paging: 'opsgenie',
  pageSize: 100,
};
