import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Override, Schedule } from '../oncall/oncall-config.js';
import type { VendorRendering } from './verify-rendering.js';
import { MAX_VERIFY_MS, compareRendering, withSharedWindow } from './verify-rendering.js';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-23T08:00:00Z'); // Monday 09:00 in Berlin
// alice and bob take turns of a day from Monday 09:00 Berlin.
const daily: Schedule = { id: 'primary', timeZone: 'Europe/Berlin', fallback: null, allowGaps: false,
  rotations: [{ people: ['alice', 'bob'], everyMs: 24 * HOUR, handoff: '2026-11-23T09:00', only: [], timeZone: 'Europe/Berlin' }] };
const rendering = (spans: VendorRendering['spans'], fromMs = T0, toMs = T0 + 4 * 24 * HOUR): VendorRendering =>
  ({ scheduleId: 'primary', source: 'schedule Primary', file: 'x.json', fromMs, toMs, spans });
const day = (n: number, people: string[]) => ({ startMs: T0 + n * 24 * HOUR, endMs: T0 + (n + 1) * 24 * HOUR, people });

describe('compareRendering', () => {
  it('finds nothing where the vendor and svc agree at every instant', () => {
    const outcome = compareRendering(daily, [], rendering([day(0, ['alice']), day(1, ['bob']), day(2, ['alice']), day(3, ['bob'])]));
    assert.deepEqual(outcome.differences, []);
    assert.equal(outcome.cut, false);
  });

  it('finds a one-minute difference, a gap on either side, and two people at once', () => {
    const spans = [
      { startMs: T0, endMs: T0 + 24 * HOUR - 60_000, people: ['alice'] }, { startMs: T0 + 24 * HOUR - 60_000, endMs: T0 + 24 * HOUR, people: ['bob'] },
      day(1, ['bob']),
      { startMs: T0 + 2 * 24 * HOUR, endMs: T0 + 2 * 24 * HOUR + HOUR, people: ['alice', 'carol'] },
      { startMs: T0 + 2 * 24 * HOUR + HOUR, endMs: T0 + 3 * 24 * HOUR, people: ['alice'] },
    ];
    assert.deepEqual(compareRendering(daily, [], rendering(spans)).differences, [
      { scheduleId: 'primary', fromMs: T0 + 24 * HOUR - 60_000, toMs: T0 + 24 * HOUR, vendor: ['bob'], svc: 'alice' },
      { scheduleId: 'primary', fromMs: T0 + 2 * 24 * HOUR, toMs: T0 + 2 * 24 * HOUR + HOUR, vendor: ['alice', 'carol'], svc: 'alice' },
      { scheduleId: 'primary', fromMs: T0 + 3 * 24 * HOUR, toMs: T0 + 4 * 24 * HOUR, vendor: [], svc: 'bob' },
    ]);
  });

  it('asks svc with the imported overrides of that schedule only', () => {
    const overrides: Override[] = [
      { id: 'o1', agentId: 'a', scheduleId: 'primary', personId: 'carol', fromMs: T0 + HOUR, toMs: T0 + 2 * HOUR },
      { id: 'o2', agentId: 'a', scheduleId: 'other', personId: 'dave', fromMs: T0, toMs: T0 + 24 * HOUR },
    ];
    const spans = [{ startMs: T0, endMs: T0 + HOUR, people: ['alice'] }, { startMs: T0 + HOUR, endMs: T0 + 2 * HOUR, people: ['carol'] },
      { startMs: T0 + 2 * HOUR, endMs: T0 + 24 * HOUR, people: ['alice'] }];
    assert.deepEqual(compareRendering(daily, overrides, rendering(spans, T0, T0 + 24 * HOUR)).differences, []);
  });

  it('compares at most 28 days and says so', () => {
    const outcome = compareRendering(daily, [], rendering([], T0, T0 + 40 * 24 * HOUR));
    assert.equal(outcome.toMs - outcome.fromMs, MAX_VERIFY_MS);
    assert.equal(outcome.cut, true);
    assert.equal(outcome.differences.length, 28, 'svc has someone each day where the vendor has nobody');
  });

  it('gives renderings without a stated window the earliest start to the latest end of all', () => {
    const shared = withSharedWindow([
      { scheduleId: 'a', source: 'a', file: 'a', spans: [{ startMs: 10, endMs: 50, people: ['x'] }] },
      { scheduleId: 'b', source: 'b', file: 'b', spans: [{ startMs: 20, endMs: 90, people: ['y'] }] },
    ]);
    assert.deepEqual(shared.map((r) => [r.fromMs, r.toMs]), [[10, 90], [10, 90]]);
    assert.deepEqual(withSharedWindow([{ scheduleId: 'a', source: 'a', file: 'a', spans: [] }]), []);
  });
});
