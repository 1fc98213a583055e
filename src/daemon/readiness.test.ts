/**
 * Readiness on fake time with a store whose probe write is injected (the seam): failing, hanging,
 * recovering. The real condition — a store on a file system that stops taking writes — is in
 * test/operations.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { createReadiness } from './readiness.js';

function setup() {
  const clock = fakeClock(Date.UTC(2026, 0, 1));
  const state = { probe: (): Promise<void> => Promise.resolve(), probes: 0, down: [] as string[], stopping: false, reports: [] as string[],
    pager: [] as string[] };
  const readiness = createReadiness({
    store: { probeWrite: () => { state.probes += 1; return state.probe(); } },
    clock, notListening: () => state.down, stopping: () => state.stopping, report: (l) => state.reports.push(l),
    pagerProblems: () => state.pager,
  });
  return { clock, state, readiness };
}

describe('readiness', () => {
  it('is ready when the probe write succeeds and every listener listens', async () => {
    const { readiness, state } = setup();
    assert.deepEqual(await readiness(), { ready: true, reasons: [] });
    assert.deepEqual(state.reports, ['readiness: ready']);
  });

  it('a failing probe write makes it not ready, with the detail reported once; it recovers', async () => {
    const { readiness, state, clock } = setup();
    state.probe = () => Promise.reject(new Error('SQLITE_FULL: database or disk is full'));
    assert.deepEqual(await readiness(), { ready: false, reasons: ['store-not-writable'] });
    clock.advance(1_000);
    assert.deepEqual(await readiness(), { ready: false, reasons: ['store-not-writable'] });
    assert.deepEqual(state.reports, ['readiness: not ready (store-not-writable; store: SQLITE_FULL: database or disk is full)']);
    state.probe = () => Promise.resolve();
    clock.advance(1_000);
    assert.deepEqual(await readiness(), { ready: true, reasons: [] });
    assert.equal(state.reports.at(-1), 'readiness: ready');
  });

  it('a probe that hangs is not-ready after the timeout', async () => {
    const { readiness, state, clock } = setup();
    state.probe = () => new Promise(() => undefined);
    const answer = readiness();
    await clock.advanceAsync(2_000);
    assert.deepEqual(await answer, { ready: false, reasons: ['store-not-writable'] });
    assert.match(state.reports[0] ?? '', /no answer within 2000 ms/);
  });

  it('names listeners that are down and a daemon that is stopping', async () => {
    const { readiness, state } = setup();
    state.down = ['127.0.0.1:8787'];
    state.stopping = true;
    assert.deepEqual(await readiness(), { ready: false, reasons: ['stopping', 'ingest-not-listening'] });
  });

  it('a pager whose loops fail or stall is not ready, though the store takes writes (pages would not escalate)', async () => {
    const { readiness, state, clock } = setup();
    state.pager = ['page timers: 5 passes failed in a row (last: SQLITE_ERROR: no such table: pages)'];
    assert.deepEqual(await readiness(), { ready: false, reasons: ['pages-stalled'] });
    assert.deepEqual(state.reports, ['readiness: not ready (pages-stalled; page timers: 5 passes failed in a row (last: SQLITE_ERROR: no such table: pages))']);
    state.pager = [];
    clock.advance(1_000);
    assert.deepEqual(await readiness(), { ready: true, reasons: [] });
  });

  it('concurrent probes share one write, and a result is reused for a second', async () => {
    const { readiness, state, clock } = setup();
    await Promise.all([readiness(), readiness(), readiness()]);
    assert.equal(state.probes, 1);
    await readiness();
    assert.equal(state.probes, 1);
    clock.advance(1_000);
    await readiness();
    assert.equal(state.probes, 2);
  });
});
