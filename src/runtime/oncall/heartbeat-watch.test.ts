import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pagingConfig } from '../../../test/support/oncall-config.js';
import { sharedSqliteStore } from '../../../test/support/shared-store.js';
import { fakeClock } from '../../core/clock.js';
import type { PageRecord } from '../../oncall/page.js';
import type { PageQuery } from '../../store/store.js';
import { watchHeartbeats } from './heartbeat-watch.js';
import { createPageEngine } from './page-engine.js';

const T0 = Date.UTC(2026, 10, 23, 10);
const S = 1000;
const all: PageQuery = { limit: 100, cursor: null, order: 'asc', sinceMs: null, untilMs: null };
const shared = sharedSqliteStore('svc-heartbeat-watch-');
after(() => shared.close());

/** A heartbeat every 10 s, no grace, paging `default`; the page's reopen window as the case says. */
async function setup(reopenWindowMs: number) {
  const store = await shared.fresh();
  const clock = fakeClock(T0);
  const config = pagingConfig({ reopenWindowMs,
    heartbeats: [{ id: 'watchdog', source: 'am', match: { alertname: 'Watchdog' }, everyMs: 10 * S, graceMs: 0, policy: 'default' }] });
  const configs = new Map([['agent-a', config]]);
  const engine = createPageEngine({ store, clock, configs });
  const watch = async (atMs: number): Promise<void> => {
    clock.set(atMs);
    await watchHeartbeats({ store, engine, configs }, atMs);
  };
  const pages = async (): Promise<PageRecord[]> => (await store.oncall.listPages(all, {})).items as PageRecord[];
  const kinds = async (kind: string): Promise<number> => (await store.listAudit(all, { kind })).items.length;
  await store.oncall.touchHeartbeats('agent-a', ['watchdog'], T0);
  return { store, clock, engine, watch, pages, kinds };
}

describe('heartbeat watch (§17.7)', () => {
  for (const [name, reopenWindowMs] of [['a new page', 0], ['the page reopened', 3_600_000]] as const) {
    it(`a missing-heartbeat page resolved by hand ends that miss, not the watch: the next miss pages again (${name})`, async () => {
      const { store, engine, watch, pages, kinds } = await setup(reopenWindowMs);
      await watch(T0 + 11 * S);
      const [first] = await pages();
      assert.equal(first?.state, 'triggered');
      assert.equal(first.incidentKey, 'heartbeat:watchdog');
      // Reports count pages per alert name: the heartbeat's is its key.
      assert.equal(JSON.parse((await store.listAudit(all, { kind: 'page.opened' })).items[0]?.dataText ?? '{}').alertname, 'heartbeat:watchdog');
      const resolved = await engine.act(first.id, { kind: 'resolve', note: null }, { actor: 'cli:op', by: 'op', via: 'cli' });
      assert.equal(resolved.ok, true);
      await watch(T0 + 15 * S);
      assert.equal(await kinds('heartbeat.missed'), 1, 'inside every + grace of the resolution: not yet');
      await watch(T0 + 12 * S + 11 * S);
      const now = await pages();
      assert.deepEqual(now.map((p) => p.state), reopenWindowMs === 0 ? ['resolved', 'triggered'] : ['triggered']);
      assert.equal(await kinds('heartbeat.missed'), 2);
      assert.equal(await kinds('page.opened'), 2);
      await watch(T0 + 40 * S);
      assert.equal(await kinds('page.opened'), 2, 'one page for the miss, however often the watch looks');
    });
  }

  it('a reopened page stays open until a delivery after its reopening: the one that resolved its last opening does not', async () => {
    const { store, watch, pages, kinds } = await setup(3_600_000);
    await watch(T0 + 11 * S);
    await store.oncall.touchHeartbeats('agent-a', ['watchdog'], T0 + 12 * S);
    await watch(T0 + 13 * S);
    assert.deepEqual((await pages()).map((p) => p.state), ['resolved']);
    await watch(T0 + 23 * S);
    const [reopened] = await pages();
    assert.equal(reopened?.state, 'triggered');
    assert.equal(reopened.reopens, 1);
    await watch(T0 + 24 * S);
    await watch(T0 + 25 * S);
    assert.equal((await pages())[0]?.state, 'triggered', 'the delivery at 12 s came before the reopening');
    await store.oncall.touchHeartbeats('agent-a', ['watchdog'], T0 + 26 * S);
    await watch(T0 + 27 * S);
    assert.equal((await pages())[0]?.state, 'resolved', 'the next delivery resolves it');
    assert.equal(await kinds('page.resolved'), 2);
  });
});
