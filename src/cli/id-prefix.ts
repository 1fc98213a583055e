/**
 * An id as a person types it: the whole UUID, or its first or last characters when only one record
 * has them (`svc dlq replay 56ac70dd1aff`, `svc events show 0b8f3c1e`). Ids begin with their creation
 * time (store/record-id.ts), so records of the same minute share their first characters and the end
 * is what tells them apart. A part is resolved against the listener's own list (every page read, only
 * the matches kept), never guessed: an unknown or ambiguous part is an error (exit 1) that says how
 * many records it names.
 */
import { RuntimeError, UsageError } from '../core/errors.js';
import type { ControlTarget } from './control-client.js';
import { getJson } from './control-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PREFIX = /^[0-9a-f-]{1,36}$/;
/** Ids an ambiguous prefix lists before "and N more". */
const SHOWN = 5;

export function isWholeId(id: string): boolean {
  return UUID.test(id);
}

/** Whether `id` could be the start or end of an id (hex digits and dashes), and so worth looking up. */
export function isIdPrefix(id: string): boolean {
  return PREFIX.test(id.toLowerCase());
}

/** What `prefix` names in `matches`: the one record, or an error naming how many. */
export function pickOne<T extends { id: string }>(command: string, what: string, prefix: string, matches: readonly T[]): T {
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return only;
  if (matches.length === 0) throw new RuntimeError('ENOTFOUND', `${command}: no ${what} id starts or ends with ${prefix}`);
  const shown = matches.slice(0, SHOWN).map((m) => m.id).join(', ');
  throw new RuntimeError('EAMBIGUOUS',
    `${command}: ${prefix} is part of ${matches.length} ${what} ids (${shown}${matches.length > SHOWN ? ', …' : ''}); type more of it`);
}

/** Every record of the view at `path` whose id starts or ends with `prefix` (a whole id: that one, when listed). */
export async function findByPrefix<T extends { id: string }>(target: ControlTarget, command: string, path: string, prefix: string): Promise<T[]> {
  const wanted = prefix.toLowerCase();
  if (!PREFIX.test(wanted)) throw new UsageError(`${command}: ${JSON.stringify(prefix.slice(0, 64))} is not an id or the start or end of one (hex digits and dashes)`);
  const found: T[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ limit: '1000', order: 'asc' });
    if (cursor !== null) params.set('cursor', cursor);
    const page = await getJson(target, path, params) as { items?: T[]; nextCursor?: string | null };
    if (!Array.isArray(page.items)) throw new RuntimeError('EBADRESPONSE', `${path}: the answer is not a page`);
    for (const item of page.items) if (typeof item.id === 'string' && (item.id.startsWith(wanted) || item.id.endsWith(wanted))) found.push(item);
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : null;
    if (cursor !== null && seen.has(cursor)) throw new RuntimeError('EBADRESPONSE', `${path}: the listener sent a cursor it had sent before`);
    if (cursor !== null) seen.add(cursor);
  } while (cursor !== null);
  return found;
}
