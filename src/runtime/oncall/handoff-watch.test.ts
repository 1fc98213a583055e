/**
 * Handoff timers on a real SQLite store, on fake time (contract §17.6): first sight tells nobody; a
 * shift's start tells its person once, with the exact line they read, and an audit row; a restart
 * neither repeats nor loses a handoff; an override brings the next handoff forward.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HOUR, dailyShifts } from '../../../test/support/oncall-config.js';
import { openSqliteStore } from '../../store/sqlite/sqlite-store.js';
import type { Store } from '../../store/store.js';
import { watchHandoffs } from './handoff-watch.js';

const root = mkdtempSync(join(tmpdir(), 'svc-handoff-'));
after(() => rmSync(root, { recursive: true, force: true }));

const config = dailyShifts({ alice: { 'oncall-dm': 'alice', mail: 'alice@example.com' }, bob: { 'oncall-dm': 'bob' } });
const configs = new Map([['agent-a', config]]);
const T0 = Date.parse('2026-11-24T12:00:00Z'); // bob's shift, under way

const told = async (store: Store) => (await store.oncall.claimNotifications('test', Date.parse('2030-01-01T00:00:00Z'), 1000, 100)).claimed
  .map((c) => [c.notification.person, c.notification.channelId, c.notification.to, c.notification.text]);

describe('schedule handoff timers (§17.6)', () => {
  it('tells the incoming person once when the shift starts; a restart neither repeats nor loses it', async () => {
    const path = join(root, 'a', 'svc.db');
    let store = await openSqliteStore({ path });
    assert.equal(await watchHandoffs(store, configs, T0), 0, 'first sight: the shift under way was not just handed over');
    assert.deepEqual(await store.oncall.listHandoffs(), [{ agentId: 'agent-a', scheduleId: 'primary', nextMs: Date.parse('2026-11-25T08:00:00Z') }]);
    assert.equal(await watchHandoffs(store, configs, Date.parse('2026-11-25T07:59:59Z')), 0, 'not yet');
    assert.deepEqual(await told(store), []);

    assert.equal(await watchHandoffs(store, configs, Date.parse('2026-11-25T08:00:01Z')), 1);
    assert.equal(await watchHandoffs(store, configs, Date.parse('2026-11-25T08:00:02Z')), 0, 'told once');
    assert.deepEqual(await told(store), [
      ['alice', 'oncall-dm', 'alice', 'You are on call for primary until 2026-11-26 09:00 Europe/Berlin.'],
      ['alice', 'mail', 'alice@example.com', 'You are on call for primary until 2026-11-26 09:00 Europe/Berlin.']]);
    const rows = (await store.listAudit({ limit: 10, cursor: null, order: 'asc', sinceMs: null, untilMs: null }, { kind: 'schedule.handoff' })).items;
    assert.deepEqual(rows.map((r) => JSON.parse(r.dataText ?? 'null') as unknown), [{ schedule: 'primary', at: '2026-11-25T08:00:00.000Z',
      person: 'alice', source: 'rotation', until: '2026-11-26T08:00:00.000Z' }]);

    // A restart: the timer is in the store. The handoff passed while the daemon was down is told late, once.
    await store.close();
    store = await openSqliteStore({ path });
    assert.equal(await watchHandoffs(store, configs, Date.parse('2026-11-25T09:00:00Z')), 0, 'not repeated after a restart');
    assert.equal(await watchHandoffs(store, configs, Date.parse('2026-11-26T08:30:00Z')), 1, 'the handoff during the downtime');
    assert.deepEqual((await told(store)).map((t) => t[0]), ['bob']);
    await store.close();
  });

  it('an override brings the next handoff forward: its person is told when it starts', async () => {
    const store = await openSqliteStore({ path: join(root, 'b', 'svc.db') });
    await watchHandoffs(store, configs, T0);
    await store.oncall.addOverride({ id: 'o1', agentId: 'agent-a', scheduleId: 'primary', personId: 'alice', fromMs: T0 + HOUR, toMs: T0 + 3 * HOUR,
      createdAtMs: T0, createdBy: 'cli:test' }, T0);
    await watchHandoffs(store, configs, T0 + 1000);
    assert.equal((await store.oncall.listHandoffs())[0]?.nextMs, T0 + HOUR);
    assert.equal(await watchHandoffs(store, configs, T0 + HOUR), 1);
    assert.deepEqual((await told(store)).map((t) => [t[0], t[1], t[3]]), [['alice', 'oncall-dm', 'You are on call for primary until 2026-11-24 16:00 Europe/Berlin.'],
      ['alice', 'mail', 'You are on call for primary until 2026-11-24 16:00 Europe/Berlin.']]);
    await store.close();
  });
});
