/**
 * The proxy's sessions (contract §19.3): one sign-in link that works once, then a session named by an
 * HttpOnly, SameSite=Strict cookie, each with its own CSRF token for action forms. Everything lives in
 * memory: when `svc console` stops, every session and token is gone.
 */
import { randomBytes } from 'node:crypto';
import type { PendingSignIn } from '../../auth/oidc-sign-in.js';
import { cookieValues, sameSecret } from '../../daemon/console/console-cookies.js';

export const SESSION_COOKIE = 'svc_console';

export interface Session {
  id: string;
  csrf: string;
  /** Who acts (audit `actor`): `user:<name>` after an OIDC sign-in, else `local:<os user>`. */
  identity: string;
  /** The bearer token for the upstream control plane, in memory only; null without OIDC. */
  accessToken: string | null;
  /** When the access token stops being valid (ms since epoch); null: no expiry known. */
  tokenExpiresAtMs: number | null;
  /** The IdP's refresh token, in memory only; null: none (sign in again when the access token ends). */
  refreshToken: string | null;
  pending: PendingSignIn | null;
  /** The fleet host this session looks at (--fleet); null: the picker. */
  host: string | null;
  /** The person of oncall.yaml this session acts as ("Acting as"); null: not chosen (on-call actions ask first). */
  actingAs: string | null;
}

const token = (): string => randomBytes(32).toString('base64url');

export interface Sessions {
  /** The token of the one-time link (for the URL printed at start). */
  readonly linkToken: string;
  /** Spends the link: a session when `candidate` is the unused link token, else null. */
  redeem(candidate: string, identity: string): Session | null;
  /** The session a Cookie header names, or null. */
  fromCookie(header: string | undefined): Session | null;
  /** Set-Cookie for a session. */
  cookieFor(session: Session): string;
}

export function createSessions(): Sessions {
  const linkToken = token();
  let spent = false;
  const byId = new Map<string, Session>();
  return {
    linkToken,
    redeem(candidate, identity) {
      if (spent || !sameSecret(candidate, linkToken)) return null;
      spent = true;
      const session: Session = { id: token(), csrf: token(), identity, accessToken: null, tokenExpiresAtMs: null, refreshToken: null,
        pending: null, host: null, actingAs: null };
      byId.set(session.id, session);
      return session;
    },
    fromCookie(header) {
      for (const value of cookieValues(header, SESSION_COOKIE)) {
        for (const [id, session] of byId) if (sameSecret(value, id)) return session;
      }
      return null;
    },
    cookieFor: (session) => `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/`,
  };
}
