import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKnownZone, naiveDayAndMinute, parseLocalDateTime, zoneTime } from './zone-time.js';

const naive = (text: string): number => parseLocalDateTime(text) as number;
const utc = (ms: number): string => new Date(ms).toISOString();

describe('zoneTime', () => {
  it('ordinary local times both ways, in winter and summer', () => {
    const berlin = zoneTime('Europe/Berlin');
    assert.equal(utc(berlin.toInstant(naive('2026-01-15T09:00'))), '2026-01-15T08:00:00.000Z');
    assert.equal(utc(berlin.toInstant(naive('2026-07-15T09:00'))), '2026-07-15T07:00:00.000Z');
    assert.equal(berlin.toNaive(Date.parse('2026-07-15T07:00:00Z')), naive('2026-07-15T09:00'));
    assert.equal(berlin.offsetMinutes(Date.parse('2026-03-29T00:59:59Z')), 60);
    assert.equal(berlin.offsetMinutes(Date.parse('2026-03-29T01:00:00Z')), 120);
  });

  it('a local time in the gap is read with the offset before it; one in the overlap is its first occurrence', () => {
    const ny = zoneTime('America/New_York');
    // 2026-03-08 02:30 does not exist in New York: 02:30 EST = 07:30Z = 03:30 EDT.
    assert.equal(utc(ny.toInstant(naive('2026-03-08T02:30'))), '2026-03-08T07:30:00.000Z');
    // 2026-11-01 01:30 happens twice: first in EDT (05:30Z), then in EST (06:30Z).
    assert.equal(utc(ny.toInstant(naive('2026-11-01T01:30'))), '2026-11-01T05:30:00.000Z');
    const berlin = zoneTime('Europe/Berlin');
    assert.equal(utc(berlin.toInstant(naive('2026-03-29T02:30'))), '2026-03-29T01:30:00.000Z');
    assert.equal(utc(berlin.toInstant(naive('2026-10-25T02:30'))), '2026-10-25T00:30:00.000Z');
  });

  it('zones, dates and weekdays', () => {
    assert.equal(isKnownZone('Europe/Berlin'), true);
    assert.equal(isKnownZone('Mars/Olympus_Mons'), false);
    assert.throws(() => zoneTime('Mars/Olympus_Mons'), /unknown time zone "Mars\/Olympus_Mons"/);
    assert.equal(parseLocalDateTime('2026-02-29T09:00'), null);
    assert.equal(parseLocalDateTime('2028-02-29T09:00'), Date.UTC(2028, 1, 29, 9, 0));
    assert.equal(parseLocalDateTime('2026-01-01T24:00'), null);
    // 2026-11-23 is a Monday (0).
    assert.deepEqual(naiveDayAndMinute(naive('2026-11-23T09:30')), { weekday: 0, minute: 570, dayStartMs: naive('2026-11-23T00:00') });
    assert.equal(naiveDayAndMinute(naive('2026-11-29T23:59')).weekday, 6);
  });
});
