/**
 * Bearer-token verification for the control plane (specification "Authentication", contract §4.2–4.5).
 *
 * Checks, in the contract's order, each failure a reason of AUTH_REASONS:
 *   1. structure and algorithm — at most 8 KiB, three base64url segments, a JSON object header and
 *      payload, `alg` asymmetric (RS/PS/ES/EdDSA); `none`, HS* and anything else → malformed-token;
 *   2. signature against the issuer's key set → bad-signature (idp-unreachable when no key can be had);
 *   3. `iss` → wrong-issuer;  4. `aud` (string, or array containing ours) → wrong-audience;
 *   5. time, 60 s skew both ways: `exp` and `iat` required finite numbers (else malformed-token),
 *      `exp` + skew past → expired, `nbf` or `iat` beyond now + skew → not-yet-valid;
 *   6. scopes: every configured scope in `scope` (space-separated) ∪ `scp` (string or array).
 * jose does 1's decoding, 2, 3, 4 and the `exp`/`nbf` half of 5 (with the injected clock as its
 * `currentDate`); the rest is here, because jose ignores a future `iat` without `maxTokenAge`.
 * Anything unexpected → provider-failed; the verifier never throws.
 */
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyOptions, JWTVerifyResult } from 'jose';
import type { AuthSettings } from '../config/control-plane.js';
import type { Clock } from '../core/clock.js';
import { ConfigError, errorText } from '../core/errors.js';
import { createKeySet, isHttpUrl, KeySetUnavailableError } from './key-set.js';
import type { KeyGetter, KeySetTiming } from './key-set.js';
import type { AuthReason } from './reasons.js';

/** Asymmetric JWS algorithms only (contract §4.3); `Ed25519` is the fully specified name of EdDSA (RFC 9864). */
export const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
/** Clock-skew tolerance for every time claim, seconds (specification "Limits"). */
export const CLOCK_SKEW_S = 60;
/** A longer token is malformed-token (contract §4.2), characters. */
export const MAX_TOKEN_CHARS = 8 * 1024;

const ALGORITHMS = new Set<string>(ALLOWED_ALGORITHMS);
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export type VerifyResult =
  /** `expiresAtMs`: when this token stops being accepted, `(exp + skew) × 1000` — the end of a stream it opened. */
  | { ok: true; claims: JWTPayload; expiresAtMs: number }
  /** `detail` is for the daemon's log only, never for a client. */
  | { ok: false; reason: AuthReason; detail?: string };

export interface TokenVerifier {
  /** Never throws: every failure is a result with a reason. */
  verify(token: string): Promise<VerifyResult>;
  close(): void;
}

export interface TokenVerifierDeps {
  clock: Clock;
  fetch?: typeof fetch;
  /** Replaces the issuer's key set (tests, or another surface sharing one key set). */
  keys?: KeyGetter;
  /** Overrides of the key set's timeout, cooldown and cache ages (tests). */
  timing?: Partial<KeySetTiming>;
}

/**
 * Builds a verifier for an enabled `controlPlane.auth` block. Throws ConfigError when the settings
 * cannot work (contract §3.2: a startup error); never contacts the IdP here.
 */
export function createTokenVerifier(settings: AuthSettings, deps: TokenVerifierDeps): TokenVerifier {
  if (!isHttpUrl(settings.issuer)) throw new ConfigError('controlPlane.auth.issuer: must be an http(s) URL');
  if (settings.audience === '') throw new ConfigError('controlPlane.auth.audience: must not be empty');
  if (settings.jwksUri !== null && !isHttpUrl(settings.jwksUri)) throw new ConfigError('controlPlane.auth.jwksUri: must be an http(s) URL');
  // Inert until a key is needed, so building it when `keys` replaces it costs nothing.
  const keySet = createKeySet({ issuer: settings.issuer, jwksUri: settings.jwksUri, clock: deps.clock, fetch: deps.fetch, timing: deps.timing });
  const getKey: KeyGetter = deps.keys ?? keySet.getKey;
  const required = [...settings.scopes];

  async function verify(token: string): Promise<VerifyResult> {
    const nowMs = deps.clock.now();
    // The verification envelope (options, current time) cannot be built: should never happen.
    if (!Number.isFinite(nowMs)) return { ok: false, reason: 'config-error', detail: 'the clock returned a non-finite time' };
    if (!wellFormed(token)) return { ok: false, reason: 'malformed-token' };

    const options: JWTVerifyOptions = {
      algorithms: [...ALLOWED_ALGORITHMS], issuer: settings.issuer, audience: settings.audience,
      clockTolerance: CLOCK_SKEW_S, currentDate: new Date(nowMs),
    };
    let verified: JWTVerifyResult;
    try {
      verified = await verifyWithCandidates(token, getKey, options);
    } catch (err) {
      return { ok: false, reason: reasonOf(err) ?? 'provider-failed', detail: errorText(err) };
    }
    const claims = verified.payload;
    const time = checkTimeClaims(claims, Math.floor(nowMs / 1000));
    if (time !== null) return { ok: false, reason: time };
    if (!hasScopes(claims, required)) return { ok: false, reason: 'insufficient-scope' };
    return { ok: true, claims, expiresAtMs: ((claims.exp as number) + CLOCK_SKEW_S) * 1000 };
  }

  return {
    async verify(token) {
      try {
        return await verify(token);
      } catch (err) {
        return { ok: false, reason: 'provider-failed', detail: errorText(err) };
      }
    },
    close: () => keySet.close(),
  };
}

/** Step 1, before any key is looked up: size, compact shape, decodable JSON objects, an allowed `alg`. */
export function wellFormed(token: string): boolean {
  if (token.length > MAX_TOKEN_CHARS || !COMPACT_JWS.test(token)) return false;
  try {
    const header = decodeProtectedHeader(token);
    decodeJwt(token);
    return typeof header.alg === 'string' && ALGORITHMS.has(header.alg);
  } catch {
    return false;
  }
}

/** The time checks jose leaves out: `exp` and `iat` present and finite, `iat` not in the future beyond the skew. */
export function checkTimeClaims(claims: JWTPayload, nowS: number): AuthReason | null {
  const { exp, iat } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || typeof iat !== 'number' || !Number.isFinite(iat)) return 'malformed-token';
  if (iat > nowS + CLOCK_SKEW_S) return 'not-yet-valid';
  return null;
}

/** The token's scopes: `scope` (space-separated string) ∪ `scp` (space-separated string, or array of strings). */
export function grantedScopes(claims: JWTPayload): Set<string> {
  const granted = new Set<string>();
  const addSpaced = (value: unknown): void => {
    if (typeof value === 'string') for (const s of value.split(' ')) if (s !== '') granted.add(s);
  };
  addSpaced(claims.scope);
  if (Array.isArray(claims.scp)) {
    for (const s of claims.scp) if (typeof s === 'string' && s !== '') granted.add(s);
  } else {
    addSpaced(claims.scp);
  }
  return granted;
}

/** AND semantics: every required scope must be granted. */
export function hasScopes(claims: JWTPayload, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  const granted = grantedScopes(claims);
  return required.every((s) => granted.has(s));
}

/**
 * jwtVerify with the key getter; when the set holds several keys that fit the header (no `kid`, or a
 * repeated one), each is tried in turn — jose 6 leaves that iteration to the caller.
 */
async function verifyWithCandidates(token: string, getKey: KeyGetter, options: JWTVerifyOptions): Promise<JWTVerifyResult> {
  try {
    return await jwtVerify(token, getKey, options);
  } catch (err) {
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err) {
      try {
        return await jwtVerify(token, key, options);
      } catch (attempt) {
        if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

/** The reason for an error out of jwtVerify or the key getter; null when it is not an expected failure. */
function reasonOf(err: unknown): AuthReason | null {
  if (err instanceof KeySetUnavailableError) return 'idp-unreachable';
  if (!(err instanceof errors.JOSEError)) return null;
  switch (err.code) {
    case errors.JWSSignatureVerificationFailed.code:
    case errors.JWKSNoMatchingKey.code:
      return 'bad-signature';
    case errors.JWTExpired.code:
      return 'expired';
    case errors.JWTClaimValidationFailed.code: {
      const { claim, reason } = err as errors.JWTClaimValidationFailed;
      if (reason === 'invalid') return 'malformed-token'; // iat, nbf or exp present but not a number
      if (claim === 'iss') return 'wrong-issuer';
      if (claim === 'aud') return 'wrong-audience';
      if (claim === 'nbf') return 'not-yet-valid';
      return null;
    }
    case errors.JWSInvalid.code:
    case errors.JWTInvalid.code:
    case errors.JOSEAlgNotAllowed.code:
    case errors.JOSENotSupported.code:
      return 'malformed-token'; // e.g. an unsupported `crit` extension, or an unencoded payload
    // What an injected jose remote key set throws when the IdP fails (the key set here throws
    // KeySetUnavailableError instead): ERR_JWKS_TIMEOUT, ERR_JWKS_INVALID, ERR_JWK_INVALID, ERR_JOSE_GENERIC.
    case errors.JWKSTimeout.code:
    case errors.JWKSInvalid.code:
    case errors.JWKInvalid.code:
    case errors.JOSEError.code:
      return 'idp-unreachable';
    default:
      return null;
  }
}
