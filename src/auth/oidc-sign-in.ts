/**
 * Signs a person in with OpenID Connect, authorization code with PKCE (S256): `openid-client` does the
 * protocol (discovery, state, code exchange, ID token validation). Two callers:
 *
 * - `svc console` when the control plane requires tokens (contract §19.3): a public client
 *   (`controlPlane.auth.console.clientId`), redirect `http://127.0.0.1:<port>/callback`, the control
 *   plane's audience asked as the token's resource (RFC 8707); the access token goes upstream;
 * - the team console (§24.6): a confidential client authenticating with `client_secret_basic`,
 *   redirect `<publicUrl>/auth/callback`; only who signed in matters (the ID token's claims).
 *
 * Tokens stay in the caller's memory; nothing is written anywhere.
 */
import * as oidc from 'openid-client';
import { isLoopbackBind } from '../core/loopback.js';
import { readBodyText } from '../core/read-body.js';
import { MAX_RESPONSE_BYTES } from './client-credentials.js';
import { MAX_DOCUMENT_BYTES } from './key-set.js';

/** What an OpenID Connect sign-in in progress needs when the IdP sends the browser back. */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** A confidential client's secret, sent as `client_secret_basic`; null for a public client. */
  clientSecret: string | null;
  /** The resource (RFC 8707) the access token is for; null: none asked. */
  resource: string | null;
  /** Asked besides `openid`. */
  scopes: readonly string[];
  redirectUri: string;
}

/** Who signed in, from the ID token: what a console maps to a person of oncall.yaml (`people[].login`). */
export interface SignedInClaims {
  sub: string;
  email: string | null;
  preferredUsername: string | null;
}

export interface SignedIn {
  accessToken: string;
  expiresAtMs: number | null;
  /** For a new access token without the browser, when the IdP gave one; in memory only. */
  refreshToken: string | null;
  /** `user:<preferred_username | email | sub>` as the audit chain names the operator. */
  identity: string;
  claims: SignedInClaims;
}

export interface OidcSignIn {
  /** Where to send the browser, and what the callback must match. */
  start(): Promise<{ url: string; pending: PendingSignIn }>;
  /** Exchanges the callback's code (state and PKCE checked) for tokens. */
  finish(callbackUrl: URL, pending: PendingSignIn, nowMs: number): Promise<SignedIn>;
  /** A new access token for a refresh token (the identity is the sign-in's: a refresh may carry no ID token). */
  refresh(refreshToken: string, nowMs: number): Promise<Omit<SignedIn, 'identity' | 'claims'>>;
}

/** Visible ASCII, at most 256 characters, or null. */
const claim = (v: unknown): string | null => (typeof v === 'string' && /^[\x21-\x7e]{1,256}$/.test(v) ? v : null);

/** Visible ASCII only, at most 190 characters: an identity fits the admin socket's actor. */
function identityOf(claims: Record<string, unknown> | undefined): string {
  const pick = [claims?.preferred_username, claims?.email, claims?.sub].find((v) => typeof v === 'string' && v !== '') as string | undefined;
  const clean = (pick ?? 'unknown').replace(/[^\x21-\x7e]/g, '?').slice(0, 190);
  return `user:${clean}`;
}

function held(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers, nowMs: number, previousRefresh: string | null):
  Omit<SignedIn, 'identity' | 'claims'> {
  const expiresIn = tokens.expiresIn();
  return {
    accessToken: tokens.access_token,
    expiresAtMs: expiresIn === undefined ? null : nowMs + expiresIn * 1000,
    refreshToken: tokens.refresh_token ?? previousRefresh,
  };
}

/** Statuses a Response may not carry a body with. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * The fetch `openid-client` uses for every request to the IdP: each answer is read through the one
 * capped reader (contract §11.7), the daemon's caps — a discovery document or key set (GET) 1 MiB, a
 * token endpoint's answer (POST) 256 KiB — and handed on whole. openid-client reads answers without
 * a bound of its own: an IdP streaming without end grew the CLI's memory until it gave up.
 */
const cappedFetch: oidc.CustomFetch = async (url, options) => {
  const own = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
  const res = await fetch(url, { ...options, signal });
  const text = await readBodyText(res, options.method === 'GET' ? MAX_DOCUMENT_BYTES : MAX_RESPONSE_BYTES, () => own.abort());
  return new Response(NULL_BODY_STATUSES.has(res.status) ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
};

export function createOidcSignIn(settings: OidcSettings): OidcSignIn {
  let config: Promise<oidc.Configuration> | null = null;
  const issuer = new URL(settings.issuer);
  // Plain HTTP only to an IdP on this machine (a test or a local IdP); anything else must be HTTPS.
  const insecureOk = issuer.protocol === 'http:' && isLoopbackBind(issuer.hostname.replace(/^\[|\]$/g, ''));
  const configuration = (): Promise<oidc.Configuration> => {
    const auth = settings.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret);
    config ??= oidc.discovery(issuer, settings.clientId, undefined, auth,
      { [oidc.customFetch]: cappedFetch, ...(insecureOk ? { execute: [oidc.allowInsecureRequests] } : {}) })
      .then((c) => {
        // Discovery's own request went through it; so do the token endpoint and the key set later.
        c[oidc.customFetch] = cappedFetch;
        return c;
      })
      .catch((err: unknown) => { config = null; throw err; });
    return config;
  };
  const scope = ['openid', ...settings.scopes].join(' ');
  return {
    async start() {
      const c = await configuration();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: settings.redirectUri, scope, state, ...(settings.resource === null ? {} : { resource: settings.resource }),
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
      });
      return { url: url.href, pending: { state, codeVerifier } };
    },
    async finish(callbackUrl, pending, nowMs) {
      const c = await configuration();
      const tokens = await oidc.authorizationCodeGrant(c, callbackUrl, { pkceCodeVerifier: pending.codeVerifier, expectedState: pending.state },
        settings.resource === null ? {} : { resource: settings.resource });
      const idClaims = tokens.claims();
      const sub = claim(idClaims?.sub);
      if (sub === null) throw new Error('the ID token carries no usable sub claim');
      return { ...held(tokens, nowMs, null), identity: identityOf(idClaims),
        claims: { sub, email: claim(idClaims?.email), preferredUsername: claim(idClaims?.preferred_username) } };
    },
    async refresh(refreshToken, nowMs) {
      const c = await configuration();
      // The IdP may rotate the refresh token; when it does not, the one we had stays good.
      return held(await oidc.refreshTokenGrant(c, refreshToken, settings.resource === null ? {} : { resource: settings.resource }), nowMs, refreshToken);
    },
  };
}
