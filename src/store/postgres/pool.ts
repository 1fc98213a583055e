/**
 * Connections to PostgreSQL (contract §16): one `pg` pool per store, set up so that a database that
 * goes away never crashes the process (every client carries an error listener, checked out or idle),
 * requests fail fast while it is away (a short connect timeout: ingest answers 503 at once) and work
 * resumes on fresh connections when it is back. No error text shows the URL's password.
 */
import pg from 'pg';

/** int8 columns (seq, ms timestamps, counts) as JS numbers: every value svc writes is a safe integer. */
const INT8_OID = 20;
const parseInt8 = (v: string): number => Number(v);
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown => (oid === INT8_OID && format !== 'binary'
    ? parseInt8
    : pg.types.getTypeParser(oid, format ?? 'text') as unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  url: string;
  /** Connections at most (default 10). */
  max?: number;
  /** Connection errors outside any query (an idle connection dropped), never with the password. */
  onError?: (message: string) => void;
  /**
   * Pipeline mode: queries issued together go out together and their answers come back in one round
   * trip (the chain writer's transactions, whose lock is held for as many round trips as they make).
   */
  pipeline?: boolean;
  /**
   * `synchronous_commit = off` on these connections: commits do not wait for the WAL flush. Only for
   * writes a crash of the database may lose without harm: lease renewals (a lost one lets a lease end
   * early; whoever claims the event next has a higher attempt, and the old holder is fenced off). Not
   * claims: a lost claim would be handed out again with the same owner and attempt.
   */
  relaxed?: boolean;
}

/**
 * What a message may show of the URL: scheme, user, host, port and database — no password, and no
 * query string (the driver takes `?password=`, `sslpassword=`, `sslkey=`… from it too).
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username === '' ? '' : `${u.username}${u.password === '' ? '' : ':***'}@`;
    return `${u.protocol}//${user}${u.host}${u.pathname}${u.search === '' ? '' : '?…'}`;
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

/** Query parameters whose values a driver or server message must never show. */
const SECRET_PARAMS = ['password', 'sslpassword', 'sslkey', 'sslcert', 'sslrootcert', 'options'];

/** Every spelling of the URL's secrets (the password, in the authority or the query) a message could carry. */
function secretsOf(url: string): string[] {
  try {
    const u = new URL(url);
    const raws = [u.password, ...SECRET_PARAMS.flatMap((p) => u.searchParams.getAll(p))].filter((s) => s.length > 0);
    const out = new Set<string>();
    for (const raw of raws) {
      out.add(raw);
      try { out.add(decodeURIComponent(raw)); } catch { /* keep raw */ }
      out.add(encodeURIComponent(raw));
    }
    return [...out].filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** `text` with the URL and its password removed. */
export function redact(text: string, url: string): string {
  let out = text.split(url).join(redactUrl(url));
  for (const secret of secretsOf(url)) out = out.split(secret).join('***');
  return out;
}

/** A short description of a driver error: SQLSTATE or errno code and the message, password-free. */
export function describePgError(err: unknown, url: string): string {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  let message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
  // Node's AggregateError (localhost resolving to ::1 and 127.0.0.1) has an empty message.
  if (Array.isArray(e?.errors) && e.errors.length > 0) message = (e.errors as unknown[]).map((x) => (x as Error).message).join('; ');
  const code = typeof e?.code === 'string' ? `${e.code}: ` : '';
  return redact(`${code}${message}`, url);
}

/** SQLSTATE classes that say the connection or the server is the problem, not the statement. */
const CONNECTION_CLASSES = ['08', '53', '57', '58'];

/** Whether `err` says the database is unreachable or going away (rather than that a statement was bad). */
export function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return true; // socket errors, timeouts, terminated connections
  if (/^[0-9A-Z]{5}$/.test(code)) return CONNECTION_CLASSES.includes(code.slice(0, 2));
  return true; // ECONNREFUSED, ECONNRESET, ...
}

/** Deadlock or serialization failure: the transaction may simply be run again. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Limits the server holds each session to, so a replica that freezes or is cut off mid-transaction
 * (SIGSTOP, a paused VM, a partition) cannot hold the chain head's lock for hours: its transaction is
 * ended 30 s after it last spoke, a lock wait gives up at 50 s (under the 60 s query timeout, so the
 * server, not only the client, stops waiting), and a dead peer is noticed within about a minute.
 */
const SESSION_LIMITS = [
  '-c idle_in_transaction_session_timeout=30000',
  '-c lock_timeout=50000',
  '-c tcp_keepalives_idle=30',
  '-c tcp_keepalives_interval=10',
  '-c tcp_keepalives_count=3',
];

export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    // Fail fast while the database is away, so ingest answers 503 instead of hanging (contract §16.6).
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A query that never answers (a partition) fails instead of holding its caller for ever.
    query_timeout: 60_000,
    keepAlive: true,
    application_name: 'svc',
    types,
    ...(opts.pipeline ? { pipeline: true } : {}),
    options: [...SESSION_LIMITS, ...(opts.relaxed ? ['-c synchronous_commit=off'] : [])].join(' '),
  });
  const report = (err: unknown): void => { opts.onError?.(describePgError(err, opts.url)); };
  // An idle client whose connection dies is removed by the pool, which then emits this.
  pool.on('error', report);
  // A checked-out client has no listener of the pool's: without this, a connection dying between two
  // queries of a transaction would be an unhandled 'error' event and end the process.
  pool.on('connect', (client) => { client.on('error', report); });
  return pool;
}
