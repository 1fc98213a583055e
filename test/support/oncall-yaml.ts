/**
 * oncall.yaml for page tests, and the alert bodies they send. Every variant shares one skeleton:
 * alice is always on call for `primary` (a weekly rotation of one, Europe/Berlin), P1 and P2 route to
 * the policy `default` (unless `routes` say otherwise), incidents are keyed by Alertmanager's
 * groupKey; the people and the policies' steps differ.
 */
export interface OncallShape {
  /** Flow mappings, one a person: `{ id: alice, contacts: { oncall-dm: alice } }`. */
  people: string[];
  /** Steps (flow mappings) per policy id, in the order written. */
  policies: Record<string, string[]>;
  /** Flow mappings, one a route; default: P1 and P2 to `default`. */
  routes?: string[];
  /** The `incidents` value; default: keyed by groupKey, reopened within 1 s. */
  incidents?: string;
  /** More YAML after the rest. */
  extra?: string;
}

export function oncallSkeleton(shape: OncallShape): string {
  const policies = Object.entries(shape.policies).map(([id, steps]) =>
    `  - id: ${id}\n    steps:\n${steps.map((s) => `      - ${s}`).join('\n')}\n    repeat: 0`);
  const routes = shape.routes ?? ['{ match: { severity: [P1, P2] }, policy: default }'];
  return `
people:
${shape.people.map((p) => `  - ${p}`).join('\n')}
schedules:
  - id: primary
    timeZone: Europe/Berlin
    rotations:
      - { people: [alice], every: 1w, handoff: 2026-11-23T09:00 }
policies:
${policies.join('\n')}
routes:
${routes.map((r) => `  - ${r}`).join('\n')}
incidents: ${shape.incidents ?? '{ key: groupKey, reopenWindow: 1s }'}
${shape.extra ?? ''}`;
}

const skeleton = (people: string[], steps: string[], extra = ''): string => oncallSkeleton({ people, policies: { default: steps }, extra });

/**
 * Two steps: step 1 pages alice (through the schedule), step 2 pages bob; no loops. Both have a
 * contact on the template's file channel `oncall-dm`; `aliceElsewhere` adds more of hers (e.g.
 * `slack-dm: U0ALICE`).
 */
export function oncallYaml(firstAfter: string, secondAfter: string, extra = '', aliceElsewhere = ''): string {
  return skeleton(
    [`{ id: alice, contacts: { oncall-dm: alice${aliceElsewhere === '' ? '' : `, ${aliceElsewhere}`} } }`, '{ id: bob, contacts: { oncall-dm: bob } }'],
    [`{ notify: [schedule:primary], after: ${firstAfter} }`, `{ notify: [person:bob], after: ${secondAfter} }`],
    extra);
}

/**
 * One step an hour long that pages alice, and whatever else `notify` names beside her schedule
 * (e.g. `channel:pd`); `contacts` are hers (e.g. `slack-dm: U0ALICE`).
 */
export function aliceOnlyYaml(contacts: string, notify: string[] = []): string {
  return skeleton([`{ id: alice, contacts: { ${contacts} } }`], [`{ notify: [${['schedule:primary', ...notify].join(', ')}], after: 1h }`]);
}

/** The template's mock alert with its own Alertmanager group (so its own page). */
export function alertInGroup(fixture: string, group: string): string {
  const body = JSON.parse(fixture) as Record<string, unknown>;
  body.groupKey = `{}:{alertname="${group}"}`;
  return JSON.stringify(body);
}

/** The template's mock alert as Alertmanager's resolved notification of it. */
export function resolvedBody(fixture: string): string {
  const body = JSON.parse(fixture) as { status: string; alerts: Array<{ status: string; endsAt: string }> };
  body.status = 'resolved';
  for (const alert of body.alerts) {
    alert.status = 'resolved';
    alert.endsAt = '2026-11-21T04:00:00.000Z';
  }
  return JSON.stringify(body);
}

/**
 * alice alone, with personal rules (§21.1): `push` at once, `sms` after `smsAfter`, `phone` after an
 * hour — each a file channel of its own (fileChannels). One step an hour long.
 */
export function personalRulesYaml(smsAfter: string): string {
  return skeleton(['{ id: alice, contacts: { push: alice, sms: alice, phone: alice }, notify: [{ after: 0m, via: [push] }, '
    + `{ after: ${smsAfter}, via: [sms] }, { after: 1h, via: [phone] }] }`], ['{ notify: [schedule:primary], after: 1h }']);
}

/** channels.yaml with one outbound file channel per id, writing `./out/<id>.jsonl`. */
export function fileChannels(ids: readonly string[]): string {
  return `channels:\n${ids.map((id) => `  - { id: ${id}, type: file, direction: outbound, path: ./out/${id}.jsonl, to: on-call }`).join('\n')}\n`;
}
