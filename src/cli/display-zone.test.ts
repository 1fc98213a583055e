import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { displayZone, formatInZone } from './display-zone.js';
import { timeArg } from './time-arg.js';

describe('times as svc oncall, svc pages and svc page print them (§24.5)', () => {
  it('--tz wins over $TZ, $TZ over UTC; a leading colon is POSIX; an unknown zone is a usage error naming where it came from', () => {
    assert.equal(displayZone('svc pages', undefined, {}), 'UTC');
    assert.equal(displayZone('svc pages', undefined, { TZ: '' }), 'UTC');
    assert.equal(displayZone('svc pages', undefined, { TZ: ':Europe/Berlin' }), 'Europe/Berlin');
    assert.equal(displayZone('svc pages', 'Asia/Kolkata', { TZ: 'Europe/Berlin' }), 'Asia/Kolkata');
    assert.throws(() => displayZone('svc page', 'Mars/Olympus', {}),
      new UsageError('svc page: --tz "Mars/Olympus" is not a time zone the tz database knows (such as UTC or Europe/Berlin)'));
    assert.throws(() => displayZone('svc oncall', undefined, { TZ: 'Nowhere/Town' }),
      new UsageError('svc oncall: $TZ "Nowhere/Town" is not a time zone the tz database knows; set TZ to one (such as Europe/Berlin) or give --tz'));
  });

  it('every time carries its zone: Z in UTC, the offset of that instant elsewhere (DST included), seconds only when there are some', () => {
    const winter = '2026-11-25T17:00:00.000Z';
    assert.equal(formatInZone(winter, 'UTC'), '2026-11-25 17:00Z');
    assert.equal(formatInZone(winter, 'Europe/Berlin'), '2026-11-25 18:00+01:00');
    assert.equal(formatInZone('2026-07-01T17:00:00.000Z', 'Europe/Berlin'), '2026-07-01 19:00+02:00');
    assert.equal(formatInZone(winter, 'America/New_York'), '2026-11-25 12:00-05:00');
    assert.equal(formatInZone(winter, 'Asia/Kolkata'), '2026-11-25 22:30+05:30');
    assert.equal(formatInZone(Date.parse('2026-11-25T23:59:07.250Z'), 'Asia/Tokyo'), '2026-11-26 08:59:07+09:00');
    assert.equal(formatInZone(null, 'UTC'), '-');
  });

  it('--since and --until: a time without a zone is refused naming the form; with a zone, ms or a duration it goes on the wire', () => {
    const clock = fakeClock(Date.parse('2026-11-25T12:00:00Z'));
    assert.throws(() => timeArg('--since', '2026-11-25T09:00', clock), new UsageError(
      '--since: "2026-11-25T09:00" has no time zone; write ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds'));
    assert.throws(() => timeArg('--until', '2026-11-25 09:00', clock), /has no time zone/);
    assert.throws(() => timeArg('--since', 'yesterday', clock), /expected an ISO-8601 timestamp with a zone, integer milliseconds, or a duration/);
    assert.equal(timeArg('--since', '2026-11-25T09:00+01:00', clock), '2026-11-25T08:00:00.000Z');
    assert.equal(timeArg('--since', '1700000000000', clock), '1700000000000');
    assert.equal(timeArg('--since', '2h', clock), String(Date.parse('2026-11-25T10:00:00Z')));
  });
});
