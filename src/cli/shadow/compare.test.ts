/**
 * A shadow run held against the old pager (§22.3), pure, on the vendors' saved answers in
 * test/fixtures/shadow/: alerts paged by both (same people, and different people), by svc only, by the
 * old pager only; first-notice delays; and the report and the comparison as a person reads them at 80
 * columns.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ShadowAlert, ShadowNotice } from '../../control-plane/shadow-report.js';
import type { CliContext } from '../context.js';
import type { KnownPerson } from './compare.js';
import { compareShadow, personFor } from './compare.js';
import { readOldPagerLog } from './old-pager-log.js';
import { printShadowComparison, printShadowReport, signedDelay } from './shadow-command.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/shadow/', import.meta.url));
const people: KnownPerson[] = [{ id: 'alice', name: 'Alice Example', login: 'alice@example.com' }, { id: 'bob', name: 'Bob Builder', login: null }];
const notice = (person: string, at: string): ShadowNotice => ({ at: `2026-11-23T${at}Z`, person, name: null, login: null, channel: 'oncall-dm',
  channelType: 'file', deliveryId: `p.1.${person}.oncall-dm` });
const alert = (name: string, openedAt: string, notices: ShadowNotice[]): ShadowAlert => ({ agentId: 'oncall-escalator',
  incidentKey: `{}:{alertname="${name}"}`, pageId: `p${name.toLowerCase()}`, openedAt: `2026-11-23T${openedAt}Z`, title: `${name} on db-1`,
  severity: 'P1', notices, firstNoticeAt: notices[0]?.at ?? '' });
/** What the shadow run recorded: DiskFull told alice (and her resolve), HighLatency told alice, QueueBacklog alice — the old pager never had it. */
const svc: ShadowAlert[] = [
  alert('DiskFull', '10:00:00.200', [notice('alice', '10:00:00.500'), notice('alice', '10:20:00.000')]),
  alert('HighLatency', '10:00:00.800', [notice('alice', '10:00:01.000')]),
  alert('QueueBacklog', '10:00:02.000', [notice('alice', '10:00:02.300')]),
];
const all = { sinceMs: null, untilMs: null };

function capture(columns: number | null): { ctx: CliContext; out: () => string } {
  let text = '';
  const ctx = { stdout: (t: string) => { text += t; }, columns: () => columns } as unknown as CliContext;
  return { ctx, out: () => text };
}

describe('svc shadow report --compare (§22.3)', () => {
  it('against Opsgenie: both paged (matched by the alias being the key\'s SHA-256, or the key), different people, svc only, Opsgenie only', () => {
    const c = compareShadow(svc, readOldPagerLog(`${FIXTURES}opsgenie`), people, all);
    assert.deepEqual(c.alerts.map((a) => [a.key, a.paged, a.samePeople, a.svc?.people ?? null, a.old?.people ?? null, a.onlySvc, a.onlyOld, a.delaySeconds]), [
      ['{}:{alertname="DiskFull"}', 'both', true, ['alice'], ['alice'], [], [], -9.5],
      ['{}:{alertname="HighLatency"}', 'both', false, ['alice'], ['bob'], ['alice'], ['bob'], -7],
      // svc never had it: its alias (the key's SHA-256) names it, the table its title.
      ['d372ea62a9bc6af78155e85882d5afbada4d88f3ebfa13fd1586998516cdecaa', 'old-only', null, null, ['alice'], [], [], null],
      ['{}:{alertname="QueueBacklog"}', 'svc-only', null, ['alice'], null, [], [], null],
    ]);
    assert.deepEqual(c.summary, { alerts: 4, both: 2, svcOnly: 1, oldOnly: 1, differentPeople: 1,
      delay: { medianSeconds: -8.25, maxSeconds: -7, svcLater: 0, svcEarlier: 2 } });
    assert.deepEqual(c.alerts[0]?.old, { ids: ['70413a06-38d6-4c85-92b8-5ebc900d42e2'], createdAt: '2026-11-23T10:00:00.120Z',
      firstNoticeAt: '2026-11-23T10:00:10.000Z', people: ['alice'] });
  });

  it('against PagerDuty: the same verdicts, people known by the email users.json gives and by name', () => {
    const c = compareShadow(svc, readOldPagerLog(`${FIXTURES}pagerduty`), people, all);
    assert.deepEqual(c.alerts.map((a) => [a.title, a.paged, a.old?.people ?? null, a.delaySeconds]), [
      ['DiskFull on db-1', 'both', ['alice'], -11.5],
      ['HighLatency on db-1', 'both', ['bob'], -6],
      ['CertExpiry on www', 'old-only', ['alice'], null],
      ['QueueBacklog on db-1', 'svc-only', null, null],
    ]);
    assert.equal(c.oldPager, 'pagerduty');
  });

  it('the window leaves out the old pager\'s alerts created outside it', () => {
    const c = compareShadow(svc, readOldPagerLog(`${FIXTURES}opsgenie`), people,
      { sinceMs: Date.parse('2026-11-23T10:00:00.500Z'), untilMs: null });
    assert.deepEqual(c.alerts.map((a) => [a.key, a.paged]), [['{}:{alertname="DiskFull"}', 'svc-only'], ['{}:{alertname="HighLatency"}', 'svc-only'],
      ['d372ea62a9bc6af78155e85882d5afbada4d88f3ebfa13fd1586998516cdecaa', 'old-only'], ['{}:{alertname="QueueBacklog"}', 'svc-only']]);
  });

  it('an old pager\'s user is svc\'s person by login, then name, then the id svc import makes; else as the vendor names them', () => {
    assert.equal(personFor({ user: 'alice@example.com', email: 'Alice@Example.com', name: null }, people), 'alice');
    assert.equal(personFor({ user: 'Bob  builder', email: null, name: 'Bob  builder' }, people), 'bob');
    assert.equal(personFor({ user: 'bob@corp.example', email: 'bob@corp.example', name: null }, people), 'bob');
    assert.equal(personFor({ user: 'Carol Danvers', email: null, name: 'Carol Danvers' }, people), 'Carol Danvers');
  });

  it('delays as a person reads them', () => {
    assert.deepEqual([0, 9.5, -45, 300, 150, -3725].map(signedDelay), ['+0s', '+10s', '-45s', '+5m', '+2m30s', '-1h02m']);
  });
});

describe('svc shadow report as a person reads it, at 80 columns', () => {
  it('per alert, who would have been woken, each once, after how long and on what', () => {
    const { ctx, out } = capture(80);
    printShadowReport(ctx, { since: null, until: null, shadowAgents: ['oncall-escalator'], truncated: false, items: [
      alert('DiskFull', '10:00:00.200', [notice('alice', '10:00:00.500'), notice('bob', '10:05:00.500'), notice('alice', '10:20:00.000')]),
      { ...alert('HighLatency', '10:00:00.800', [{ ...notice('-', '10:00:01.000'), channel: 'team-room' }]), title: 'HighLatency on api-gateway-eu-west-1 p99 over 2 s' },
    ], people: [] });
    assert.equal(out(), [
      'OPENED                SEV  ALERT                     WOULD HAVE WOKEN',
      '2026-11-23 10:00:00Z  P1   DiskFull on db-1          alice +0s oncall-dm; bob',
      '                                                     +5m oncall-dm',
      '2026-11-23 10:00:00Z  P1   HighLatency on api-gate…  team-room\'s recipient +0s',
      '                                                     team-room',
      ''].join('\n'));
    for (const line of out().split('\n')) assert.ok(line.length <= 80, line);
  });

  it('nothing recorded: says whether a shadow run is on at all', () => {
    const none = capture(80);
    printShadowReport(none.ctx, { since: null, until: null, shadowAgents: [], truncated: false, items: [], people: [] });
    assert.equal(none.out(), 'no shadow run recorded here, and no agent is in one (shadow: true in agent.yaml, or svc up --shadow)\n');
    const quiet = capture(80);
    printShadowReport(quiet.ctx, { since: null, until: null, shadowAgents: ['oncall-escalator'], truncated: false, items: [], people: [] });
    assert.equal(quiet.out(), 'no alert yet: oncall-escalator is in a shadow run and would have paged nobody\n');
  });

  it('the comparison: one row per alert, then what it comes to', () => {
    const { ctx, out } = capture(80);
    printShadowComparison(ctx, compareShadow(svc, readOldPagerLog(`${FIXTURES}opsgenie`), people, all));
    assert.equal(out(), [
      'OPENED                ALERT               PAGED          DELAY  WHO WAS TOLD',
      '2026-11-23 10:00:00Z  DiskFull on db-1    both           -10s   alice',
      '2026-11-23 10:00:00Z  HighLatency on db…  both           -7s    svc alice;',
      '                                                                opsgenie bob',
      '2026-11-23 10:00:01Z  CertExpiry on www   opsgenie only  -      alice',
      '2026-11-23 10:00:02Z  QueueBacklog on d…  svc only       -      alice',
      '',
      '4 alert(s): 2 paged by both, 1 by svc only, 1 by opsgenie only',
      'of those paged by both, 1 told different people',
      'svc\'s first notice minus opsgenie\'s: median -8s, at most -7s',
      '(svc later on 0, earlier on 2)',
      ''].join('\n'));
    for (const line of out().split('\n')) assert.ok(line.length <= 80, line);
  });
});
