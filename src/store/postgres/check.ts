/**
 * What `svc check` says about a PostgreSQL store without changing it: reachable with these
 * credentials, and a schema this svc understands (none yet is fine: `svc up` creates it). Read-only:
 * no migration, no lock; the answer never shows the URL's password.
 */
import pg from 'pg';
import { describePgError, redactUrl } from './pool.js';
import { SCHEMA_VERSION } from './schema.js';

/** How long `svc check` waits for the database to answer. */
const CHECK_TIMEOUT_MS = 5_000;

/** Null when usable, else why not. */
export async function checkPostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CHECK_TIMEOUT_MS, query_timeout: CHECK_TIMEOUT_MS,
    application_name: 'svc check' });
  // A connection dropped while checking is reported by the failing query, not as an unhandled event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const table = await client.query<{ present: boolean }>("SELECT to_regclass('schema_version') IS NOT NULL AS present");
    if (table.rows[0]?.present !== true) return null;
    const version = (await client.query<{ version: number }>('SELECT version FROM schema_version WHERE id = 1')).rows[0]?.version ?? 0;
    return version > SCHEMA_VERSION
      ? `store at ${redactUrl(url)}: schema version ${version} is newer than this svc understands (${SCHEMA_VERSION})`
      : null;
  } catch (err) {
    return `cannot reach PostgreSQL at ${redactUrl(url)}: ${describePgError(err, url)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
