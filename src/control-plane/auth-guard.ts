/**
 * The control plane's authentication guard (contract §4): the HTTP adapter around the token
 * verifier. It runs after the Host check and before any route (server.ts `AuthGuard`).
 *
 * Pure halves, table-tested: {@link bypassesAuth} (the hardened loopback bypass, §4.1) and
 * {@link bearerToken} (`Authorization: Bearer <JWT>`, §4.2). Every failure is a 401 with
 * `{error, reason}` and `WWW-Authenticate: Bearer…`; nothing in here answers 5xx.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AuthSettings } from '../config/control-plane.js';
import type { Clock } from '../core/clock.js';
import { errorText } from '../core/errors.js';
import type { HostClass } from './host-guard.js';
import type { AuthGuard, AuthOutcome } from './server.js';
import { AUTH_ERROR_TEXT } from '../auth/reasons.js';
import type { AuthReason } from '../auth/reasons.js';
import type { TokenVerifier } from '../auth/verify-token.js';

/**
 * Headers a proxy adds: any of them means the TCP peer is not the client, so loopback proves nothing.
 * The contract's four.
 */
export const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'] as const;

/** The RFC 6750 §3 challenge for each reason; every one starts with `Bearer`. */
const CHALLENGE: Record<AuthReason, string> = {
  'missing-token': 'Bearer',
  'malformed-token': 'Bearer error="invalid_token"',
  'bad-signature': 'Bearer error="invalid_token"',
  expired: 'Bearer error="invalid_token"',
  'not-yet-valid': 'Bearer error="invalid_token"',
  'wrong-issuer': 'Bearer error="invalid_token"',
  'wrong-audience': 'Bearer error="invalid_token"',
  'insufficient-scope': 'Bearer error="insufficient_scope"',
  // Not the token's fault: no error code.
  'idp-unreachable': 'Bearer',
  'provider-failed': 'Bearer',
  'config-error': 'Bearer',
};

/** Reasons worth a line in the daemon's log (the server side is failing, not the client). */
const REPORTED = new Set<AuthReason>(['idp-unreachable', 'provider-failed', 'config-error']);
/** At most one log line per reported reason per this many ms, so an outage does not flood the log. */
const REPORT_INTERVAL_MS = 60_000;

/** 127.0.0.0/8, ::1, and IPv4-mapped 127.x (a dual-stack listener's view of an IPv4 peer). */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}

/**
 * Contract §4.1: skip authentication only when allowed, the Host is loopback, the TCP peer is
 * loopback, and no proxy header is present — a same-host reverse proxy rewriting Host to
 * 127.0.0.1 therefore does not open the door (it must send X-Forwarded-For or Forwarded).
 */
export function bypassesAuth(input: { allowLoopback: boolean; host: HostClass; peer: string | undefined; headers: IncomingHttpHeaders }): boolean {
  return input.allowLoopback && input.host === 'loopback' && isLoopbackPeer(input.peer)
    && FORWARDING_HEADERS.every((name) => input.headers[name] === undefined);
}

export type BearerResult = { ok: true; token: string } | { ok: false; reason: 'missing-token' | 'malformed-token' };

/**
 * The token of `Authorization: Bearer <token>` from Node's raw header list (req.headers keeps only
 * the first Authorization). No Authorization, or another scheme → missing-token; two Authorization
 * headers, an empty credential, or more than one → malformed-token. The scheme is case-insensitive;
 * a token in the query string is never looked at.
 */
export function bearerToken(rawHeaders: readonly string[]): BearerResult {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] as string);
  }
  if (values.length > 1) return { ok: false, reason: 'malformed-token' };
  const value = (values[0] ?? '').trim();
  const space = value.search(/[ \t]/);
  const scheme = space === -1 ? value : value.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') return { ok: false, reason: 'missing-token' };
  const token = space === -1 ? '' : value.slice(space).trim();
  if (token === '' || /[ \t]/.test(token)) return { ok: false, reason: 'malformed-token' };
  return { ok: true, token };
}

function rejection(reason: AuthReason): AuthOutcome {
  return { ok: false, status: 401, body: { error: AUTH_ERROR_TEXT[reason], reason }, headers: { 'www-authenticate': CHALLENGE[reason] } };
}

export interface AuthGuardDeps {
  clock: Clock;
  /** The daemon's log: why the IdP or the verifier failed (rate-limited); never shown to a client. */
  report?: (line: string) => void;
}

/**
 * The guard for server.ts. A request that bypasses (above) gets `principal.expiresAtMs: null`; an
 * authenticated one gets the verifier's `expiresAtMs` — `(exp + 60 s) × 1000`, the moment the token
 * stops being accepted, when a /logs stream it opened ends with `token-expired`.
 */
export function createAuthGuard(settings: AuthSettings, verifier: TokenVerifier, deps: AuthGuardDeps): AuthGuard {
  const lastReportAt = new Map<AuthReason, number>();
  const report = (reason: AuthReason, detail: string | undefined): void => {
    if (deps.report === undefined || !REPORTED.has(reason)) return;
    const now = deps.clock.now();
    const last = lastReportAt.get(reason);
    if (last !== undefined && now - last < REPORT_INTERVAL_MS && now >= last) return;
    lastReportAt.set(reason, now);
    try {
      deps.report(`control plane auth: ${reason}${detail === undefined ? '' : `: ${detail}`}`);
    } catch {
      // A failing log must not turn a 401 into a 500.
    }
  };

  return async (req: IncomingMessage, host: HostClass): Promise<AuthOutcome> => {
    try {
      if (bypassesAuth({ allowLoopback: settings.allowLoopback, host, peer: req.socket.remoteAddress, headers: req.headers })) {
        return { ok: true, principal: { expiresAtMs: null } };
      }
      const bearer = bearerToken(req.rawHeaders);
      if (!bearer.ok) return rejection(bearer.reason);
      const result = await verifier.verify(bearer.token);
      if (!result.ok) {
        report(result.reason, result.detail);
        return rejection(result.reason);
      }
      return { ok: true, principal: { expiresAtMs: result.expiresAtMs } };
    } catch (err) {
      report('provider-failed', errorText(err));
      return rejection('provider-failed');
    }
  };
}
