/** Exit codes of the CLI (contract §2). */
export const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

/**
 * A configuration problem: names the file, position and key path. Exit code 2.
 * The message never carries a secret value.
 */
export class ConfigError extends Error {
  readonly code = 'ECONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A usage problem on the command line. Exit code 2. */
export class UsageError extends Error {
  readonly code = 'EUSAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Every code a RuntimeError can carry: a closed vocabulary, so callers decide by code (retry, exit,
 * HTTP status) and a misspelt code does not compile. Grouped by where the failure happens.
 */
export const RUNTIME_ERROR_CODES = [
  // reaching the daemon or another listener
  'EUNREACHABLE', 'ETIMEOUT', 'EDEADLINE', 'EHTTP', 'EBADRESPONSE', 'ETOOLARGE', 'ESTREAM', 'EUNAUTHORIZED', 'ETOKEN', 'ETLS',
  // the daemon's own process and files
  'EALREADYRUNNING', 'ENOTRUNNING', 'EPIDFILE', 'ELISTEN', 'ENOLISTENER', 'EFDLIMIT', 'EEXIST', 'ECLOSED', 'ECONFIG',
  // the admin socket
  'EADMIN', 'EADMIN_SOCKET', 'EADMIN_PROTOCOL', 'EADMIN_TIMEOUT',
  // audit proof: checkpoint keys, an event that is not there
  'ENOKEY', 'EBADKEY', 'ENOTFOUND',
  // the store, backups and copies
  'ESTORE_OPEN', 'ESTORE_SCHEMA', 'ESTORE_MIGRATE', 'ESTORE_READONLY', 'ESTORE_NOT_DATABASE', 'ESTORE_UNREACHABLE',
  'ESTORE_BACKUP', 'ESTORE_COPY', 'EBACKUP_PATH', 'EBACKUP_EXISTS',
  // the CLI: a daemon of another $SVC_HOME, an id prefix that names more than one record
  'EWRONGHOME', 'EAMBIGUOUS',
] as const;
export type RuntimeErrorCode = (typeof RUNTIME_ERROR_CODES)[number];

export function isRuntimeErrorCode(code: unknown): code is RuntimeErrorCode {
  return typeof code === 'string' && (RUNTIME_ERROR_CODES as readonly string[]).includes(code);
}

/** A failure while running (startup refused, daemon not reachable...). Exit code 1. */
export class RuntimeError extends Error {
  readonly code: RuntimeErrorCode;
  /**
   * The failure in a few words, for a list of failures such as `svc fleet`'s one line per host
   * (`connection refused`, `HTTP 401 (bad-signature)`); null when the message is all there is.
   */
  readonly brief: string | null;
  constructor(code: RuntimeErrorCode, message: string, brief: string | null = null) {
    super(message);
    this.name = 'RuntimeError';
    this.code = code;
    this.brief = brief;
  }
}

/**
 * A listener answered with an error status (code EHTTP). Callers decide by `status` (and the
 * listener's own `error` word), never by the message text, which is for people and may change.
 */
export class HttpError extends RuntimeError {
  readonly status: number;
  /** The listener's short `error` text, when its answer carried one. */
  readonly error: string | null;
  constructor(status: number, error: string | null, message: string, brief: string | null = null) {
    super('EHTTP', message, brief);
    this.status = status;
    this.error = error;
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof ConfigError || err instanceof UsageError) return EXIT.usage;
  return EXIT.runtime;
}

/** Message of an unknown thrown value, for logs (never for HTTP responses). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
