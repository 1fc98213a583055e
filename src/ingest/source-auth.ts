/**
 * Authentication of a webhook source (contract §9.2, §12.1): HMAC of the body (`secret`), a bearer
 * token (`bearerToken`) and HTTP Basic (`basicAuth`). A request passes when it satisfies any method the
 * source configures; every comparison is constant-time, and every failure is the same 401 for the
 * sender — the reason is only for the daemon's own log.
 *
 * Pure: the HTTP adapter (webhook-server.ts) hands in the headers, the raw body and the time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { WebhookSourceConfig } from '../config/schema.js';
import { checkTimestamp, parseSignature, verifySignature } from './signature.js';

export type AuthMethod = 'hmac' | 'bearer' | 'basic';

/** Why a request was refused, for the log (never for the sender: it gets one 401 for all). */
export const SOURCE_AUTH_FAILURES = [
  'missing-signature', 'malformed-signature', 'bad-signature',
  'missing-timestamp', 'malformed-timestamp', 'stale-timestamp',
  'missing-credentials', 'malformed-authorization', 'bad-bearer', 'bad-basic',
] as const;
export type SourceAuthFailure = (typeof SOURCE_AUTH_FAILURES)[number];

export type SourceAuthResult = { ok: true; method: AuthMethod } | { ok: false; reason: SourceAuthFailure };

export type SourceAuthConfig = Pick<WebhookSourceConfig, 'secret' | 'bearerToken' | 'basicAuth' | 'signatureHeader' | 'timestampHeader'>;

export interface SourceAuthRequest {
  /** The single value of a header: undefined when absent, null when sent more than once. */
  header(name: string): string | undefined | null;
  body: Buffer;
  nowMs: number;
}

/** The methods a source configures, in the order they are tried. */
export function authMethods(source: SourceAuthConfig): AuthMethod[] {
  const methods: AuthMethod[] = [];
  if (source.secret !== undefined) methods.push('hmac');
  if (source.bearerToken !== undefined) methods.push('bearer');
  if (source.basicAuth !== undefined) methods.push('basic');
  return methods;
}

/** `WWW-Authenticate` of the source's 401 (contract §12.1: `Bearer` when bearer is configured). */
export function authChallenge(source: SourceAuthConfig): string[] {
  const challenges: string[] = [];
  if (source.bearerToken !== undefined) challenges.push('Bearer');
  if (source.basicAuth !== undefined) challenges.push('Basic realm="svc", charset="UTF-8"');
  return challenges;
}

/**
 * Equal in constant time whatever the lengths: both sides are hashed first, so the comparison never
 * leaks the expected value's length, and `timingSafeEqual` always sees 32 bytes.
 */
export function constantTimeEqual(given: string | Buffer, expected: string | Buffer): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

type Credentials =
  | { scheme: 'none' }
  | { scheme: 'malformed' }
  | { scheme: 'bearer'; token: string }
  | { scheme: 'basic'; username: Buffer; password: Buffer }
  | { scheme: 'other' };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** `Authorization: Bearer <token>` or `Basic <base64(user:password)>` (RFC 6750, RFC 7617); scheme case-insensitive. */
export function parseAuthorization(value: string | undefined | null): Credentials {
  if (value === undefined) return { scheme: 'none' };
  if (value === null) return { scheme: 'malformed' };
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(value);
  if (!match?.[1] || !match[2] || !TOKEN68.test(match[2])) return { scheme: 'malformed' };
  const scheme = match[1].toLowerCase();
  if (scheme === 'bearer') return { scheme: 'bearer', token: match[2] };
  if (scheme !== 'basic') return { scheme: 'other' };
  const decoded = Buffer.from(match[2], 'base64');
  const colon = decoded.indexOf(0x3a);
  if (colon < 0) return { scheme: 'malformed' };
  return { scheme: 'basic', username: decoded.subarray(0, colon), password: decoded.subarray(colon + 1) };
}

function checkHmac(source: SourceAuthConfig, secret: string, req: SourceAuthRequest): SourceAuthResult {
  const signature = req.header(source.signatureHeader);
  if (signature === undefined) return { ok: false, reason: 'missing-signature' };
  if (signature === null || parseSignature(signature) === null) return { ok: false, reason: 'malformed-signature' };
  let timestamp: string | undefined;
  let window: ReturnType<typeof checkTimestamp> = 'ok';
  if (source.timestampHeader !== undefined) {
    const ts = req.header(source.timestampHeader);
    window = ts === null ? 'malformed' : checkTimestamp(ts, req.nowMs);
    if (window === 'missing') return { ok: false, reason: 'missing-timestamp' };
    if (window === 'malformed') return { ok: false, reason: 'malformed-timestamp' };
    timestamp = ts ?? undefined;
  }
  if (!verifySignature({ secret, body: req.body, header: signature, timestamp })) {
    return { ok: false, reason: 'bad-signature' };
  }
  // Checked after the HMAC, so a logged stale-timestamp means an authentic but old (replayed) request.
  if (window === 'out-of-window') return { ok: false, reason: 'stale-timestamp' };
  return { ok: true, method: 'hmac' };
}

/**
 * Checks one request against every method the source configures. A source with none refuses
 * everything (config validation and the server's start already refuse such a source).
 *
 * The reason reported is the most telling one: a method whose credential was presented and failed
 * (bad-bearer, bad-signature, …) beats a method whose credential is simply absent.
 */
export function checkSourceAuth(source: SourceAuthConfig, req: SourceAuthRequest): SourceAuthResult {
  const failures: SourceAuthFailure[] = [];
  if (source.secret !== undefined) {
    const hmac = checkHmac(source, source.secret, req);
    if (hmac.ok) return hmac;
    failures.push(hmac.reason);
  }
  if (source.bearerToken !== undefined || source.basicAuth !== undefined) {
    const credentials = parseAuthorization(req.header('authorization'));
    if (credentials.scheme === 'bearer' && source.bearerToken !== undefined) {
      if (constantTimeEqual(credentials.token, source.bearerToken)) return { ok: true, method: 'bearer' };
      failures.push('bad-bearer');
    } else if (credentials.scheme === 'basic' && source.basicAuth !== undefined) {
      // Both halves are always compared: which one was wrong takes the same time to find out.
      const user = constantTimeEqual(credentials.username, Buffer.from(source.basicAuth.username, 'utf8'));
      const pass = constantTimeEqual(credentials.password, Buffer.from(source.basicAuth.password, 'utf8'));
      if (user && pass) return { ok: true, method: 'basic' };
      failures.push('bad-basic');
    } else if (credentials.scheme === 'none') {
      failures.push('missing-credentials');
    } else {
      failures.push('malformed-authorization');
    }
  }
  const presented = failures.find((f) => f !== 'missing-signature' && f !== 'missing-credentials');
  if (presented !== undefined) return { ok: false, reason: presented };
  // Only HMAC configured keeps its historical reason; otherwise nothing at all was presented.
  return { ok: false, reason: failures.length === 1 && failures[0] === 'missing-signature' ? 'missing-signature' : 'missing-credentials' };
}
