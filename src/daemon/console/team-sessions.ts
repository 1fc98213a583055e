/**
 * The team console's sessions (contract §24.6): kept on the server, named by a cookie that is
 * `HttpOnly; SameSite=Lax` (Lax: the IdP's redirect back is a top-level GET from another site, and
 * must carry it) and `Secure` when the console's publicUrl is https. A session ends 12 hours after its
 * sign-in however much it is used; one that is still signing in ends after 10 minutes. Signing in
 * gives the session a new id (no fixation), and each session has its own CSRF token for forms.
 *
 * In memory: a restart signs everyone out. At most MAX_SESSIONS live at once; past that, the oldest go
 * first, those still signing in before those signed in.
 */
import { randomBytes } from 'node:crypto';
import type { PendingSignIn, SignedInClaims } from '../../auth/oidc-sign-in.js';
import type { Clock } from '../../core/clock.js';
import { cookieValues, sameSecret } from './console-cookies.js';

export const TEAM_SESSION_COOKIE = 'svc_team';
/** A session ends this long after its sign-in, however it is used (§24.6). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** A sign-in not finished within this long is forgotten. */
export const PENDING_LIFETIME_MS = 10 * 60 * 1000;
export const MAX_SESSIONS = 10_000;

export interface SignedInUser {
  /** The audit chain's actor: `user:<preferred_username | email | sub>`. */
  identity: string;
  claims: SignedInClaims;
}

export interface TeamSession {
  readonly id: string;
  readonly csrf: string;
  readonly expiresAtMs: number;
  /** While signing in: what the callback checks, and where to go after. */
  readonly pending: (PendingSignIn & { next: string }) | null;
  /** After signing in. */
  readonly user: SignedInUser | null;
}

export interface TeamSessions {
  /** A session that is signing in (the cookie is set before the browser goes to the IdP). */
  begin(pending: PendingSignIn & { next: string }): TeamSession;
  /** The live session the Cookie header names, or null (an ended one is forgotten here). */
  fromCookie(header: string | undefined): TeamSession | null;
  /** The signed-in session that replaces `pending` (a new id and token): it ends SESSION_LIFETIME_MS from now. */
  signIn(pending: TeamSession, user: SignedInUser): TeamSession;
  end(session: TeamSession): void;
  /** Set-Cookie for a session. */
  cookieFor(session: TeamSession): string;
  /** Set-Cookie that removes the session cookie. */
  clearCookie(): string;
  /** Live sessions, signed in or signing in (a gauge for tests and /status). */
  count(): number;
}

const token = (): string => randomBytes(32).toString('base64url');

export function createTeamSessions(deps: { clock: Clock; secure: boolean; max?: number }): TeamSessions {
  const max = deps.max ?? MAX_SESSIONS;
  // Insertion order is age: the first entries are the oldest.
  const byId = new Map<string, TeamSession>();
  const flags = `HttpOnly; SameSite=Lax; Path=/${deps.secure ? '; Secure' : ''}`;

  const add = (session: TeamSession): TeamSession => {
    if (byId.size >= max) {
      const now = deps.clock.now();
      for (const [id, s] of byId) if (s.expiresAtMs <= now) byId.delete(id);
    }
    if (byId.size >= max) {
      const victim = [...byId.values()].find((s) => s.user === null) ?? byId.values().next().value;
      if (victim !== undefined) byId.delete(victim.id);
    }
    byId.set(session.id, session);
    return session;
  };

  return {
    begin(pending) {
      return add({ id: token(), csrf: token(), expiresAtMs: deps.clock.now() + PENDING_LIFETIME_MS, pending, user: null });
    },
    fromCookie(header) {
      for (const value of cookieValues(header, TEAM_SESSION_COOKIE)) {
        // A Map lookup by the value, then a constant-time check of the id it found: no timing on a miss's shape.
        const found = byId.get(value);
        if (found === undefined || !sameSecret(value, found.id)) continue;
        if (found.expiresAtMs <= deps.clock.now()) {
          byId.delete(found.id);
          continue;
        }
        return found;
      }
      return null;
    },
    signIn(pending, user) {
      byId.delete(pending.id);
      return add({ id: token(), csrf: token(), expiresAtMs: deps.clock.now() + SESSION_LIFETIME_MS, pending: null, user });
    },
    end(session) {
      byId.delete(session.id);
    },
    cookieFor(session) {
      const seconds = Math.max(0, Math.ceil((session.expiresAtMs - deps.clock.now()) / 1000));
      return `${TEAM_SESSION_COOKIE}=${session.id}; Max-Age=${seconds}; ${flags}`;
    },
    clearCookie: () => `${TEAM_SESSION_COOKIE}=; Max-Age=0; ${flags}`,
    count: () => byId.size,
  };
}
