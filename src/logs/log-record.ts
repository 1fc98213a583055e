/**
 * A log line as a record for the wire: valid JSON object lines pass through as written (re-serialised
 * only when they contain a carriage return, which would break an SSE data line), anything else is an
 * invalid record. Parsed once per line however many clients receive it (a WeakMap keyed by the
 * tailer's shared line object).
 */
import type { TailLine } from './tail-types.js';

export const INVALID_RECORD_REASONS = ['not-json', 'not-an-object', 'too-long'] as const;
export type InvalidRecordReason = (typeof INVALID_RECORD_REASONS)[number];

export type ParsedLine =
  | { ok: true; json: string; tsMs: number }
  | { ok: false; reason: InvalidRecordReason };

export type LineParser = (line: TailLine) => ParsedLine;

/** `ts` of a record in ms since the epoch: ISO-8601 string or number; NaN when absent or unparseable. */
function tsOf(record: Record<string, unknown>): number {
  const ts = record.ts;
  if (typeof ts === 'string') return Date.parse(ts);
  if (typeof ts === 'number' && Number.isFinite(ts)) return ts;
  return Number.NaN;
}

export function parseLogLine(line: TailLine): ParsedLine {
  if (line.tooLong) return { ok: false, reason: 'too-long' };
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch {
    return { ok: false, reason: 'not-json' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not-an-object' };
  const record = value as Record<string, unknown>;
  const json = line.text.includes('\r') ? JSON.stringify(record) : line.text.trim();
  return { ok: true, json, tsMs: tsOf(record) };
}

/** A parser that remembers its answer per shared line object. */
export function createLineParser(): LineParser {
  const cache = new WeakMap<TailLine, ParsedLine>();
  return (line) => {
    let parsed = cache.get(line);
    if (parsed === undefined) {
      parsed = parseLogLine(line);
      cache.set(line, parsed);
    }
    return parsed;
  };
}
