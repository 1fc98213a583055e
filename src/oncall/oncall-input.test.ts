import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOverrideWindow, checkSilence, checkZone, parseInstant } from './oncall-input.js';

const CLI = { match: '--match', duration: '--for', reason: '--reason' };
const FORM = { match: 'Matcher', duration: 'Duration', reason: 'Reason' };

describe('oncall-input: one check for the CLI and the console, errors naming the field as each calls it', () => {
  it('instants: ISO-8601 with a zone or integer ms; the end after the start', () => {
    assert.deepEqual(parseInstant('--from', '2026-11-26T09:00Z'), { ok: true, value: Date.UTC(2026, 10, 26, 9) });
    assert.deepEqual(parseInstant('--from', '1700000000000'), { ok: true, value: 1_700_000_000_000 });
    assert.deepEqual(parseInstant('--from', 'tomorrow'),
      { ok: false, error: '--from: expected ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds' });
    assert.deepEqual(checkOverrideWindow({ from: 'From', to: 'Until' }, '2026-11-26T09:00Z', '2026-11-26T09:00+00:00'),
      { ok: false, error: 'Until must be after From' });
    assert.deepEqual(checkOverrideWindow({ from: '--from', to: '--to' }, '2026-11-26T09:00Z', '2026-11-26T10:00+01:00'),
      { ok: false, error: '--to must be after --from' });
    assert.deepEqual(checkOverrideWindow({ from: '--from', to: '--to' }, '2026-11-26T09:00Z', '2026-11-26T18:00Z'),
      { ok: true, value: { fromMs: Date.UTC(2026, 10, 26, 9), toMs: Date.UTC(2026, 10, 26, 18) } });
  });

  it('a time without a zone (§24.5): refused naming the form on the command line, read in the zone a console form shows', () => {
    const form = 'ISO-8601 with a zone (2026-11-26T09:00Z, 2026-11-26T09:00+01:00) or integer milliseconds';
    assert.deepEqual(parseInstant('--from', '2026-11-26T09:00'), { ok: false, error: `--from: "2026-11-26T09:00" has no time zone; write ${form}` });
    assert.deepEqual(parseInstant('From', '2026-11-26 09:00'), { ok: false, error: `From: "2026-11-26 09:00" has no time zone; write ${form}` });
    // The form's zone, not UTC: 09:00 in Berlin in November is 08:00 UTC, in July 07:00 UTC.
    assert.deepEqual(parseInstant('From', '2026-11-26 09:00', 'Europe/Berlin'), { ok: true, value: Date.UTC(2026, 10, 26, 8) });
    assert.deepEqual(parseInstant('From', '2026-07-01T09:00', 'Europe/Berlin'), { ok: true, value: Date.UTC(2026, 6, 1, 7) });
    assert.deepEqual(parseInstant('From', '2026-11-26 09:00', 'UTC'), { ok: true, value: Date.UTC(2026, 10, 26, 9) });
    // A zone typed with the time wins over the form's.
    assert.deepEqual(parseInstant('From', '2026-11-26T09:00Z', 'Europe/Berlin'), { ok: true, value: Date.UTC(2026, 10, 26, 9) });
    // Not a real time: refused whatever the zone.
    assert.equal(parseInstant('From', '2026-02-30 09:00', 'Europe/Berlin').ok, false);
    assert.deepEqual(checkOverrideWindow({ from: 'From', to: 'Until' }, '2026-11-26 09:00', '2026-11-26 18:00', 'America/New_York'),
      { ok: true, value: { fromMs: Date.UTC(2026, 10, 26, 14), toMs: Date.UTC(2026, 10, 26, 23) } });
    assert.deepEqual(checkZone('Time zone', 'Europe/Berlin'), { ok: true, value: 'Europe/Berlin' });
    assert.deepEqual(checkZone('Time zone', 'Mars/Olympus'),
      { ok: false, error: 'Time zone: not a time zone the tz database knows (such as UTC or Europe/Berlin)' });
    assert.equal(checkZone('Time zone', '../etc/passwd').ok, false);
  });

  it('silences: matchers by the daemon parser, at most a week, a reason', () => {
    const good = { matchers: ['alertname=DiskFull', 'team=~db-.*'], duration: '2h', reason: 'disk swap' };
    assert.deepEqual(checkSilence(CLI, good), { ok: true, value: { matchers: good.matchers, durationMs: 7_200_000, reason: 'disk swap' } });
    assert.deepEqual(checkSilence(CLI, { ...good, duration: '8d' }),
      { ok: false, error: '--for 8d is longer than 1w; silence at most a week at a time' });
    assert.deepEqual(checkSilence(FORM, { ...good, duration: 'soon' }), { ok: false, error: 'Duration must be a duration such as 30m, 2h or 3d' });
    assert.deepEqual(checkSilence(FORM, { ...good, matchers: [] }), { ok: false, error: 'give at least one Matcher KEY=VALUE or KEY=~REGEX' });
    assert.deepEqual(checkSilence(FORM, { ...good, reason: '   ' }), { ok: false, error: 'Reason must be 1 to 1000 characters' });
    const bad = checkSilence(FORM, { ...good, matchers: ['no-operator'] });
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.error, /^Matcher "no-operator": /);
  });
});
