/**
 * A schedule's shifts as iCalendar (RFC 5545), for `svc oncall export S` and `GET /oncall/<S>.ics`
 * (contract §17.6): the next EXPORT_DAYS days, one VEVENT per shift with someone on call, times in UTC
 * (calendars show them in the reader's zone; the schedule's DST rules are already applied), CRLF line
 * endings, lines folded at 75 octets, TEXT values escaped. Written by hand: the format is small, and
 * what svc puts in it is exactly what is tested.
 *
 * A shift's UID is its agent, schedule and start, so a calendar that subscribes to the export sees the
 * same event each time; the shift on call now keeps its real start (it is looked for up to
 * UNTIL_HORIZON_MS back), not the moment of the export.
 */
import type { Override, Person, Schedule } from './oncall-config.js';
import type { Shift } from './schedule.js';
import { UNTIL_HORIZON_MS, scheduleShifts } from './schedule.js';
import { DAY_MS } from './zone-time.js';

export const EXPORT_DAYS = 28;
/** The longest window `svc oncall export --days` asks for (§24.7). */
export const MAX_EXPORT_DAYS = 366;
/** The media type of the answer (RFC 5545 §8.1). */
export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';
const MAX_LINE_OCTETS = 75;

/** `20261123T080000Z` */
export function utcStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

/** TEXT escaping (RFC 5545 §3.3.11): backslash, semicolon, comma and line breaks. */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds one content line at 75 octets (RFC 5545 §3.1), never inside a UTF-8 sequence; CRLF-terminated. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char);
    if (octets + size > MAX_LINE_OCTETS) {
      out.push(current);
      // A continuation line starts with one space, which counts toward its 75 octets.
      current = ' ';
      octets = 1;
    }
    current += char;
    octets += size;
  }
  out.push(current);
  return `${out.join('\r\n')}\r\n`;
}

export interface CalendarInput {
  agentId: string;
  schedule: Schedule;
  people: readonly Person[];
  /** Shifts to write; those without a person are skipped. */
  shifts: readonly Shift[];
  nowMs: number;
}

/** The VCALENDAR text of the given shifts. */
export function calendarText(input: CalendarInput): string {
  const { agentId, schedule } = input;
  const names = new Map(input.people.map((p) => [p.id, p.name ?? p.id]));
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//svc//on-call schedule//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(`On call: ${schedule.id} (${agentId})`)}`,
  ];
  for (const shift of input.shifts) {
    if (shift.person === null) continue;
    const name = names.get(shift.person) ?? shift.person;
    const why = shift.source === 'override' ? ', override' : shift.source === 'fallback' ? ', fallback' : '';
    lines.push(
      'BEGIN:VEVENT',
      `UID:${utcStamp(shift.startMs)}.${schedule.id}.${agentId}@svc`,
      `DTSTAMP:${utcStamp(input.nowMs)}`,
      `DTSTART:${utcStamp(shift.startMs)}`,
      `DTEND:${utcStamp(shift.endMs)}`,
      `SUMMARY:${escapeText(`On call: ${name} (${schedule.id}${why})`)}`,
      `DESCRIPTION:${escapeText(`${shift.person} is on call for schedule ${schedule.id} of agent ${agentId} (${shift.source ?? 'nobody'}).`)}`,
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('');
}

/** The shifts of the next `days` days, the current one from its real start (its UID stays the same from export to export). */
export function exportShifts(schedule: Schedule, overrides: readonly Override[], nowMs: number, days = EXPORT_DAYS): Shift[] {
  const end = nowMs + days * DAY_MS;
  return scheduleShifts(schedule, overrides, nowMs - UNTIL_HORIZON_MS, end).filter((s) => s.endMs > nowMs);
}

export interface ExportOptions {
  /**
   * A window (`svc oncall export --from --days`, §24.7): shifts are cut to exactly [fromMs, fromMs + days).
   * Without `fromMs` (`--days` alone) the window is the next `days` days, the shift on call now from its real start.
   */
  window?: { fromMs: number | null; days: number };
  /** One person's shifts only (a subscription key for them). */
  person?: string | null;
}

/**
 * `svc oncall export S` / `GET /oncall/<S>.ics`: the calendar of the next EXPORT_DAYS days (the shift
 * on call now from its real start, so a subscription sees stable events), or of the window asked for.
 */
export function exportCalendar(agentId: string, schedule: Schedule, people: readonly Person[], overrides: readonly Override[], nowMs: number,
  opts: ExportOptions = {}): string {
  const { fromMs = null, days = EXPORT_DAYS } = opts.window ?? {};
  const all = fromMs === null ? exportShifts(schedule, overrides, nowMs, days) : scheduleShifts(schedule, overrides, fromMs, fromMs + days * DAY_MS);
  const person = opts.person ?? null;
  const shifts = person === null ? all : all.filter((s) => s.person === person);
  return calendarText({ agentId, schedule, people, shifts, nowMs });
}
