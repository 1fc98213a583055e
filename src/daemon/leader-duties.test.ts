import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { createMetrics } from '../metrics/registry.js';
import { createSourceStats } from '../metrics/source-stats.js';
import type { Store } from '../store/store.js';
import { startLeaderDuties } from './leader-duties.js';

const LEASE_MS = 3_000;

/** The leader lease as a store answers it: held while `holds` says so. */
function leaseStore(holds: () => boolean): Store {
  return {
    acquireLeadership: () => Promise.resolve(holds()),
    releaseLeadership: () => Promise.resolve(),
    prune: () => Promise.resolve({ events: 0, deadLetters: 0, fingerprints: 0 }),
  } as unknown as Store;
}

describe('leader duties: duties added later (the receipt duty, §21.3)', () => {
  it('an added duty runs while this replica leads, stops when the lease is lost, runs again when it comes back, and ends for good with its handle', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    let holds = true;
    const reports: string[] = [];
    const duties = await startLeaderDuties({ store: leaseStore(() => holds), clock, holder: 'replica-a', leaseMs: LEASE_MS, audit: null,
      auditMetrics: createMetrics({ stats: createSourceStats(), agents: [] }).audit, retention: { eventsMs: null, deadLettersMs: null },
      windowMs: 60_000, hostname: 'h', pid: 1, log: () => undefined, checkpointsPath: '/nonexistent', report: (l) => reports.push(l) });
    const events: string[] = [];
    let n = 0;
    const handle = duties.add({ start: () => {
      const id = ++n;
      events.push(`start ${id}`);
      return { close: () => { events.push(`close ${id}`); return Promise.resolve(); } };
    } });
    assert.deepEqual(events, ['start 1'], 'leading: started at once');
    holds = false;
    await clock.advanceAsync(LEASE_MS / 3);
    assert.deepEqual(events, ['start 1', 'close 1']);
    holds = true;
    await clock.advanceAsync(LEASE_MS / 3);
    assert.deepEqual(events, ['start 1', 'close 1', 'start 2']);
    await handle.close();
    holds = false;
    await clock.advanceAsync(LEASE_MS / 3);
    holds = true;
    await clock.advanceAsync(LEASE_MS / 3);
    assert.deepEqual(events, ['start 1', 'close 1', 'start 2', 'close 2'], 'closed by its handle: never started again');
    assert.equal(reports.filter((r) => r.startsWith('leader lease taken')).length, 3, 'the lease was taken a third time: the duty had its chance');
    await duties.close();
  });

  it('a duty added while another replica leads waits for the lease', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1));
    let holds = false;
    const duties = await startLeaderDuties({ store: leaseStore(() => holds), clock, holder: 'replica-b', leaseMs: LEASE_MS, audit: null,
      auditMetrics: createMetrics({ stats: createSourceStats(), agents: [] }).audit, retention: { eventsMs: null, deadLettersMs: null },
      windowMs: 60_000, hostname: 'h', pid: 1, log: () => undefined, checkpointsPath: '/nonexistent', report: () => undefined });
    const events: string[] = [];
    duties.add({ start: () => { events.push('start'); return { close: () => { events.push('close'); return Promise.resolve(); } }; } });
    assert.deepEqual(events, []);
    holds = true;
    await clock.advanceAsync(LEASE_MS / 3);
    assert.deepEqual(events, ['start']);
    await duties.close();
    assert.deepEqual(events, ['start', 'close']);
  });
});
