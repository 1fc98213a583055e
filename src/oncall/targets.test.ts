import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OncallConfig, Override, Route } from './oncall-config.js';
import { resolveAllTargets, resolveTargets, routeFor } from './targets.js';
import { testPerson } from '../../test/support/oncall-config.js';

const config: OncallConfig = {
  people: [
    testPerson('alice', { 'oncall-dm': 'alice', mail: 'alice@example.com' }, { name: 'Alice' }),
    testPerson('bob', { 'oncall-dm': 'bob' }),
  ],
  schedules: [
    { id: 'primary', timeZone: 'Europe/Berlin', rotations: [{ people: ['alice', 'bob'], everyMs: 7 * 86_400_000, handoff: '2026-11-23T09:00', only: [], timeZone: 'Europe/Berlin' }], fallback: null, allowGaps: false },
    { id: 'empty', timeZone: 'UTC', rotations: [], fallback: null, allowGaps: true },
  ],
  policies: [],
  routes: [
    { match: { severity: ['P1', 'P2'], labels: [] }, policy: 'default' },
    { match: { severity: ['P3'], labels: [] }, notify: [{ kind: 'person', id: 'alice' }] },
  ],
  incidents: { key: { kind: 'groupKey' }, reopenWindowMs: 600_000 },
  heartbeats: [],
};
const ALICE_WEEK = Date.parse('2026-11-24T12:00:00Z');
const BOB_WEEK = Date.parse('2026-12-01T12:00:00Z');

describe('resolveTargets', () => {
  it('person: every contact of the person', () => {
    assert.deepEqual(resolveTargets(config, { kind: 'person', id: 'alice' }, ALICE_WEEK, []), [
      { personId: 'alice', channelId: 'oncall-dm', address: 'alice' },
      { personId: 'alice', channelId: 'mail', address: 'alice@example.com' },
    ]);
  });

  it('schedule: the contacts of whoever is on call at the instant, an override first', () => {
    assert.deepEqual(resolveTargets(config, { kind: 'schedule', id: 'primary' }, BOB_WEEK, []), [{ personId: 'bob', channelId: 'oncall-dm', address: 'bob' }]);
    const swap: Override = { id: 'o1', agentId: 'a', scheduleId: 'primary', personId: 'bob', fromMs: ALICE_WEEK - 1000, toMs: ALICE_WEEK + 1000 };
    assert.deepEqual(resolveTargets(config, { kind: 'schedule', id: 'primary' }, ALICE_WEEK, [swap]), [{ personId: 'bob', channelId: 'oncall-dm', address: 'bob' }]);
    assert.deepEqual(resolveTargets(config, { kind: 'schedule', id: 'empty' }, ALICE_WEEK, []), []);
  });

  it("channel: the channel's own recipient, no person", () => {
    assert.deepEqual(resolveTargets(config, { kind: 'channel', id: 'team-room' }, ALICE_WEEK, []), [{ personId: null, channelId: 'team-room', address: null }]);
  });

  it('a list: each person and channel once, and the schedules with nobody on call', () => {
    const resolved = resolveAllTargets(config, [
      { kind: 'schedule', id: 'primary' }, { kind: 'person', id: 'alice' }, { kind: 'schedule', id: 'empty' },
      { kind: 'channel', id: 'oncall-dm' }, { kind: 'channel', id: 'oncall-dm' },
    ], ALICE_WEEK, []);
    assert.deepEqual(resolved, {
      recipients: [
        { personId: 'alice', channelId: 'oncall-dm', address: 'alice' },
        { personId: 'alice', channelId: 'mail', address: 'alice@example.com' },
        { personId: null, channelId: 'oncall-dm', address: null },
      ],
      nobodyOnCall: [{ target: { kind: 'schedule', id: 'empty' }, known: true }],
    });
  });
});

describe('a person or override the file no longer has (issue 33.4)', () => {
  it('a step to a channel the agent no longer has reaches nobody and says so, the others as before', () => {
    const r = resolveAllTargets(config, [{ kind: 'channel', id: 'team-room' }, { kind: 'channel', id: 'oncall-dm' }], ALICE_WEEK, [],
      (channelId) => channelId !== 'team-room');
    assert.deepEqual(r, { recipients: [{ personId: null, channelId: 'oncall-dm', address: null }],
      nobodyOnCall: [{ target: { kind: 'channel', id: 'team-room' }, known: false }] });
  });

  it('a step to a person or schedule not in the file reaches nobody and says so: never silence', () => {
    const r = resolveAllTargets(config, [{ kind: 'person', id: 'carol' }, { kind: 'schedule', id: 'gone' }, { kind: 'person', id: 'bob' }], ALICE_WEEK, []);
    assert.deepEqual(r, {
      recipients: [{ personId: 'bob', channelId: 'oncall-dm', address: 'bob' }],
      nobodyOnCall: [{ target: { kind: 'person', id: 'carol' }, known: false }, { target: { kind: 'schedule', id: 'gone' }, known: false }],
    });
  });

  it('an override for a person not in the file never wins over the rotation; one for a known person does', () => {
    const carol: Override = { id: 'o1', agentId: 'a', scheduleId: 'primary', personId: 'carol', fromMs: ALICE_WEEK - 3_600_000, toMs: ALICE_WEEK + 3_600_000 };
    assert.deepEqual(resolveAllTargets(config, [{ kind: 'schedule', id: 'primary' }], ALICE_WEEK, [carol]).recipients.map((r) => r.personId), ['alice', 'alice']);
    assert.deepEqual(resolveAllTargets(config, [{ kind: 'schedule', id: 'primary' }], ALICE_WEEK, [{ ...carol, personId: 'bob' }]).recipients.map((r) => r.personId), ['bob']);
  });
});

describe('routeFor', () => {
  it('the first route whose severities include the decision, else null', () => {
    assert.deepEqual(routeFor(config, 'P2', {}), config.routes[0]);
    assert.deepEqual(routeFor(config, 'P3', {}), config.routes[1]);
    assert.equal(routeFor({ ...config, routes: [config.routes[0] as OncallConfig['routes'][number]] }, 'P3', {}), null);
  });

  it('labels (§24.3): some alert of the delivery matches all of them; =~ is anchored RE2; none matching falls through', () => {
    const storage: Route = { match: { severity: ['P1'], labels: [{ label: 'team', op: '=', value: 'storage' }, { label: 'env', op: '=~', value: 'prod-.*' }] },
      notify: [{ kind: 'person', id: 'bob' }] };
    const routed = { ...config, routes: [storage, ...config.routes] };
    const alerts = (...labels: Array<Record<string, string>>): unknown => ({ status: 'firing', alerts: labels.map((l) => ({ labels: l })) });
    assert.equal(routeFor(routed, 'P1', alerts({ team: 'storage', env: 'prod-eu' })), storage);
    // Another alert in the group does not stop it; the two labels must hold on one alert.
    assert.equal(routeFor(routed, 'P1', alerts({ team: 'web', env: 'dev' }, { team: 'storage', env: 'prod-us' })), storage);
    assert.equal(routeFor(routed, 'P1', alerts({ team: 'storage', env: 'dev' }, { team: 'web', env: 'prod-us' })), config.routes[0]);
    assert.equal(routeFor(routed, 'P1', alerts({ team: 'storage', env: 'xprod-eu' })), config.routes[0]);
    assert.equal(routeFor(routed, 'P2', alerts({ team: 'storage', env: 'prod-eu' })), config.routes[0]);
    assert.equal(routeFor(routed, 'P1', { text: 'no alerts' }), config.routes[0]);
    // A hostile value costs the linear matcher nothing: the pattern that stalled silences.
    const dashes: Route = { ...storage, match: { severity: ['P1'], labels: [{ label: 'host', op: '=~', value: '.*-.*-.*-.*-prod' }] } };
    assert.equal(routeFor({ ...config, routes: [dashes] }, 'P1', alerts({ host: '-'.repeat(250) })), null);
  });
});
