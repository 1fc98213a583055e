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

/** A failure while running (startup refused, daemon not reachable...). Exit code 1. */
export class RuntimeError extends Error {
  readonly code: string;
  /**
   * The failure in a few words, for a list of failures such as `svc fleet`'s one line per host
   * (`connection refused`, `HTTP 401 (bad-signature)`); null when the message is all there is.
   */
  readonly brief: string | null;
  constructor(code: string, message: string, brief: string | null = null) {
    super(message);
    this.name = 'RuntimeError';
    this.code = code;
    this.brief = brief;
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
