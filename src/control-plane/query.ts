/** Query-string parsing shared by the routes: every parameter validated, errors name the parameter. */
import { parseZonedInstant } from '../core/instant.js';

export type QueryResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** ISO-8601 timestamp with a zone, or integer milliseconds since the epoch (core/instant.ts); a time without a zone is refused as such. */
export function parseTimeParam(name: string, raw: string): QueryResult<number> {
  const parsed = parseZonedInstant(raw);
  if (parsed.ok) return { ok: true, value: parsed.ms };
  return { ok: false, error: parsed.reason === 'no-zone'
    ? `invalid ${name}: no time zone; expected an ISO-8601 timestamp with a zone (Z or +01:00) or integer milliseconds`
    : `invalid ${name}: expected an ISO-8601 timestamp or integer milliseconds` };
}

/** A parameter given more than once is ambiguous: refuse it rather than guess. */
export function singleParam(params: URLSearchParams, name: string): QueryResult<string | null> {
  const all = params.getAll(name);
  if (all.length > 1) return { ok: false, error: `invalid ${name}: given more than once` };
  return { ok: true, value: all[0] ?? null };
}

/** Longest accepted filter value, in UTF-16 code units (ids are at most 64). */
export const FILTER_MAX_LENGTH = 128;

/** Controls, format characters (zero-width, bidi overrides), line/paragraph separators, lone surrogates. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** An exact-match filter value (agent id, source id, kind, reason): non-empty, short, printable. */
export function parseFilterParam(name: string, raw: string): QueryResult<string> {
  if (raw.length === 0) return { ok: false, error: `invalid ${name}: empty` };
  if (raw.length > FILTER_MAX_LENGTH) return { ok: false, error: `invalid ${name}: longer than ${FILTER_MAX_LENGTH} characters` };
  if (NOT_PRINTABLE.test(raw)) return { ok: false, error: `invalid ${name}: not printable` };
  return { ok: true, value: raw };
}

/** How a parameter name from the request is shown in an error: printable, and never long. */
export function paramLabel(name: string): string {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return /^[A-Za-z0-9_.-]+$/.test(name) ? shown : JSON.stringify(shown.replace(/[^\x20-\x7e]/g, '?'));
}
