/** Query-string parsing shared by the routes: every parameter validated, errors name the parameter. */
export type QueryResult<T> = { ok: true; value: T } | { ok: false; error: string };

const ISO_TS = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** ISO-8601 timestamp (with zone) or integer milliseconds since the epoch. */
export function parseTimeParam(name: string, raw: string): QueryResult<number> {
  if (/^\d{1,16}$/.test(raw)) return { ok: true, value: Number(raw) };
  const m = ISO_TS.exec(raw);
  if (m !== null) {
    const ms = Date.parse(raw);
    // Date.parse rolls an impossible day over (Feb 30 → Mar 1): refuse it instead.
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (Number.isFinite(ms) && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth) return { ok: true, value: ms };
  }
  return { ok: false, error: `invalid ${name}: expected an ISO-8601 timestamp or integer milliseconds` };
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
