/**
 * The closed vocabulary of control-plane authentication failures (specification "Rejection reasons",
 * contract §4). Clients branch on `reason`, so the values and their order are a public interface;
 * docs/auth.md holds the same table and a test keeps the two equal.
 */
export const AUTH_REASONS = [
  'missing-token',
  'malformed-token',
  'bad-signature',
  'expired',
  'not-yet-valid',
  'wrong-issuer',
  'wrong-audience',
  'insufficient-scope',
  'idp-unreachable',
  'provider-failed',
  'config-error',
] as const;

export type AuthReason = (typeof AUTH_REASONS)[number];

/**
 * The `error` text of each 401. Client-safe by construction: fixed strings that never quote the
 * token, the configured issuer or audience, a scope, or an exception (contract §4.5).
 */
export const AUTH_ERROR_TEXT: Record<AuthReason, string> = {
  'missing-token': 'missing bearer token',
  'malformed-token': 'malformed bearer token',
  'bad-signature': 'token signature does not verify',
  expired: 'token expired',
  'not-yet-valid': 'token not yet valid',
  'wrong-issuer': 'token issuer not accepted',
  'wrong-audience': 'token audience not accepted',
  'insufficient-scope': 'token lacks a required scope',
  'idp-unreachable': 'identity provider unreachable',
  'provider-failed': 'token verification failed',
  'config-error': 'authentication misconfigured',
};

export function isAuthReason(value: unknown): value is AuthReason {
  return typeof value === 'string' && (AUTH_REASONS as readonly string[]).includes(value);
}
