import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../core/clock.js';
import type { Person, Schedule } from './oncall-config.js';
import { calendarText, escapeText, exportCalendar, foldLine } from './icalendar.js';
import { testPerson } from '../../test/support/oncall-config.js';

/** A small RFC 5545 reader: unfolds, splits on CRLF, unescapes TEXT values; fails on a bare LF or a long line. */
function parse(text: string): Array<Record<string, string>> {
  assert.ok(text.endsWith('\r\n'));
  for (const raw of text.split('\r\n')) {
    assert.ok(!raw.includes('\n') && !raw.includes('\r'), 'bare line break');
    assert.ok(Buffer.byteLength(raw) <= 75, `line longer than 75 octets: ${raw}`);
  }
  const lines = text.replace(/\r\n[ \t]/g, '').split('\r\n').filter((l) => l !== '');
  assert.equal(lines[0], 'BEGIN:VCALENDAR');
  assert.equal(lines.at(-1), 'END:VCALENDAR');
  const events: Array<Record<string, string>> = [];
  let current: Record<string, string> | null = null;
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') current = {};
    else if (line === 'END:VEVENT') { events.push(current as Record<string, string>); current = null; } else if (current) {
      const colon = line.indexOf(':');
      current[line.slice(0, colon)] = line.slice(colon + 1).replace(/\\(.)/g, (_m, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
    }
  }
  return events;
}

const people: Person[] = [
  testPerson('alice', { dm: 'alice' }, { name: 'Alice Example' }),
  testPerson('bob', { dm: 'bob' }),
];

describe('iCalendar export', () => {
  it('escapes TEXT and folds at 75 octets without splitting a UTF-8 character', () => {
    assert.equal(escapeText('a\\b;c,d\ne'), 'a\\\\b\\;c\\,d\\ne');
    const folded = foldLine(`SUMMARY:${'é'.repeat(60)}`);
    const parts = folded.split('\r\n').filter((p) => p !== '');
    assert.ok(parts.every((p) => Buffer.byteLength(p) <= 75));
    assert.equal(parts.map((p, i) => (i === 0 ? p : p.slice(1))).join(''), `SUMMARY:${'é'.repeat(60)}`);
    assert.ok(!folded.includes('\uFFFD'));
  });

  it('one VEVENT per shift, in UTC, a long name with commas and semicolons read back intact', () => {
    const schedule: Schedule = { id: 'primary', timeZone: 'Europe/Berlin', fallback: null, allowGaps: false,
      rotations: [{ people: ['alice', 'bob'], everyMs: 7 * 86_400_000, handoff: '2026-11-23T09:00', only: [], timeZone: 'Europe/Berlin' }] };
    const long: Person[] = [{ ...people[0] as Person, name: 'Alice "the pager"; Example, Ph.D., Wörterbuch-Bereitschaftsdienst\\Nacht' }, people[1] as Person];
    const now = Date.parse('2026-11-25T12:00:00Z');
    const events = parse(exportCalendar('oncall-escalator', schedule, long, [], now));
    // The current shift from its real start, then weekly to 28 days ahead (the last one cut there).
    assert.deepEqual(events.map((e) => [e.DTSTART, e.DTEND]), [
      ['20261123T080000Z', '20261130T080000Z'],
      ['20261130T080000Z', '20261207T080000Z'],
      ['20261207T080000Z', '20261214T080000Z'],
      ['20261214T080000Z', '20261221T080000Z'],
      ['20261221T080000Z', '20261223T120000Z'],
    ]);
    assert.equal(events[0]?.SUMMARY, 'On call: Alice "the pager"; Example, Ph.D., Wörterbuch-Bereitschaftsdienst\\Nacht (primary)');
    assert.equal(events[1]?.SUMMARY, 'On call: bob (primary)');
    assert.equal(events[0]?.UID, '20261123T080000Z.primary.oncall-escalator@svc');
    assert.equal(events[0]?.DTSTAMP, '20261125T120000Z');
    // The same shift has the same UID in a later export.
    const later = parse(exportCalendar('oncall-escalator', schedule, long, [], now + 3_600_000));
    assert.equal(later[0]?.UID, events[0]?.UID);
  });

  it('across a DST switch: daily 09:00 Berlin handoffs move from 07:00Z to 08:00Z, one event per day', () => {
    const schedule: Schedule = { id: 'daily', timeZone: 'Europe/Berlin', fallback: null, allowGaps: false,
      rotations: [{ people: ['alice', 'bob'], everyMs: 86_400_000, handoff: '2026-10-01T09:00', only: [], timeZone: 'Europe/Berlin' }] };
    const clock = fakeClock(Date.parse('2026-10-20T07:00:00Z'));
    const events = parse(exportCalendar('a', schedule, people, [], clock.now()));
    assert.equal(events.length, 28);
    const starts = events.map((e) => e.DTSTART);
    assert.equal(starts[4], '20261024T070000Z'); // Saturday 09:00 CEST
    assert.equal(starts[5], '20261025T080000Z'); // Sunday 09:00 CET
    assert.equal(events[4]?.DTEND, '20261025T080000Z'); // a 25-hour shift
  });

  it('gaps make no event; overrides and fallbacks say so', () => {
    const schedule: Schedule = { id: 's', timeZone: 'UTC', fallback: 'bob', allowGaps: false, rotations: [] };
    const now = Date.parse('2026-11-25T00:00:00Z');
    const shifts = [
      { startMs: now, endMs: now + 3_600_000, person: 'alice', source: 'override' as const },
      { startMs: now + 3_600_000, endMs: now + 7_200_000, person: null, source: null },
      { startMs: now + 7_200_000, endMs: now + 10_800_000, person: 'bob', source: 'fallback' as const },
    ];
    const events = parse(calendarText({ agentId: 'a', schedule, people, shifts, nowMs: now }));
    assert.deepEqual(events.map((e) => e.SUMMARY), ['On call: Alice Example (s, override)', 'On call: bob (s, fallback)']);
  });

  it('--from --days (§24.7): shifts cut to exactly the window; a person\'s key: their shifts only', () => {
    const schedule: Schedule = { id: 'primary', timeZone: 'Europe/Berlin', fallback: null, allowGaps: false,
      rotations: [{ people: ['alice', 'bob'], everyMs: 7 * 86_400_000, handoff: '2026-11-23T09:00', only: [], timeZone: 'Europe/Berlin' }] };
    const now = Date.parse('2026-11-20T00:00:00Z');
    // From Wednesday noon UTC, 10 days: alice's week cut at the start, bob's whole, alice's next cut at the end.
    const from = Date.parse('2026-11-25T12:00:00Z');
    const events = parse(exportCalendar('a', schedule, people, [], now, { window: { fromMs: from, days: 10 } }));
    assert.deepEqual(events.map((e) => [e.DTSTART, e.DTEND]), [
      ['20261125T120000Z', '20261130T080000Z'],
      ['20261130T080000Z', '20261205T120000Z'],
    ]);
    const bobs = parse(exportCalendar('a', schedule, people, [], now, { window: { fromMs: from, days: 10 }, person: 'bob' }));
    assert.deepEqual(bobs.map((e) => [e.DTSTART, e.DTEND, e.SUMMARY]), [['20261130T080000Z', '20261205T120000Z', 'On call: bob (primary)']]);
    const year = parse(exportCalendar('a', schedule, people, [], now, { window: { fromMs: from, days: 366 } }));
    assert.equal(year[0]?.DTSTART, '20261125T120000Z');
    assert.equal(year.at(-1)?.DTEND, '20271126T120000Z');
  });

  it('--days without --from: the next N days as the default reads them, the shift on call now from its real start', () => {
    const schedule: Schedule = { id: 'primary', timeZone: 'Europe/Berlin', fallback: null, allowGaps: false,
      rotations: [{ people: ['alice', 'bob'], everyMs: 7 * 86_400_000, handoff: '2026-11-23T09:00', only: [], timeZone: 'Europe/Berlin' }] };
    const now = Date.parse('2026-11-25T12:34:56Z');
    const week = parse(exportCalendar('a', schedule, people, [], now, { window: { fromMs: null, days: 7 } }));
    assert.deepEqual(week.map((e) => [e.DTSTART, e.DTEND]), [
      ['20261123T080000Z', '20261130T080000Z'],
      ['20261130T080000Z', '20261202T123456Z'],
    ]);
    // An hour later the shift on call is the same event (its UID), not one cut at the moment of the export.
    const later = parse(exportCalendar('a', schedule, people, [], now + 3_600_000, { window: { fromMs: null, days: 7 } }));
    assert.equal(later[0]?.UID, week[0]?.UID);
  });
});
