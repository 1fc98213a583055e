/**
 * oncall.yaml for page tests: alice is always on call for `primary`; step 1 pages her, step 2 pages
 * bob; no loops. Both have a contact on the template's file channel `oncall-dm`; `aliceElsewhere`
 * adds more of hers (e.g. `slack-dm: U0ALICE`).
 */
export function oncallYaml(firstAfter: string, secondAfter: string, extra = '', aliceElsewhere = ''): string {
  return `
people:
  - { id: alice, contacts: { oncall-dm: alice${aliceElsewhere === '' ? '' : `, ${aliceElsewhere}`} } }
  - { id: bob, contacts: { oncall-dm: bob } }
schedules:
  - id: primary
    timeZone: Europe/Berlin
    rotations:
      - { people: [alice], every: 1w, handoff: 2026-11-23T09:00 }
policies:
  - id: default
    steps:
      - { notify: [schedule:primary], after: ${firstAfter} }
      - { notify: [person:bob], after: ${secondAfter} }
    repeat: 0
routes:
  - { match: { severity: [P1, P2] }, policy: default }
incidents: { key: groupKey, reopenWindow: 1s }
${extra}`;
}

/** The template's mock alert with its own Alertmanager group (so its own page). */
export function alertInGroup(fixture: string, group: string): string {
  const body = JSON.parse(fixture) as Record<string, unknown>;
  body.groupKey = `{}:{alertname="${group}"}`;
  return JSON.stringify(body);
}
