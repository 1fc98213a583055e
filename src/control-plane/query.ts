/** Query-string parsing shared by the routes: every parameter validated, errors name the parameter. */
export type QueryResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** ISO-8601 timestamp (with zone) or integer milliseconds since the epoch. */
export function parseTimeParam(name: string, raw: string): QueryResult<number> {
  if (/^\d{1,16}$/.test(raw)) return { ok: true, value: Number(raw) };
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) {
    const ms = Date.parse(raw);
    if (Number.isFinite(ms)) return { ok: true, value: ms };
  }
  return { ok: false, error: `invalid ${name}: expected an ISO-8601 timestamp or integer milliseconds` };
}

/** A parameter given more than once is ambiguous: refuse it rather than guess. */
export function singleParam(params: URLSearchParams, name: string): QueryResult<string | null> {
  const all = params.getAll(name);
  if (all.length > 1) return { ok: false, error: `invalid ${name}: given more than once` };
  return { ok: true, value: all[0] ?? null };
}
