import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../../core/clock.js';
import { PENDING_LIFETIME_MS, SESSION_LIFETIME_MS, createTeamSessions } from './team-sessions.js';

const HOUR = 3_600_000;
const user = { identity: 'user:alice@example.com', claims: { sub: 'alice', email: 'alice@example.com', preferredUsername: null } };
const pending = { state: 's', codeVerifier: 'v', next: '/ui/' };
const cookieOf = (setCookie: string): string => setCookie.split(';')[0] ?? '';

describe('team console sessions (§24.6)', () => {
  it('a session ends 12 h after its sign-in however it is used, and not a moment before', () => {
    const clock = fakeClock(Date.UTC(2026, 10, 25, 9));
    const sessions = createTeamSessions({ clock, secure: true });
    const signedIn = sessions.signIn(sessions.begin(pending), user);
    const cookie = cookieOf(sessions.cookieFor(signedIn));
    // Used every hour: each use finds it, none extends it.
    for (let h = 1; h < 12; h++) {
      clock.advance(HOUR);
      assert.equal(sessions.fromCookie(cookie)?.id, signedIn.id, `after ${h} h`);
    }
    clock.advance(HOUR - 1);
    assert.equal(sessions.fromCookie(cookie)?.id, signedIn.id, 'one millisecond before 12 h');
    clock.advance(1);
    assert.equal(sessions.fromCookie(cookie), null, 'at 12 h it has ended');
    assert.equal(sessions.count(), 0, 'and is forgotten');
    assert.equal(signedIn.expiresAtMs - Date.UTC(2026, 10, 25, 9), SESSION_LIFETIME_MS);
  });

  it('cookie flags: HttpOnly, SameSite=Lax, Path=/, Max-Age of what is left; Secure only for an https publicUrl', () => {
    const clock = fakeClock(0);
    const https = createTeamSessions({ clock, secure: true });
    const s = https.signIn(https.begin(pending), user);
    assert.equal(https.cookieFor(s), `svc_team=${s.id}; Max-Age=43200; HttpOnly; SameSite=Lax; Path=/; Secure`);
    clock.advance(2 * HOUR);
    assert.match(https.cookieFor(s), /; Max-Age=36000; /);
    assert.equal(https.clearCookie(), 'svc_team=; Max-Age=0; HttpOnly; SameSite=Lax; Path=/; Secure');
    const http = createTeamSessions({ clock, secure: false });
    assert.doesNotMatch(http.cookieFor(http.begin(pending)), /Secure/);
  });

  it('signing in gives a new id and CSRF token; the signing-in session is gone; an unfinished sign-in ends after 10 minutes', () => {
    const clock = fakeClock(0);
    const sessions = createTeamSessions({ clock, secure: false });
    const begun = sessions.begin(pending);
    const signedIn = sessions.signIn(begun, user);
    assert.notEqual(signedIn.id, begun.id);
    assert.notEqual(signedIn.csrf, begun.csrf);
    assert.equal(sessions.fromCookie(`svc_team=${begun.id}`), null, 'the old id no longer works (no fixation)');
    const waiting = sessions.begin(pending);
    clock.advance(PENDING_LIFETIME_MS);
    assert.equal(sessions.fromCookie(`svc_team=${waiting.id}`), null);
  });

  it('a forged or unknown id, another cookie, an ended session: nothing', () => {
    const clock = fakeClock(0);
    const sessions = createTeamSessions({ clock, secure: false });
    const s = sessions.signIn(sessions.begin(pending), user);
    assert.equal(sessions.fromCookie(undefined), null);
    assert.equal(sessions.fromCookie(`svc_team=${s.id.slice(0, -1)}A`), null);
    assert.equal(sessions.fromCookie(`svc_console=${s.id}`), null);
    assert.equal(sessions.fromCookie(`other=1; svc_team=${s.id}`)?.id, s.id);
    sessions.end(s);
    assert.equal(sessions.fromCookie(`svc_team=${s.id}`), null);
  });

  it('at most max sessions: the ended go first, then those still signing in, then the oldest', () => {
    const clock = fakeClock(0);
    const sessions = createTeamSessions({ clock, secure: false, max: 3 });
    const a = sessions.signIn(sessions.begin(pending), user);
    const waiting = sessions.begin(pending);
    const b = sessions.signIn(sessions.begin(pending), user);
    const c = sessions.signIn(sessions.begin(pending), user);
    assert.equal(sessions.count(), 3);
    assert.equal(sessions.fromCookie(`svc_team=${waiting.id}`), null, 'the sign-in in progress made room');
    assert.ok([a, b, c].every((s) => sessions.fromCookie(`svc_team=${s.id}`) !== null));
    sessions.signIn(sessions.begin(pending), user);
    assert.equal(sessions.fromCookie(`svc_team=${a.id}`), null, 'then the oldest');
  });
});
