/**
 * `svc oncall override add|rm` (and the console's, the same request) on a real SQLite store, on fake
 * time (contract §17.6): an override that changes who is on call now tells the new person at once,
 * in the override's own commit; one that does not tells nobody now, and the handoff timer announces
 * what comes later as before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { HOUR, dailyShifts } from '../../test/support/oncall-config.js';
import { watchHandoffs } from '../runtime/oncall/handoff-watch.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { executeOncall } from './admin-oncall.js';

const root = mkdtempSync(join(tmpdir(), 'svc-admin-oncall-'));
after(() => rmSync(root, { recursive: true, force: true }));

const config = dailyShifts({ alice: { 'oncall-dm': 'alice' }, bob: { 'oncall-dm': 'bob', mail: 'bob@example.com' } });
const configs = new Map([['agent-a', config]]);
const ROTATION_NEXT = Date.parse('2026-11-26T08:00:00Z');

async function setUp(name: string) {
  const clock = fakeClock(Date.parse('2026-11-26T02:00:00Z')); // 03:00 in Berlin: alice's night
  const store = await openSqliteStore({ path: join(root, name, 'svc.db') });
  await watchHandoffs(store, configs, clock.now()); // the daemon has seen the schedule: its timer runs
  const deps = { store, clock, engine: null, configs };
  const add = async (person: string, fromMs: number, toMs: number, console = false) => {
    const answer = await executeOncall(deps, { op: 'override.add', schedule: 'primary', person, fromMs, toMs, user: console ? 'console' : 'dana',
      ...(console ? { via: 'console' as const, actor: 'oidc:dana@example.com' } : {}) });
    assert.ok(answer.ok && answer.op === 'override.add', JSON.stringify(answer));
    return answer.id;
  };
  const rm = (id: string) => executeOncall(deps, { op: 'override.rm', id, user: 'dana' });
  return { clock, store, add, rm };
}

const rows = async (store: Store) => (await store.listAudit({ limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, {})).items
  .filter((r) => r.kind.startsWith('schedule.')).map((r) => ({ seq: r.seq, kind: r.kind, data: JSON.parse(r.dataText ?? '{}') as Record<string, unknown> }));
// Claimed for good (a lease longer than the test): each call lists only the notices written since the last.
const told = async (store: Store, nowMs: number) => (await store.oncall.claimNotifications('test', nowMs, 30 * 24 * HOUR, 100)).claimed
  .map((c) => [c.notification.deliveryId, c.notification.to, c.notification.text]);
const timer = async (store: Store) => (await store.oncall.listHandoffs())[0]?.nextMs;

describe('override add/rm tells the person on call now (§17.6)', () => {
  it('"I take over now": bob is told at once on every contact, in the commit of schedule.override.added; the timer then tells alice at its end', async () => {
    const { clock, store, add } = await setUp('add');
    const id = await add('bob', clock.now() - 5000, clock.now() + HOUR, true);
    const audit = await rows(store);
    assert.deepEqual(audit.map((r) => [r.kind, r.data.person, r.data.source ?? null]), [['schedule.override.added', 'bob', null],
      ['schedule.handoff', 'bob', 'override']]);
    assert.equal(audit[1]?.seq, (audit[0]?.seq ?? 0) + 1, 'the handoff row follows the override row');
    assert.deepEqual(audit[0]?.data.via, 'console', 'the console\'s request takes the same path');
    assert.deepEqual(audit[1]?.data, { schedule: 'primary', at: '2026-11-26T02:00:00.000Z', person: 'bob', source: 'override',
      until: '2026-11-26T03:00:00.000Z' });
    assert.deepEqual(await told(store, clock.now()), [
      [`handoff.primary.${id}-add.bob.oncall-dm`, 'bob', 'You are on call for primary until 2026-11-26 04:00 Europe/Berlin.'],
      [`handoff.primary.${id}-add.bob.mail`, 'bob@example.com', 'You are on call for primary until 2026-11-26 04:00 Europe/Berlin.']]);

    clock.advance(1000);
    assert.equal(await watchHandoffs(store, configs, clock.now()), 0, 'the timer does not tell bob again');
    assert.equal(await timer(store), clock.now() - 1000 + HOUR, 'the timer moved to the override\'s end');
    clock.advance(HOUR);
    assert.equal(await watchHandoffs(store, configs, clock.now()), 1, 'the end is announced as before');
    assert.deepEqual((await told(store, clock.now())).map((t) => t[2]), ['You are on call for primary until 2026-11-26 09:00 Europe/Berlin.']);
    await store.close();
  });

  it('rm of the override in force tells alice, the rotation\'s person, once; the timer goes back to the rotation\'s next change', async () => {
    const { clock, store, add, rm } = await setUp('rm');
    const id = await add('bob', clock.now() - 5000, clock.now() + HOUR);
    await watchHandoffs(store, configs, clock.now());
    await told(store, clock.now());
    clock.advance(10 * 60_000);
    assert.deepEqual(await rm(id), { ok: true, op: 'override.rm', id });
    assert.deepEqual(await rm(id), { ok: false, error: `no override ${id}` }, 'a retry tells nobody twice');
    const audit = await rows(store);
    assert.deepEqual(audit.slice(2).map((r) => [r.kind, r.data.person]), [['schedule.override.removed', 'bob'], ['schedule.handoff', 'alice']]);
    assert.equal(audit[3]?.seq, (audit[2]?.seq ?? 0) + 1);
    assert.deepEqual(await told(store, clock.now()), [
      [`handoff.primary.${id}-rm.alice.oncall-dm`, 'alice', 'You are on call for primary until 2026-11-26 09:00 Europe/Berlin.']]);

    await watchHandoffs(store, configs, clock.now() + 1000);
    assert.equal(await timer(store), ROTATION_NEXT);
    assert.equal(await watchHandoffs(store, configs, clock.now() + HOUR), 0, 'the removed override\'s end tells nobody');
    assert.equal((await rows(store)).length, 4);
    await store.close();
  });

  it('an override in the future, or one naming the person on call, tells nobody now; the future one is told when it starts', async () => {
    const { clock, store, add, rm } = await setUp('future');
    const same = await add('alice', clock.now() - 5000, clock.now() + HOUR);
    const later = await add('bob', clock.now() + HOUR, clock.now() + 2 * HOUR);
    assert.deepEqual((await store.oncall.listOverrides('agent-a', clock.now())).map((o) => o.id).sort(), [same, later].sort());
    assert.deepEqual(await rm(same), { ok: true, op: 'override.rm', id: same });
    await watchHandoffs(store, configs, clock.now() + 1000);
    assert.equal(await timer(store), clock.now() + HOUR, 'the timer moved to the future override\'s start');
    assert.deepEqual((await rows(store)).map((r) => r.kind), ['schedule.override.added', 'schedule.override.added', 'schedule.override.removed']);
    assert.deepEqual(await told(store, clock.now()), []);

    assert.equal(await watchHandoffs(store, configs, clock.now() + HOUR), 1);
    assert.deepEqual((await told(store, clock.now() + HOUR)).map((t) => t[0]), [`handoff.primary.${clock.now() + HOUR}.bob.oncall-dm`,
      `handoff.primary.${clock.now() + HOUR}.bob.mail`]);
    await store.close();
  });
});

describe('override ls: the overrides in force now or to come (§17.6)', () => {
  // agent-a has primary and secondary, agent-b a primary of its own: the filters have something to tell apart.
  const two = new Map([['agent-a', { ...config, schedules: [...config.schedules, { ...config.schedules[0]!, id: 'secondary' }] }], ['agent-b', config]]);

  it('lists current and future ones soonest first, not the ended; --schedule and --agent narrow it; a name it does not know is said so', async () => {
    const clock = fakeClock(Date.parse('2026-11-26T02:00:00Z'));
    const store = await openSqliteStore({ path: join(root, 'ls', 'svc.db') });
    const deps = { store, clock, engine: null, configs: two };
    const add = async (agent: string, schedule: string, person: string, fromMs: number, toMs: number) => {
      const answer = await executeOncall(deps, { op: 'override.add', agent, schedule, person, fromMs, toMs, user: 'dana' });
      assert.ok(answer.ok && answer.op === 'override.add', JSON.stringify(answer));
      return answer.id;
    };
    const ls = async (filter: { schedule?: string; agent?: string } = {}) => {
      const answer = await executeOncall(deps, { op: 'override.ls', ...filter, user: 'dana' });
      return answer.ok && answer.op === 'override.ls' ? answer.overrides.map((o) => o.id) : answer;
    };
    const now = clock.now();
    const ending = await add('agent-a', 'primary', 'bob', now - HOUR, now + 10 * 60_000);
    const late = await add('agent-b', 'primary', 'alice', now + 5 * HOUR, now + 6 * HOUR);
    const soon = await add('agent-a', 'secondary', 'bob', now + 2 * HOUR, now + 3 * HOUR);
    const current = await add('agent-a', 'primary', 'alice', now - 5000, now + HOUR);
    assert.deepEqual(await ls(), [ending, current, soon, late], 'by start, whatever the order they were added in');

    clock.advance(10 * 60_000); // `ending` ends now: its span is [from, to)
    assert.deepEqual(await ls(), [current, soon, late]);
    const answer = await executeOncall(deps, { op: 'override.ls', user: 'dana' });
    assert.ok(answer.ok && answer.op === 'override.ls');
    assert.deepEqual(answer.overrides[0], { id: current, agentId: 'agent-a', scheduleId: 'primary', personId: 'alice', fromMs: now - 5000,
      toMs: now + HOUR, createdAtMs: now, createdBy: 'cli:dana' });

    assert.deepEqual(await ls({ schedule: 'primary' }), [current, late]);
    assert.deepEqual(await ls({ agent: 'agent-a' }), [current, soon]);
    assert.deepEqual(await ls({ schedule: 'primary', agent: 'agent-b' }), [late]);
    assert.deepEqual(await executeOncall(deps, { op: 'override.rm', id: soon, user: 'dana' }), { ok: true, op: 'override.rm', id: soon });
    assert.deepEqual(await ls({ schedule: 'secondary' }), [], 'a schedule without overrides: none');
    assert.deepEqual(await ls({ schedule: 'nope' }), { ok: false, error: 'no schedule nope' });
    assert.deepEqual(await ls({ schedule: 'secondary', agent: 'agent-b' }), { ok: false, error: 'no schedule secondary in agent agent-b' });
    assert.deepEqual(await ls({ agent: 'agent-z' }), { ok: false, error: 'no agent agent-z with an oncall.yaml' });
    await store.close();
  });

  it('an override of a schedule since dropped from oncall.yaml is still listed by its name', async () => {
    const clock = fakeClock(Date.parse('2026-11-26T02:00:00Z'));
    const store = await openSqliteStore({ path: join(root, 'ls-dropped', 'svc.db') });
    const added = await executeOncall({ store, clock, engine: null, configs: two },
      { op: 'override.add', agent: 'agent-a', schedule: 'secondary', person: 'bob', fromMs: clock.now() + HOUR, toMs: clock.now() + 2 * HOUR, user: 'dana' });
    assert.ok(added.ok && added.op === 'override.add');
    const answer = await executeOncall({ store, clock, engine: null, configs }, { op: 'override.ls', schedule: 'secondary', user: 'dana' });
    assert.ok(answer.ok && answer.op === 'override.ls', JSON.stringify(answer));
    assert.deepEqual(answer.overrides.map((o) => o.id), [added.id]);
    await store.close();
  });
});
