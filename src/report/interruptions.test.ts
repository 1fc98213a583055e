import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketAt, zoneBuckets } from './interruptions.js';

const utc = (iso: string): number => Date.parse(`${iso}Z`);

describe('interruption buckets, in the person\'s own zone', () => {
  it('business Mon–Fri 08:00–18:00, off hours 18:00–22:00 and weekend days, sleep 22:00–08:00; each edge belongs to the bucket it opens', () => {
    // 2026-11-23 is a Monday; Berlin is UTC+1 in November.
    const berlin = (local: string): string => bucketAt(utc(local) - 3_600_000, 'Europe/Berlin');
    assert.deepEqual(['2026-11-23T07:59:59', '2026-11-23T08:00', '2026-11-23T17:59:59', '2026-11-23T18:00', '2026-11-23T21:59:59',
      '2026-11-23T22:00', '2026-11-24T00:00', '2026-11-27T12:00'].map(berlin),
    ['sleep', 'business', 'business', 'offHours', 'offHours', 'sleep', 'sleep', 'business']);
    assert.deepEqual(['2026-11-28T07:59', '2026-11-28T08:00', '2026-11-28T12:00', '2026-11-29T21:59', '2026-11-29T22:00', '2026-11-30T08:00'].map(berlin),
      ['sleep', 'offHours', 'offHours', 'offHours', 'sleep', 'business'], 'Saturday and Sunday have no business hours; Monday does');
  });

  it('follows DST: the same UTC instant is sleep in winter and business in summer; a night that loses an hour keeps its edges', () => {
    // 06:30 UTC on a Monday: 07:30 in Berlin before the change (CET), 08:30 after (CEST, from 2026-03-29).
    assert.equal(bucketAt(utc('2026-03-23T06:30'), 'Europe/Berlin'), 'sleep');
    assert.equal(bucketAt(utc('2026-03-30T06:30'), 'Europe/Berlin'), 'business');
    // The night of the change: 01:59 UTC is 03:59 CEST (sleep); 06:00 UTC is 08:00 CEST on a Sunday (off hours).
    assert.equal(bucketAt(utc('2026-03-29T01:59'), 'Europe/Berlin'), 'sleep');
    assert.equal(bucketAt(utc('2026-03-29T05:59'), 'Europe/Berlin'), 'sleep');
    assert.equal(bucketAt(utc('2026-03-29T06:00'), 'Europe/Berlin'), 'offHours');
    // New York falls back on 2026-11-01: 01:30 happens twice; both are sleep. 22:00 local is 02:00 or 03:00 UTC by the season.
    assert.equal(bucketAt(utc('2026-11-01T05:30'), 'America/New_York'), 'sleep');
    assert.equal(bucketAt(utc('2026-11-01T06:30'), 'America/New_York'), 'sleep');
    assert.equal(bucketAt(utc('2026-10-27T01:59'), 'America/New_York'), 'offHours', 'Monday 21:59 EDT');
    assert.equal(bucketAt(utc('2026-11-03T02:59'), 'America/New_York'), 'offHours', 'Monday 21:59 EST');
    assert.equal(bucketAt(utc('2026-11-03T03:00'), 'America/New_York'), 'sleep', 'Monday 22:00 EST');
  });

  it('zones with odd offsets and across the date line: the person\'s weekday and clock decide', () => {
    const friday = utc('2026-11-27T02:15'); // Friday 02:15 UTC
    assert.deepEqual(['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/Los_Angeles', 'Australia/Eucla'].map((z) => bucketAt(friday, z)),
      ['sleep', 'sleep', 'business', 'offHours', 'business'], '02:15, 07:45 (+05:30), 08:00 (+05:45), Thursday 18:15 (−08:00), 11:00 (+08:45)');
    const saturday = utc('2026-11-28T03:00');
    assert.equal(bucketAt(saturday, 'Pacific/Kiritimati'), 'offHours', 'Saturday 17:00 at +14: the weekend');
    assert.equal(bucketAt(saturday, 'Pacific/Pago_Pago'), 'business', 'Friday 16:00 at −11: still the working week');
  });

  it('zoneBuckets, a quarter hour of UTC worked out once, says what bucketAt says, across DST changes and in zones of odd offsets', () => {
    // Both ends of every quarter hour of a year; Kathmandu is UTC+05:45, Lord Howe moves by 30 minutes.
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Africa/Monrovia']) {
      const buckets = zoneBuckets(zone);
      for (let t = utc('2026-01-01T00:00'); t < utc('2027-01-01T00:00'); t += 900_000) {
        for (const at of [t, t + 899_999]) assert.equal(buckets(at), bucketAt(at, zone), `${zone} ${new Date(at).toISOString()}`);
      }
    }
    // Monrovia kept UTC-00:44:30 until 1972: no quarter of it is taken for another instant's.
    const monrovia = zoneBuckets('Africa/Monrovia');
    for (let t = utc('1971-03-01T07:00'); t < utc('1971-03-01T10:00'); t += 30_000) assert.equal(monrovia(t), bucketAt(t, 'Africa/Monrovia'));
  });
});
