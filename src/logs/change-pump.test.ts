import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { FakeClock } from '../core/clock.js';
import { createChangePump } from './change-pump.js';
import type { ChangePump } from './change-pump.js';
import { fanOutLingerMs } from './file-tailer.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('change pump: coalescing on fake time', () => {
  let dir: string;
  let clock: FakeClock;
  let checks: number;
  let pump: ChangePump;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-change-pump-'));
    clock = fakeClock();
    checks = 0;
    pump = createChangePump({
      dir, name: 'a.log', clock, pollMs: 3_600_000, lingerMs: () => 20,
      // Each check "delivers lines", as the shared reader does when a read found some.
      check: () => { checks += 1; pump.delivered(); return Promise.resolve(); },
      onCheckError: (err) => { throw err; },
      onStopped: () => {},
    });
  });

  afterEach(() => {
    pump.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends during the linger are read by one check at its end, with one timer armed for it', async () => {
    pump.start();
    await pump.ready;
    assert.equal(checks, 1, 'the first look');
    for (let k = 0; k < 1000; k++) pump.kick(false); // a thousand appends right after a delivery
    await turn();
    assert.equal(checks, 1, 'nothing read during the linger');
    assert.equal(clock.pendingTimers(), 2, 'the safety poll and one linger timer, whatever the number of kicks');
    clock.advance(19);
    await turn();
    assert.equal(checks, 1);
    clock.advance(1);
    await turn();
    assert.equal(checks, 2, 'one read takes them all');
    await turn();
    assert.equal(checks, 2, 'and no second one for the folded kicks');
  });

  it('a kick long after the last delivery is read at once', async () => {
    pump.start();
    await pump.ready;
    clock.advance(1000);
    pump.kick(false);
    await turn();
    assert.equal(checks, 2);
  });
});

describe('fan-out linger', () => {
  it('no pause under 50 subscribers, n / 50 ms above, 20 ms from 1,000 on', () => {
    assert.deepEqual([0, 1, 49, 50, 100, 500, 999, 1000, 100_000].map(fanOutLingerMs), [0, 0, 0, 1, 2, 10, 19, 20, 20]);
  });
});
